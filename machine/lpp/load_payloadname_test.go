package lpp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/lpp/mapfile"
)

// TestAPayloadFieldWhoseNameIsNotAnIdentifierIsRead: lpp reads any key
// of a payload (`event.payload.file-path`, `event.payload['my key']`,
// `event.payload.名`). It was refused where the action or gate read it
// ("whose name is not an identifier: lppctl's event payloads are records
// whose field names are identifiers"); a payload field may now have any
// name, read as event.payload["file-path"] (lpp_payload?.["file-path"] in
// a helper state), and the spec declares it so.
func TestAPayloadFieldWhoseNameIsNotAnIdentifierIsRead(t *testing.T) {
	for _, tt := range []struct {
		name, action, gate string
		want               []string
	}{
		{"value_from", `{"type": "set", "target": "p", "value_from": "event.payload.file-path"}`, "",
			[]string{`set: {p: 'event.payload["file-path"]'}`, `payload: {'file-path': {type: string, required: false, nullable: true}}`}},
		{"non-ASCII", `{"type": "set", "target": "p", "value_from": "event.payload.名"}`, "",
			[]string{`set: {p: 'event.payload["名"]'}`, `payload: {'名': {type: string, required: false, nullable: true}}`}},
		{"input_map", `{"type": "compute", "compute_unit": "a:b", "input_map": {"x": "event.payload.my key"}}`, "",
			[]string{`lpp_payload: '{"my key": event.payload["my key"]}'`, `x: 'lpp_payload?.["my key"]'`}},
		{"a key below it", `{"type": "set", "target": "p", "value_from": "event.payload.a-b.c"}`, "",
			[]string{`set: {p: 'event.payload["a-b"]?.c'}`, `payload: {'a-b': {type: map, required: false, nullable: true}}`}},
		{"gate subscript", `{"type": "set", "target": "p", "value": "v"}`, `event.payload['file-path'] == 'x'`,
			[]string{`when: '(event.payload?.["file-path"] != nil && event.payload?.["file-path"] == "x")'`, `payload: {'file-path': {type: any, required: false, nullable: true}}`}},
		{"gate attribute", `{"type": "set", "target": "p", "value": "v"}`, `event.payload.名 is None`,
			[]string{`when: 'event.payload["名"] == nil'`, `payload: {'名': {type: any, required: false, nullable: true}}`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gates, tgates := `"gates": {}`, ``
			if tt.gate != "" {
				gates, tgates = `"gates": {"g": {"expression": "`+tt.gate+`"}}`, `, "gates": ["g"]`
			}
			src := `{"$schema": "lpp/v0.2.0", "id": "x", "name": "x", "version": "1", "context_schema": {"properties": {"p": {"type": "string"}}},
"states": {"a": {}}, "entry_state": "a", "terminal_states": {"b": {}}, ` + gates + `,
"actions": {"s": ` + tt.action + `},
"transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO"` + tgates + `, "actions": ["s"]}]}`
			bp, diags := Parse("x.json", []byte(src))
			require.False(t, diags.HasErrors(), "%v", diags)
			for _, d := range diags {
				assert.NotContains(t, d.Msg, "payload field", "%v", d)
			}
			tr, err := Translate(bp, &mapfile.Mapping{Units: map[string]mapfile.Unit{"a:b": {Script: "scripts/a.py", Function: "b"}}})
			require.NoError(t, err)
			for _, w := range tt.want {
				assert.Contains(t, string(tr.YAML), w)
			}
			_, sd := tr.Spec()
			require.False(t, sd.HasErrors(), "%v", sd)
		})
	}
}

// TestADottedPathReadsAKeyThatIsNotAnIdentifier: `event.payload.o.file-path`
// (a key of a dict field) and `o.file-path` (of a dict property) were
// translated as `o?.file-path`, a subtraction; now as `o?.["file-path"]`.
func TestADottedPathReadsAKeyThatIsNotAnIdentifier(t *testing.T) {
	src := `{"$schema": "lpp/v0.2.0", "id": "x", "name": "x", "version": "1",
"context_schema": {"properties": {"p": {"type": "string"}, "q": {"type": "string"}, "o": {"type": "object"}}},
"states": {"a": {}}, "entry_state": "a", "terminal_states": {"b": {}},
"actions": {"s": {"type": "set", "target": "p", "value_from": "event.payload.m.file-path"}, "r": {"type": "set", "target": "q", "value_from": "o.my key"}},
"transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO", "actions": ["s", "r"]}]}`
	bp, diags := Parse("x.json", []byte(src))
	require.False(t, diags.HasErrors(), "%v", diags)
	tr, err := Translate(bp, nil)
	require.NoError(t, err)
	assert.Contains(t, string(tr.YAML), `event.payload.m?.["file-path"]`)
	assert.Contains(t, string(tr.YAML), `o?.["my key"]`)
	_, sd := tr.Spec()
	require.False(t, sd.HasErrors(), "%v", sd)
}
