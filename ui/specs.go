package ui

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/lppctl/lppctl/internal/fsx"
	"github.com/lppctl/lppctl/internal/textx"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/lpp"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

type specsData struct {
	page
	Root  string
	Files []specFile
}

// specFile is one entry of the Specs page.
type specFile struct {
	Path      string // slash-separated, relative to the root
	Blueprint bool   // an L++ blueprint (JSON), else a YAML spec
	// Errors is the number of errors validate finds in a spec, or import
	// in a blueprint (-1: not read); Description its first line.
	Errors      int
	Description string
}

// skipDir lists folders the spec list does not walk into.
func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "output" || name == "testdata"
}

// specFiles lists the .yaml and .yml files under root and the .json files
// that are L++ blueprints (lpp.IsBlueprint), hidden folders, node_modules,
// output and testdata left out. JSON files are read through an os.Root, so
// a link out of the root is never read.
func specFiles(root string) ([]specFile, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("cannot list specs: %w", err)
	}
	defer r.Close()
	var out []specFile
	err = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable folder: list the rest
		}
		if e.IsDir() {
			if p != root && skipDir(e.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		switch filepath.Ext(p) {
		case ".yaml", ".yml":
			if src, err := readUnder(r, rel); err == nil && mspec.ListedAsSpec(src) {
				out = append(out, specFile{Path: filepath.ToSlash(rel), Errors: -1})
			}
		case ".json":
			if src, err := readUnder(r, rel); err == nil && bytes.Contains(src, []byte("lpp/")) && lpp.IsBlueprint(src) {
				out = append(out, specFile{Path: filepath.ToSlash(rel), Blueprint: true, Errors: -1})
			}
		}
		return nil
	})
	return out, err
}

// readUnder reads the file rel under root: a regular file (opened without
// blocking, so a FIFO named like a spec never hangs a page) of at most the
// CLI's cap (LPPCTL_MAX_BYTES, else 16 MiB: fsx.MaxBytes).
func readUnder(root *os.Root, rel string) ([]byte, error) {
	limit, err := fsx.MaxBytes("")
	if err != nil {
		return nil, err
	}
	f, err := root.OpenFile(rel, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	name := filepath.ToSlash(rel)
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%w; raise the limit with %s=SIZE", &fsx.TooLargeError{Path: name, Size: info.Size(), Limit: limit}, fsx.MaxBytesEnv)
	}
	src, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(src)) > limit {
		err = fmt.Errorf("%w; raise the limit with %s=SIZE", &fsx.TooLargeError{Path: name, Limit: limit}, fsx.MaxBytesEnv)
	}
	return src, err
}

func (s *Server) specsPage(w http.ResponseWriter, r *http.Request) {
	files, err := specFiles(s.opts.Root)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	root, err := os.OpenRoot(s.opts.Root)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	defer root.Close()
	for i := range files {
		f := &files[i]
		path := filepath.Join(s.opts.Root, filepath.FromSlash(f.Path))
		src, err := readUnder(root, filepath.FromSlash(f.Path))
		if err != nil {
			continue
		}
		if f.Blueprint { // as its page and lppctl validate find them
			t, _, diags := s.checkBlueprint(path, src)
			f.Errors = diags.Count(mspec.SevError)
			if t.bp != nil {
				f.Description, _, _ = strings.Cut(t.bp.Description, "\n")
			}
			continue
		}
		var spec *mspec.Spec
		var diags mspec.Diagnostics
		if s.opts.Check != nil {
			spec, diags = s.opts.Check(path, src)
		} else {
			spec, diags = validate.Check(path, src, machine.NewBuiltinRegistry(), validate.WithRoot(s.opts.Root))
		}
		f.Errors = diags.Count(mspec.SevError) // those validate folds as alike included
		if spec != nil {
			f.Description, _, _ = strings.Cut(spec.Description, "\n")
		}
	}
	s.render(w, http.StatusOK, "specs.html", specsData{page: page{Title: "Specs", Nav: "specs"}, Root: s.opts.Root, Files: files})
}

