package ui

import (
	"path/filepath"

	"github.com/lppctl/lppctl/machine/lpp"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// runSpec parses a run's copy of its spec (its spec.yaml) for its page: the
// diagram, the context's defaults, the values the steps fold into. A run
// started from an L++ blueprint (lppctl run BLUEPRINT.json) holds the
// blueprint itself: it is read as run and resume read it, translated with
// the compute mapping beside the blueprint the run started from (origin,
// "" when unknown), a unit the mapping does not place drawn as a no-op. nil
// when the copy cannot be read as either.
func runSpec(path string, src []byte, origin string) *mspec.Spec {
	if !lpp.IsBlueprint(src) {
		spec, _ := mspec.Parse(path, src)
		return spec
	}
	bp, diags := lpp.Parse(path, src)
	if bp == nil || diags.HasErrors() {
		return nil
	}
	m := lpp.DefaultMapping()
	if origin != "" {
		if got, err := lpp.LoadMapping(lpp.MappingPath(origin)); err == nil {
			m = got
		}
	}
	m.Unmapped = true
	tr, err := lpp.Translate(bp, m)
	if err != nil {
		return nil
	}
	spec, _ := tr.Spec()
	return spec
}

// specOrigin is the spec file a run started from, as its run.json names it
// (relative to the run's folder, or absolute); "" when it names none.
func specOrigin(runDir, specAbs string) string {
	if specAbs == "" {
		return ""
	}
	if filepath.IsAbs(specAbs) {
		return specAbs
	}
	return filepath.Join(runDir, specAbs)
}
