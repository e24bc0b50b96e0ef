package lpp

import (
	"encoding/json"
	"testing"

	"github.com/expr-lang/expr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mspec "github.com/lppctl/lppctl/machine/spec"
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

// TestACopyOfANumberOrABoolThatIsNoneStoresNone: value_from a number,
// integer or boolean property that is still None failed the run
// ("set m: invalid operation: float(<nil>)") or stored false; it stores
// None, as lpp does, and is written back as the blueprint's value_from. A
// copy into a property of the same type is written as it is (a set of a
// nullable variable stores null); one into a property of another type (a
// number into an integer) reads first([n]), which the set checks when the
// run stores it.
func TestACopyOfANumberOrABoolThatIsNoneStoresNone(t *testing.T) {
	src := bpJSON(`"context_schema": {"properties": {"n": {"type": "number"}, "m": {"type": "number"}, "f": {"type": "boolean"}, "g": {"type": "boolean"}, "i": {"type": "integer"}, "j": {"type": "integer"}, "s": {"type": "string"}, "t": {"type": "string"}, "k": {"type": "integer"}}}`,
		`"actions": {"cn": {"target": "m", "value_from": "n"}, "cf": {"target": "g", "value_from": "f"}, "ci": {"target": "j", "value_from": "i"}, "cs": {"target": "t", "value_from": "s"}, "ck": {"target": "k", "value_from": "n"}}`,
		`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {"b": {}}`,
		`"transitions": [{"id": "t1", "from": "a", "to": "b", "on_event": "GO", "actions": ["cn", "cf", "ci", "cs", "ck"]}]`)
	bp, diags := Parse("x.json", []byte(src))
	require.False(t, diags.HasErrors(), "%v", diags.Errors().Err())
	tr, err := Translate(bp, nil)
	require.NoError(t, err)
	assert.Contains(t, string(tr.YAML), `- {to: b, set: {m: 'n', g: 'f', j: 'i', t: 's', k: 'first([n])'}, note: 't1'}`)
	spec, sd := tr.Spec()
	require.False(t, sd.HasErrors(), "%v", sd.Errors().Err())
	env := mspec.TypeEnv(spec)
	vals := map[string]any{"n": nil, "f": nil, "i": nil, "s": nil, "m": 1.0, "g": true, "j": 2, "t": "x", "k": 3}
	for _, a := range spec.State("a").On[0].Transitions[0].Set {
		p, err := mspec.CompileVarValue(a.Expr, spec.Var(a.Var), env)
		require.NoError(t, err, a.Var)
		got, err := expr.Run(p, vals)
		require.NoError(t, err, a.Var)
		assert.Nil(t, got, a.Var)
	}
	back, err := FromSpec(spec)
	require.NoError(t, err)
	var doc struct {
		Actions map[string]map[string]any `json:"actions"`
	}
	require.NoError(t, json.Unmarshal(back, &doc))
	assert.Equal(t, map[string]any{"type": "set", "target": "m", "value_from": "n"}, doc.Actions["cn"])
	assert.Equal(t, map[string]any{"type": "set", "target": "g", "value_from": "f"}, doc.Actions["cf"])
	assert.Equal(t, map[string]any{"type": "set", "target": "k", "value_from": "n"}, doc.Actions["ck"])
}
