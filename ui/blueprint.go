package ui

import (
	"net/http"
	"strings"

	"github.com/lppctl/lppctl/machine/lpp"
)

// blueprintPage shows an L++ blueprint (rel under the root, at path): its
// validity, the problems lppctl import finds, positioned in the JSON, its
// drawing (lpp.Mermaid, as lppctl export draws it) and its source.
func (s *Server) blueprintPage(w http.ResponseWriter, rel, path string, src []byte) {
	if !lpp.IsLPP(src) {
		s.failf(w, http.StatusBadRequest, "cannot show %q: it is not an L++ blueprint (its \"$schema\" does not name lpp/v0.1.x or lpp/v0.2.0)", rel)
		return
	}
	bp, diags := lpp.Parse(path, src)
	d := specData{page: page{Title: "Blueprint " + rel, Nav: "specs"}, Path: rel, Blueprint: true}
	d.setDiags(diags, src)
	d.Source = sourceLines(src, diags)
	if bp != nil {
		d.Description = bp.Description
	}
	if diags.HasErrors() || bp == nil {
		d.Diagram = diagram{Error: "the blueprint cannot be drawn until its errors are fixed"}
	} else {
		d.Import = "lppctl import lpp " + rel + " -o " + strings.TrimSuffix(rel, ".json") + ".yaml"
		d.Diagram = s.drawMermaid(lpp.Mermaid(bp))
	}
	s.render(w, http.StatusOK, "spec.html", d)
}

// drawMermaid draws Mermaid source that has no Graphviz form (a blueprint):
// by the page with the embedded library, else shown as source with a hint.
func (s *Server) drawMermaid(src string) diagram {
	if s.mermaid {
		return diagram{Mermaid: src}
	}
	return diagram{Source: src, Hint: "This lppctl was built without the Mermaid library (go generate ./ui embeds it; it needs npm), and an L++ blueprint is drawn as Mermaid only: here is its Mermaid source (paste it into any Mermaid viewer)."}
}
