package lpp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/lpp/mapfile"
)

// A compute action whose unit has no mapping is a no-op of the spec; the
// metadata line keeps it, so export writes it back as the blueprint wrote
// it (it was left out, and export of a blueprint without its mapping was
// refused).
func TestAnActionWithoutAMappingIsWrittenBack(t *testing.T) {
	src := `{"$schema": "lpp/v0.2.0", "id": "u", "name": "u", "version": "1",
 "context_schema": {"properties": {"naïve": {"type": "string"}, "o": {"type": "object"}, "event": {"type": "string"}}},
 "actions": {
  "load": {"type": "compute", "compute_unit": "impl:json.load",
   "input_map": {"path": "event.payload.path", "who": "naïve", "from": "_state", "side": "'left'", "n": 2, "ev": "event"},
   "output_map": {"o.data": "data", "naïve": "name", "event": "e"}},
  "first": {"type": "set", "target": "naïve", "value": "x"}},
 "states": {"a": {}},
 "entry_state": "a",
 "terminal_states": {"b": {}},
 "transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO", "actions": ["first", "load"]}]}`
	bp, diags := Parse("u.json", []byte(src))
	require.False(t, diags.HasErrors(), "%v", diags)
	m := mapfile.Default()
	m.Unmapped = true
	tr, err := Translate(bp, m)
	require.NoError(t, err)
	spec, sd := tr.Spec()
	require.False(t, sd.HasErrors(), "%s", sd.Errors().PrettyAll(tr.YAML))
	out, err := FromSpec(spec)
	require.NoError(t, err)
	var back struct {
		Actions     map[string]json.RawMessage `json:"actions"`
		Transitions []struct {
			Actions []string `json:"actions"`
		} `json:"transitions"`
	}
	require.NoError(t, json.Unmarshal(out, &back), "%s", out)
	require.Len(t, back.Transitions, 1)
	assert.Equal(t, []string{"first", "load"}, back.Transitions[0].Actions)
	assert.JSONEq(t, `{"type": "compute", "compute_unit": "impl:json.load",
   "input_map": {"path": "event.payload.path", "who": "naïve", "from": "_state", "side": "'left'", "n": 2, "ev": "event"},
   "output_map": {"o.data": "data", "naïve": "name", "event": "e"}}`, string(back.Actions["load"]))
}