type specData struct {
	page
	Path      string
	Blueprint bool // an L++ blueprint: drawn, not checked
	Import    string
	Diags     []diagView
	Errors    int // as lppctl validate counts them
	Warnings  int
	Diagram   diagram
	DrawnOf   string // the property whose counterexample the diagram shows
	Pretty    string // the diagnostics as lppctl validate prints them
	Check     *checkView
	// Name and Description are the spec's; Source its lines, the
	// diagnostics under theirs.
	Name, Description string
	Source            []srcLine
	// Start is the form that starts a run (one field per context
	// variable); StartCLI its command; StartError why it was refused.
	Start      []startField
	StartCLI   string
	StartError string
	Runs       []runRow // the runs of this spec, newest first

	tr    *lpp.Translation         // a blueprint's translation, nil for a spec
	spell func(name string) string // a blueprint's spelling of a context variable's name (nil: a spec's)
}

// srcLine is a line of a spec's source with the diagnostics at it.
type srcLine struct {
	N     int
	Text  string
	Diags []string
}

// sourceLines numbers a spec's lines and puts each diagnostic under its line.
// Lines break where the diagnostics' positions do (mspec.SourceLine: at
// \n, \r\n and a lone \r too, as YAML reads them).
func sourceLines(src []byte, diags mspec.Diagnostics) []srcLine {
	n := mspec.LineCount(src)
	if n > 0 && mspec.SourceLine(src, n) == "" {
		n-- // the end of the last line
	}
	out := make([]srcLine, max(n, 1)) // an empty file: one empty line, where "the spec is empty" is
	for i := range out {
		out[i] = srcLine{N: i + 1, Text: mspec.SourceLine(src, i+1)}
	}
	for _, dg := range diags {
		if i := dg.Pos.Line - 1; i >= 0 && i < len(out) {
			out[i].Diags = append(out[i].Diags, fmt.Sprintf("%s %d:%d: %s", dg.Severity, dg.Pos.Line, dg.Pos.Col, dg.Msg))
		}
	}
	return out
}

// runsOfSpec lists the store's runs of the spec at rel (abs: its path),
// newest first, at most 50.
func (s *Server) runsOfSpec(rel, abs string) []runRow {
	runs, err := s.store.List()
	if err != nil {
		return nil
	}
	var out []runRow
	for i := len(runs) - 1; i >= 0 && len(out) < 50; i-- {
		m := &runs[i].Meta
		if m.SpecAbs == abs || filepath.ToSlash(filepath.Clean(m.Spec)) == rel {
			out = append(out, s.listed(runs[i]))
		}
	}
	return out
}

type diagView struct {
	Severity, Where, Msg, Hint string
}

// setDiags puts the diagnostics of src on the page.
func (d *specData) setDiags(diags mspec.Diagnostics, src []byte) {
	for _, dg := range diags {
		d.Diags = append(d.Diags, diagView{Severity: dg.Severity.String(), Where: fmt.Sprintf("%d:%d", dg.Pos.Line, dg.Pos.Col), Msg: dg.Msg, Hint: dg.Hint})
	}
	// As lppctl validate counts them: those folded as alike ("and N more
	// like it") included.
	d.Errors, d.Warnings = diags.Count(mspec.SevError), diags.Count(mspec.SevWarning)
	if len(diags) > 0 {
		d.Pretty = diags.PrettyAll(src)
	}
}

