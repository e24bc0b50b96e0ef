package lpp

import (
	"slices"

	"github.com/lppctl/lppctl/machine/lpp/mapfile"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// CheckUnits returns a *mapfile.MissingUnitsError naming every compute unit the
// blueprint runs that m does not map, or nil. A unit runs when a transition
// lpp can take (one not out of a terminal state) names its gate or action;
// lpp never runs the others (a gate only display rules read, an action no
// transition names: 12 of the 44 real blueprints have such units), so a run
// needs no mapping for them.
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
	gates, acts := map[string]bool{}, map[string]bool{}
	for _, t := range bp.Transitions {
		if bp.IsTerminal(t.From) {
			continue
		}
		for _, id := range t.Gates {
			gates[id] = true
		}
		for _, id := range t.Actions {
			acts[id] = true
		}
	}
	for _, g := range bp.Gates {
		if gates[g.ID] {
			add(g.ComputeUnit, g.Pos)
		}
	}
	for _, a := range bp.Actions {
		if acts[a.ID] {
			add(a.ComputeUnit, a.Pos)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	return &mapfile.MissingUnitsError{Units: missing, Mapping: m.File, Pos: first}
}
