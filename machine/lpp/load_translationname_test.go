package lpp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/lpp/mapfile"
	"github.com/lppctl/lppctl/machine/validate"
)

// A blueprint may call a state or a property by a name the translation
// writes itself (lpp_start, lpp_payload, lpp_current_state) or that starts
// with lpp_: it is mapped away from the translation's names, and export
// writes it back.
func TestABlueprintNameTheTranslationWritesIsMappedAwayAndWrittenBack(t *testing.T) {
	src := `{"$schema": "lpp/v0.2.0", "id": "col", "name": "col", "version": "1",
 "context_schema": {"properties": {"lpp_payload": {"type": "string"}, "lpp_current_state": {"type": "string"},
   "lpp_defined_x": {"type": "boolean"}, "lpp_version": {"type": "string"}}},
 "gates": {"g": {"type": "expression", "expression": "x is None and lpp_payload == 'p' and _state == 's0'"}},
 "actions": {"a": {"type": "set", "target": "lpp_payload", "value": "p"},
   "b": {"type": "set", "target": "lpp_current_state", "value_from": "event.payload.k"},
   "c": {"type": "set", "target": "lpp_version", "value_from": "lpp_current_state"}},
 "states": {"s0": {}, "lpp_start": {}},
 "entry_state": "s0",
 "terminal_states": {"done": {}},
 "transitions": [
  {"id": "t0", "from": "s0", "to": "s0", "on_event": "START", "actions": ["a"]},
  {"id": "t1", "from": "s0", "to": "lpp_start", "on_event": "GO", "gates": ["g"], "actions": ["b", "c"]},
  {"id": "t2", "from": "lpp_start", "to": "done", "on_event": "DONE"}
 ]}`
	bp, diags := Parse("col.json", []byte(src))
	require.False(t, diags.HasErrors(), "%v", diags)
	m := mapfile.Default()
	tr, err := Translate(bp, m)
	require.NoError(t, err)
	spec, sd := tr.Spec()
	require.False(t, sd.HasErrors(), "%s\n%s", sd.Errors().PrettyAll(tr.YAML), tr.YAML)
	vd := tr.Remap(validate.Validate(spec, machine.NewBuiltinRegistry()))
	require.False(t, vd.HasErrors(), "%s\n%s", vd.Errors().PrettyAll([]byte(src)), tr.YAML)
	assert.NotNil(t, spec.State("lpp_lpp_start"), "the blueprint's lpp_start")
	assert.NotNil(t, spec.State("lpp_start"), "the translation's start state")

	out, err := FromSpec(spec)
	require.NoError(t, err)
	var back struct {
		Context struct {
			Properties map[string]any `json:"properties"`
		} `json:"context_schema"`
		States map[string]any `json:"states"`
	}
	require.NoError(t, json.Unmarshal(out, &back), "%s", out)
	props := make([]string, 0, len(back.Context.Properties))
	for k := range back.Context.Properties {
		props = append(props, k)
	}
	assert.ElementsMatch(t, []string{"lpp_payload", "lpp_current_state", "lpp_defined_x", "lpp_version"}, props)
	assert.Contains(t, back.States, "lpp_start")
}
