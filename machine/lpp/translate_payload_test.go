package lpp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPayloadReadsTranslateByWhatTheyRead: a payload field read below
// (.k, [i]) is a map or a list, [i] is None out of range, the payload as a
// whole is the map of the event's fields (a guard leaves out those the
// event does not carry, so {} is false), dotted targets and paths write and
// read into maps; written back, each is the blueprint's own text. The
// field used to be a string, `not event.payload` took len() of a record,
// and `set o.k` built a map expr's fromPairs makes, which no variable
// stores.
func TestPayloadReadsTranslateByWhatTheyRead(t *testing.T) {
	src := bpJSON(`"context_schema": {"properties": {"o": {"type": "object"}, "v": {"type": "number"}}}`,
		`"gates": {"empty": {"type": "expression", "expression": "not event.payload"},
		  "first": {"type": "expression", "expression": "event.payload.items[0] == 'a'"},
		  "nested": {"type": "expression", "expression": "event.payload.m.k == 1"}}`,
		`"actions": {"keep": {"type": "set", "target": "o", "value_from": "event.payload"},
		  "deep": {"type": "set", "target": "v", "value_from": "event.payload.m.k"},
		  "put": {"type": "set", "target": "o.a.b", "value": 3}}`,
		`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {"b": {}}`,
		`"transitions": [{"id": "t1", "from": "a", "to": "b", "on_event": "GO", "gates": ["empty"]},
		  {"id": "t2", "from": "a", "to": "b", "on_event": "GO", "gates": ["first", "nested"], "actions": ["keep", "deep"]},
		  {"id": "t3", "from": "a", "to": "b", "on_event": "GO", "actions": ["put"]}]`)
	bp, diags := Parse("x.json", []byte(src))
	require.False(t, diags.HasErrors(), "%v", diags.Errors().Err())
	tr, err := Translate(bp, nil)
	require.NoError(t, err)
	for _, want := range []string{
		`- {to: b, when: '!(len(fromPairs(filter([["items", event.payload.items], ["m", event.payload.m]], #[1] != nil)) ?? {}) > 0)', note: 't1'}`,
		`- {to: b, when: '((get(event.payload.items, 0) != nil && get(event.payload.items, 0) == "a")) && py_eq(event.payload.m?.k, 1)', set: {o: '{"items": event.payload.items, "m": event.payload.m}', v: 'event.payload.m?.k'}, note: 't2'}`,
		`- {to: b, set: {o: 'merge(o ?? {}, {"a": merge((o)?.["a"] ?? {}, {"b": 3})})'}, note: 't3'}`,
		`payload: {items: {type: list, required: false, nullable: true}, m: {type: map, required: false, nullable: true}}`,
	} {
		assert.Contains(t, string(tr.YAML), want)
	}
	spec, sd := tr.Spec()
	require.False(t, sd.HasErrors(), "%v", sd.Errors().Err())
	back, err := FromSpec(spec)
	require.NoError(t, err)
	var doc struct {
		Gates   map[string]map[string]string `json:"gates"`
		Actions map[string]map[string]any    `json:"actions"`
	}
	require.NoError(t, json.Unmarshal(back, &doc))
	assert.Equal(t, "not event.payload", doc.Gates["empty"]["expression"])
	assert.Equal(t, "event.payload.items[0] == 'a'", doc.Gates["first"]["expression"])
	assert.Equal(t, "event.payload.m.k == 1", doc.Gates["nested"]["expression"])
	assert.Equal(t, map[string]any{"type": "set", "target": "o", "value_from": "event.payload"}, doc.Actions["keep"])
	assert.Equal(t, map[string]any{"type": "set", "target": "v", "value_from": "event.payload.m.k"}, doc.Actions["deep"])
	assert.Equal(t, map[string]any{"type": "set", "target": "o.a.b", "value": float64(3)}, doc.Actions["put"])
}

// TestWholePayloadIsReplacedOnlyWhereItIsReadWhole: event.payload.NAME,
// a string literal that spells it, and longer names stay as they are.
func TestWholePayloadIsReplacedOnlyWhereItIsReadWhole(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`len(event.payload ?? {}) > 0`, `len(P ?? {}) > 0`},
		{`event.payload.x == "event.payload" && "k" in event.payload`, `event.payload.x == "event.payload" && "k" in P`},
		{`event.payload?.x == 'event.payload\'' || event.payloads == 1 || my_event.payload == 1`, `event.payload?.x == 'event.payload\'' || event.payloads == 1 || my_event.payload == 1`},
		{`event.payload["k"] != nil`, `event.payload["k"] != nil`},
	} {
		got, _ := replaceWholePayload(c.in, "P")
		assert.Equal(t, c.want, got, c.in)
	}
	assert.Equal(t, `get(event.payload.l, x[1]) == "]" && lpp_payload?.m`, getPayloadIndex(`event.payload.l?.[x[1]] == "]" && lpp_payload?.m`))
	assert.Equal(t, `get(lpp_payload?.l, 0) != nil`, getPayloadIndex(`lpp_payload?.l?.[0] != nil`))
}