// specPage draws one spec or L++ blueprint under the root
// (?path=specs/x.yaml) with its diagnostics; with ?check=1 it model-checks
// the spec and draws a counterexample (?cex=PROPERTY, else the first). The
// path must stay inside the root (os.Root).
func (s *Server) specPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rel := q.Get("path")
	d, spec, status := s.loadSpec(r, rel)
	if status != http.StatusOK {
		s.render(w, status, "error.html", errorData{page: page{Title: http.StatusText(status)}, Status: status, Message: d.StartError, Back: "/specs"})
		return
	}
	var tracePath []string
	current := ""
	code := http.StatusOK
	if q.Get("check") != "" {
		switch {
		case fromAnotherSite(r):
			// A check costs up to --check-timeout and holds the checker:
			// another site's page (an <img>, a link) does not start one.
			code = http.StatusForbidden
			d.Check = &checkView{Error: fmt.Sprintf("cannot check %s: the request came from another site (Sec-Fetch-Site: %s); press Check on this page to run it", rel, r.Header.Get("Sec-Fetch-Site"))}
		case spec == nil || d.Errors > 0:
			d.Check = &checkView{Error: fmt.Sprintf("cannot check %s: the spec has %s: fix them (see above), then check again", rel, textx.Count(d.Errors, "error", "errors"))}
		default:
			rep, err := s.checkSpec(r.Context(), spec, rel)
			if err != nil {
				d.Check = &checkView{Error: err.Error()}
				break
			}
			// raw has the spec's names, which the diagram draws
			where, raw := rel, rep
			if d.tr != nil { // a blueprint's: positions in its JSON, as lppctl check gives them
				if rep = d.tr.RemapReport(rep); rep.File == d.tr.SpecFile() {
					where = rel + ".spec.yaml" // a line that comes from no place of the JSON
				}
			}
			d.Check = viewCheck(rep, where, func(prop string) string {
				return "/spec?" + url.Values{"path": {rel}, "check": {"1"}, "cex": {prop}}.Encode() + "#graph"
			})
			if prop, tr := drawnTrace(raw, q.Get("cex")); tr != nil {
				tracePath = tr.States()
				current = tracePath[len(tracePath)-1]
				d.Check.Drawn = prop
				if p := rep.Property(prop); p != nil {
					d.DrawnOf = p.Title
				}
			}
		}
	}
	if tracePath != nil { // a flowchart: the trace's transitions lit too
		d.Diagram = s.drawSpecAs(r.Context(), spec, "mermaid-flowchart", tracePath, current)
	}
	s.render(w, code, "spec.html", d)
}

// readSpec reads a spec or blueprint under the root (rel: slash-separated),
// through an os.Root.
func (s *Server) readSpec(rel string) ([]byte, int, error) {
	if ext := filepath.Ext(rel); !filepath.IsLocal(filepath.FromSlash(rel)) || ext != ".yaml" && ext != ".yml" && ext != ".json" {
		return nil, http.StatusBadRequest, fmt.Errorf("cannot show spec %q: give a .yaml or .yml spec or a .json L++ blueprint inside the project root (the Specs page lists them)", rel)
	}
	root, err := os.OpenRoot(s.opts.Root)
	if err != nil {
		return nil, http.StatusInternalServerError, err
	}
	src, err := readUnder(root, filepath.FromSlash(rel))
	root.Close()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, http.StatusNotFound, fmt.Errorf("cannot read spec: %v", err)
	}
	if err != nil {
		return nil, http.StatusBadRequest, fmt.Errorf("cannot read spec: %v", err)
	}
	return src, http.StatusOK, nil
}

// loadSpec reads and validates a spec under the root and makes its page:
// the description, source with its diagnostics, the diagram, the Start
// form and the spec's runs. On an error the status says which, and
// StartError why.
func (s *Server) loadSpec(r *http.Request, rel string) (specData, *mspec.Spec, int) {
	src, status, err := s.readSpec(rel)
	if err != nil {
		return specData{StartError: err.Error()}, nil, status
	}
	path := filepath.Join(s.opts.Root, filepath.FromSlash(rel))
	var d specData
	var spec *mspec.Spec
	if filepath.Ext(rel) == ".json" { // an L++ blueprint: run and checked as the spec it translates into
		d, spec, status = s.loadBlueprint(rel, path, src)
		if status != http.StatusOK {
			return d, nil, status
		}
	} else {
		var diags mspec.Diagnostics
		if s.opts.Check != nil {
			spec, diags = s.opts.Check(path, src)
		} else { // the built-in actions only
			spec, diags = validate.Check(path, src, machine.NewBuiltinRegistry(), validate.WithRoot(s.opts.Root))
		}
		d = specData{page: page{Title: "Spec " + rel, Nav: "specs"}, Path: rel}
		d.setDiags(diags, src)
		d.Source = sourceLines(src, diags)
		d.Diagram = s.drawSpec(r.Context(), spec, nil, "")
		if spec != nil {
			d.Name, d.Description = spec.Name, spec.Description
		}
	}
	if spec != nil && d.Errors == 0 && s.opts.Exe != "" {
		d.Start = startForm(spec, nil, d.spell)
		c, _, _ := startArgs(s, rel, spec, d.Start) // the defaults: no --var, nothing written
		d.StartCLI = c.Show
	}
	d.Runs = s.runsOfSpec(rel, path)
	return d, spec, http.StatusOK
}
