package lpp

import (
	"slices"

	"github.com/lppctl/lppctl/machine/lpp/mapfile"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// CheckUnits returns a *mapfile.MissingUnitsError naming every compute unit the
// blueprint uses (gates and actions) that m does not map, or nil.
func CheckUnits(bp *Blueprint, m *mapfile.Mapping) error {
	var missing []string
	var first mspec.Pos
	add := func(u string, at mspec.Pos) {
		if _, ok := m.Units[u]; ok || u == "" {
			return
		}
		if first.Line == 0 || at.Line < first.Line || at.Line == first.Line && at.Col < first.Col {
			first = at
		}
		if !slices.Contains(missing, u) {
			missing = append(missing, u)
		}
	}
	for _, g := range bp.Gates {
		add(g.ComputeUnit, g.Pos)
	}
	for _, a := range bp.Actions {
		add(a.ComputeUnit, a.Pos)
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	return &mapfile.MissingUnitsError{Units: missing, Mapping: m.File, Pos: first}
}
