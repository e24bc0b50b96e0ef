package lpp

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/lpp/mapfile"
)

// lpp runs a compute unit only for a transition that names its gate or
// action; a run needs a mapping for those units only.
func TestAUnitNoTransitionRunsNeedsNoMappingToRun(t *testing.T) {
	src := `{"$schema": "lpp/v0.2.0", "id": "u", "name": "u", "version": "1",
 "context_schema": {"properties": {"r": {"type": "string"}}},
 "gates": {
  "shown": {"type": "compute", "compute_unit": "ui:has", "input_map": {"field": "'r'"}},
  "used": {"type": "compute", "compute_unit": "risk:check"}},
 "actions": {
  "spare": {"type": "compute", "compute_unit": "spare:calc", "output_map": {"r": "r"}},
  "late": {"type": "compute", "compute_unit": "late:calc", "output_map": {"r": "r"}},
  "go": {"type": "compute", "compute_unit": "risk:score", "output_map": {"r": "r"}}},
 "states": {"a": {}},
 "entry_state": "a",
 "terminal_states": {"b": {}},
 "transitions": [
  {"id": "t", "from": "a", "to": "b", "on_event": "GO", "gates": ["used"], "actions": ["go"]},
  {"id": "back", "from": "b", "to": "a", "on_event": "RESET", "actions": ["late"]}
 ]}`
	bp, diags := Parse("u.json", []byte(src))
	require.False(t, diags.HasErrors(), "%v", diags)
	err := CheckUnits(bp, mapfile.Default())
	var mu *mapfile.MissingUnitsError
	require.True(t, errors.As(err, &mu), "%v", err)
	assert.Equal(t, []string{"risk:check", "risk:score"}, mu.Units)

	m := mapfile.Default()
	m.Units["risk:check"] = mapfile.Unit{Script: "scripts/risk.py", Function: "check"}
	m.Units["risk:score"] = mapfile.Unit{Script: "scripts/risk.py", Function: "score"}
	require.NoError(t, CheckUnits(bp, m))
	_, err = Translate(bp, m)
	require.NoError(t, err)
}
