package ui

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/lppctl/lppctl/machine/lpp"
	"github.com/lppctl/lppctl/machine/lpp/mapfile"
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
	t := translateBlueprint(path, src, origin)
	if t.diags.HasErrors() {
		return nil
	}
	return t.spec
}

// translated is a blueprint read as validate and check read it.
type translated struct {
	bp    *lpp.Blueprint   // nil when it does not parse
	tr    *lpp.Translation // nil when it cannot be translated
	spec  *mspec.Spec      // the spec it translates into (nil: see diags)
	diags mspec.Diagnostics
}

// translateBlueprint reads the blueprint src (at path) as lppctl validate
// and check do: translated with the compute mapping beside mappingFor (path
// when ""), or the default one when that cannot be read; a compute unit
// the mapping does not place is a warning and a no-op of the translation
// (a run needs it: lppctl run refuses such a blueprint and says which).
// Every diagnostic is in the JSON.
func translateBlueprint(path string, src []byte, mappingFor string) translated {
	bp, diags := lpp.Parse(path, src)
	t := translated{bp: bp, diags: diags}
	if bp == nil || diags.HasErrors() {
		return t
	}
	t.diags = append(mspec.Diagnostics(nil), bp.Warnings...)
	if mappingFor == "" {
		mappingFor = path
	}
	m, err := mapfile.Load(mapfile.Path(mappingFor))
	if err != nil {
		m = mapfile.Default()
	}
	var mu *mapfile.MissingUnitsError
	if err := lpp.CheckUnits(bp, m); errors.As(err, &mu) {
		t.diags = append(t.diags, mspec.Diagnostic{Severity: mspec.SevWarning, File: path, Pos: mu.Pos,
			Msg: mu.Error(), Hint: "needed only to run: validate and check read each such unit as a no-op"})
	}
	m.Unmapped = true
	tr, err := lpp.Translate(bp, m)
	if err != nil {
		t.diags = append(t.diags, mspec.Diagnostic{Severity: mspec.SevError, File: path, Msg: fmt.Sprintf("cannot translate %s: %v", filepath.Base(path), err)})
		return t
	}
	t.tr = tr
	t.diags = append(t.diags, tr.Warnings...)
	spec, sd := tr.Spec()
	t.spec = spec
	t.diags = append(t.diags, tr.Remap(sd)...)
	return t
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
