package ui

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/lpp"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// loadBlueprint makes the page of an L++ blueprint (rel under the root, at
// path), as loadSpec makes a spec's: its validity and the problems lppctl
// validate finds, positioned in the JSON, its drawing (lpp.Mermaid, as
// lppctl export draws it), its source, its runs, and the spec it
// translates into, which the Start form starts (lppctl run BLUEPRINT.json,
// its fields named as the blueprint names its properties) and Check
// explores, as lppctl run and lppctl check take the blueprint itself.
func (s *Server) loadBlueprint(rel, path string, src []byte) (specData, *mspec.Spec, int) {
	if !lpp.IsLPP(src) {
		return specData{StartError: fmt.Sprintf("cannot show %q: it is not an L++ blueprint (its \"$schema\" does not name lpp/v0.1.x or lpp/v0.2.0)", rel)}, nil, http.StatusBadRequest
	}
	t, spec, diags := s.checkBlueprint(path, src)
	d := specData{page: page{Title: "Blueprint " + rel, Nav: "specs"}, Path: rel, Blueprint: true, tr: t.tr}
	d.setDiags(diags, src)
	d.Source = sourceLines(src, diags)
	if t.bp != nil {
		d.Name, d.Description, d.spell = t.bp.Name, t.bp.Description, t.bp.Spelling
	}
	if diags.HasErrors() || t.bp == nil {
		d.Diagram = diagram{Error: "the blueprint cannot be drawn until its errors are fixed"}
	} else {
		d.Import = "lppctl import lpp " + shellQuote(rel) + " -o " + shellQuote(strings.TrimSuffix(rel, ".json")+".yaml")
		d.Diagram = s.drawMermaid(lpp.Mermaid(t.bp))
	}
	if d.Errors > 0 || t.tr == nil {
		spec = nil // neither started nor checked
	}
	return d, spec, http.StatusOK
}

// checkBlueprint translates the blueprint at path and finds its problems
// as lppctl validate BLUEPRINT.json does (Options.Check; else with the
// built-in actions only), positioned in the JSON: for its page and its
// badge on the Specs page alike.
func (s *Server) checkBlueprint(path string, src []byte) (translated, *mspec.Spec, mspec.Diagnostics) {
	t := translateBlueprint(path, src, "")
	spec, diags := t.spec, t.diags
	switch {
	case s.opts.Check != nil: // as lppctl validate reads a blueprint
		spec, diags = s.opts.Check(path, src)
	case spec != nil && !diags.HasErrors(): // the built-in actions only
		diags = append(diags, t.tr.Remap(validate.Validate(spec, machine.NewBuiltinRegistry(), validate.WithRoot(s.opts.Root)))...)
		diags.Sort()
	}
	return t, spec, diags
}

// drawMermaid draws Mermaid source that has no Graphviz form (a blueprint):
// by the page with the embedded library, else shown as source with a hint.
func (s *Server) drawMermaid(src string) diagram {
	if s.mermaid {
		return diagram{Mermaid: src}
	}
	return diagram{Source: src, Hint: "This lppctl was built without the Mermaid library (go generate ./ui embeds it; it needs npm), and an L++ blueprint is drawn as Mermaid only: here is its Mermaid source (paste it into any Mermaid viewer)."}
}
