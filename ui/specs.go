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

	"github.com/lppctl/lppctl/internal/textx"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/lpp"
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
}

// maxSpecSize bounds what the spec pages read of one file.
const maxSpecSize = 8 << 20

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
			out = append(out, specFile{Path: filepath.ToSlash(rel)})
		case ".json":
			if src, err := readUnder(r, rel); err == nil && bytes.Contains(src, []byte("lpp/")) && lpp.IsBlueprint(src) {
				out = append(out, specFile{Path: filepath.ToSlash(rel), Blueprint: true})
			}
		}
		return nil
	})
	return out, err
}

// readUnder reads the file rel under root, up to maxSpecSize bytes.
func readUnder(root *os.Root, rel string) ([]byte, error) {
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, maxSpecSize+1))
	if err == nil && len(src) > maxSpecSize {
		err = fmt.Errorf("%s is larger than %d MB", rel, maxSpecSize>>20)
	}
	return src, err
}

func (s *Server) specsPage(w http.ResponseWriter, r *http.Request) {
	files, err := specFiles(s.opts.Root)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	s.render(w, http.StatusOK, "specs.html", specsData{page: page{Title: "Specs", Nav: "specs"}, Root: s.opts.Root, Files: files})
}

type specData struct {
	page
	Path      string
	Blueprint bool // an L++ blueprint: drawn, not checked
	Import    string
	Diags     []diagView
	Errors    int
	Diagram   diagram
	DrawnOf   string // the property whose counterexample the diagram shows
	Pretty    string // the diagnostics as lppctl validate prints them
	Check     *checkView
}

type diagView struct {
	Severity, Where, Msg, Hint string
}

// setDiags puts the diagnostics of src on the page.
func (d *specData) setDiags(diags machine.Diagnostics, src []byte) {
	for _, dg := range diags {
		d.Diags = append(d.Diags, diagView{Severity: dg.Severity.String(), Where: fmt.Sprintf("%d:%d", dg.Pos.Line, dg.Pos.Col), Msg: dg.Msg, Hint: dg.Hint})
		if dg.Severity == machine.SevError {
			d.Errors++
		}
	}
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
	if ext := filepath.Ext(rel); !filepath.IsLocal(filepath.FromSlash(rel)) || ext != ".yaml" && ext != ".yml" && ext != ".json" {
		s.failf(w, http.StatusBadRequest, "cannot show spec %q: give a .yaml or .yml spec or a .json L++ blueprint inside the project root (the Specs page lists them)", rel)
		return
	}
	root, err := os.OpenRoot(s.opts.Root)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	src, err := readUnder(root, filepath.FromSlash(rel))
	root.Close()
	if errors.Is(err, fs.ErrNotExist) {
		s.failf(w, http.StatusNotFound, "cannot read spec: %v", err)
		return
	}
	if err != nil {
		s.failf(w, http.StatusBadRequest, "cannot read spec: %v", err)
		return
	}
	path := filepath.Join(s.opts.Root, filepath.FromSlash(rel))
	if filepath.Ext(rel) == ".json" {
		s.blueprintPage(w, rel, path, src)
		return
	}
	var spec *machine.Spec
	var diags machine.Diagnostics
	if s.opts.Check != nil {
		spec, diags = s.opts.Check(path, src)
	} else { // the built-in actions only
		spec, diags = machine.Check(path, src, machine.NewBuiltinRegistry(), machine.WithRoot(s.opts.Root))
	}
	d := specData{page: page{Title: "Spec " + rel, Nav: "specs"}, Path: rel}
	d.setDiags(diags, src)
	var tracePath []string
	current := ""
	if q.Get("check") != "" {
		switch {
		case spec == nil || diags.HasErrors():
			d.Check = &checkView{Error: fmt.Sprintf("cannot check %s: the spec has %s: fix them (see above), then check again", rel, textx.Count(d.Errors, "error", "errors"))}
		default:
			rep, err := s.checkSpec(r.Context(), spec, rel)
			if err != nil {
				d.Check = &checkView{Error: err.Error()}
				break
			}
			d.Check = viewCheck(rep, rel, func(prop string) string {
				return "/spec?" + url.Values{"path": {rel}, "check": {"1"}, "cex": {prop}}.Encode() + "#graph"
			})
			if prop, tr := drawnTrace(rep, q.Get("cex")); tr != nil {
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
	} else {
		d.Diagram = s.drawSpec(r.Context(), spec, nil, "")
	}
	s.render(w, http.StatusOK, "spec.html", d)
}
