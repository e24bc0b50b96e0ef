package ui

import (
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/lppctl/lppctl/machine"
)

type specsData struct {
	page
	Root  string
	Files []string
}

// skipDir lists folders the spec list does not walk into.
func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "output" || name == "testdata"
}

// specFiles lists the .yaml and .yml files under root (slash-separated,
// relative), hidden folders, node_modules, output and testdata left out.
func specFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable folder: list the rest
		}
		if e.IsDir() {
			if p != root && skipDir(e.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(p); ext == ".yaml" || ext == ".yml" {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out, err
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
	Path    string
	Diags   []diagView
	Errors  int
	Diagram diagram
	Pretty  string // the diagnostics as lppctl validate prints them
}

type diagView struct {
	Severity, Where, Msg, Hint string
}

// specPage draws one spec under the root (?path=specs/x.yaml) with its
// validate diagnostics. The path must stay inside the root (os.Root).
func (s *Server) specPage(w http.ResponseWriter, r *http.Request) {
	rel := r.URL.Query().Get("path")
	if ext := filepath.Ext(rel); !filepath.IsLocal(filepath.FromSlash(rel)) || ext != ".yaml" && ext != ".yml" {
		s.failf(w, http.StatusBadRequest, "cannot show spec %q: give a .yaml or .yml file inside the project root (the Specs page lists them)", rel)
		return
	}
	root, err := os.OpenRoot(s.opts.Root)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	defer root.Close()
	f, err := root.Open(filepath.FromSlash(rel))
	if err != nil {
		s.failf(w, http.StatusNotFound, "cannot read spec: %v", err)
		return
	}
	src, err := io.ReadAll(io.LimitReader(f, 8<<20))
	f.Close()
	if err != nil {
		s.failf(w, http.StatusInternalServerError, "cannot read spec: %v", err)
		return
	}
	path := filepath.Join(s.opts.Root, filepath.FromSlash(rel))
	var spec *machine.Spec
	var diags machine.Diagnostics
	if s.opts.Check != nil {
		spec, diags = s.opts.Check(path, src)
	} else { // the built-in actions only
		reg := machine.NewRegistry()
		if err := machine.RegisterBuiltins(reg); err != nil {
			s.fail(w, http.StatusInternalServerError, err)
			return
		}
		spec, diags = machine.Check(path, src, reg, machine.WithRoot(s.opts.Root))
	}
	d := specData{page: page{Title: "Spec " + rel, Nav: "specs"}, Path: rel}
	for _, dg := range diags {
		d.Diags = append(d.Diags, diagView{Severity: dg.Severity.String(), Where: fmt.Sprintf("%d:%d", dg.Pos.Line, dg.Pos.Col), Msg: dg.Msg, Hint: dg.Hint})
		if dg.Severity == machine.SevError {
			d.Errors++
		}
	}
	if len(diags) > 0 {
		d.Pretty = diags.PrettyAll(src)
	}
	d.Diagram = s.drawSpec(r.Context(), spec, nil, "")
	s.render(w, http.StatusOK, "spec.html", d)
}
