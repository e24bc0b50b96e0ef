package lpp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnActionReadsTheEventsNameAndTheEventItself: lpp's scope holds
// event = {name, payload}, so value_from "event.name" and "event" read
// them. A set after an earlier action (a helper state, where the event is
// gone) was refused ("set s: unknown name event"), and "event" leaked a Go
// type ("expected map, but got struct { Name string ..."). An event the
// import renames (GO-ON: GO_ON) keeps the blueprint's spelling.
func TestAnActionReadsTheEventsNameAndTheEventItself(t *testing.T) {
	src := bpJSON(`"context_schema": {"properties": {"s": {"type": "string"}, "i": {"type": "integer"}, "e": {"type": "object"}}}`,
		`"actions": {"one": {"type": "set", "target": "i", "value": 1},
		  "again": {"type": "set", "target": "i", "value_from": "i"},
		  "name": {"type": "set", "target": "s", "value_from": "event.name"},
		  "whole": {"type": "set", "target": "e", "value_from": "event"},
		  "odd": {"type": "set", "target": "s", "value_from": "event.other"}}`,
		`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {"b": {}}`,
		`"transitions": [{"id": "t4", "from": "a", "to": "b", "on_event": "NAMED", "actions": ["name"]},
		  {"id": "t1", "from": "a", "to": "b", "on_event": "GO-ON", "actions": ["name", "whole"]},
		  {"id": "t2", "from": "a", "to": "b", "on_event": "LATER", "actions": ["one", "again", "name"]},
		  {"id": "t3", "from": "a", "to": "b", "on_event": "ODD", "actions": ["odd"]}]`)
	bp, diags := Parse("x.json", []byte(src))
	require.False(t, diags.HasErrors(), "%v", diags.Errors().Err())
	tr, err := Translate(bp, nil)
	require.NoError(t, err)
	for _, want := range []string{
		`- {to: b, set: {s: '"GO-ON"', e: '{"name": "GO-ON", "payload": {}}'}, note: 't1'}`,
		`- {to: b, set: {s: 'event.name'}, note: 't4'}`,
		`set: {i: 'i', s: '"LATER"'}`,
		`- {to: b, set: {s: 'nil'}, note: 't3'}`,
	} {
		assert.Contains(t, string(tr.YAML), want)
	}
	spec, sd := tr.Spec()
	require.False(t, sd.HasErrors(), "%v", sd.Errors().Err())
	back, err := FromSpec(spec)
	require.NoError(t, err)
	var doc struct {
		Actions map[string]map[string]any `json:"actions"`
	}
	require.NoError(t, json.Unmarshal(back, &doc))
	assert.Equal(t, map[string]any{"type": "set", "target": "s", "value_from": "event.name"}, doc.Actions["name"])
	assert.Equal(t, map[string]any{"type": "set", "target": "e", "value_from": "event"}, doc.Actions["whole"])
}

// TestAGateReadsTheEventsNameAsTheBlueprintSpellsIt: the import renames
// an event that is not an identifier (GO-ON is GO_ON in the spec), so a
// gate event.name == 'GO-ON' compared the spec's name and was false where
// lpp's is true; it is the blueprint's name now, and written back as it was.
func TestAGateReadsTheEventsNameAsTheBlueprintSpellsIt(t *testing.T) {
	src := bpJSON(`"gates": {"g": {"type": "expression", "expression": "event.name == 'GO-ON'"}}`,
		`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {"yes": {}, "no": {}}`,
		`"transitions": [{"id": "t1", "from": "a", "to": "yes", "on_event": "GO-ON", "gates": ["g"]},
		  {"id": "t2", "from": "a", "to": "no", "on_event": "GO-ON"}]`)
	bp, diags := Parse("x.json", []byte(src))
	require.False(t, diags.HasErrors(), "%v", diags.Errors().Err())
	tr, err := Translate(bp, nil)
	require.NoError(t, err)
	assert.Contains(t, string(tr.YAML), `- {to: 'yes', when: '"GO-ON" == "GO-ON"', note: 't1'}`)
	spec, sd := tr.Spec()
	require.False(t, sd.HasErrors(), "%v", sd.Errors().Err())
	back, err := FromSpec(spec)
	require.NoError(t, err)
	var doc struct {
		Gates map[string]map[string]string `json:"gates"`
	}
	require.NoError(t, json.Unmarshal(back, &doc))
	assert.Equal(t, "event.name == 'GO-ON'", doc.Gates["g"]["expression"])
}
