package lpp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAPayloadFieldLppctlCannotNameIsRefusedWhereItIsRead: lpp reads any
// key of a payload (`event.payload.file-path`); lppctl's payloads are
// records whose field names are identifiers. The blueprint was refused by
// the translated spec's validation, at the wrong place (the last line of
// the file: "payload field name "file-path" is not an identifier"), or
// with a compile error of the guard ("type struct {} has no field
// file-path"). Now it is refused where the action or gate reads it, saying
// why and what to rename, and only a warning when nothing runs the action.
func TestAPayloadFieldLppctlCannotNameIsRefusedWhereItIsRead(t *testing.T) {
	const why = `lppctl's event payloads are records whose field names are identifiers, so lppctl cannot read it (lpp reads any key)`
	for _, tt := range []struct {
		name, action, gate string
		used               bool
		want               string
	}{
		{"value_from", `{"type": "set", "target": "p", "value_from": "event.payload.file-path"}`, "", true,
			`x.json:3:63: error: action "s" reads payload field "file-path", whose name is not an identifier: ` + why + `, and transition "t" runs the action; rename the field, in the blueprint and in the events its callers send, to letters, digits and underscores (not starting with a digit), e.g. "file_path"`},
		{"non-ASCII", `{"type": "set", "target": "p", "value_from": "event.payload.名"}`, "", true,
			`x.json:3:63: error: action "s" reads payload field "名", whose name is not an identifier: ` + why + `, and transition "t" runs the action; rename the field, in the blueprint and in the events its callers send, to letters, digits and underscores (not starting with a digit)`},
		{"input_map", `{"type": "compute", "compute_unit": "a:b", "input_map": {"x": "event.payload.my key"}}`, "", true,
			`x.json:3:80: error: action "s" reads payload field "my key", whose name is not an identifier: ` + why + `, and transition "t" runs the action; rename the field, in the blueprint and in the events its callers send, to letters, digits and underscores (not starting with a digit), e.g. "my_key"`},
		{"payload_map", `{"type": "emit", "event": "E", "payload_map": {"x": "event.payload.a-b.c"}}`, "", false,
			`x.json:3:70: warning: action "s" reads payload field "a-b", whose name is not an identifier: ` + why + `; no transition runs the action; rename the field, in the blueprint and in the events its callers send, to letters, digits and underscores (not starting with a digit), e.g. "a_b"`},
		{"gate subscript", `{"type": "set", "target": "p", "value": "v"}`, `event.payload['file-path'] == 'x'`, true,
			`x.json:2:117: error: cannot translate gate "g" (column 15 of its expression): payload field "file-path": its name is not an identifier, and ` + why + `; rename the field, in the blueprint and in the events its callers send, to letters, digits and underscores (not starting with a digit)`},
		{"gate get", `{"type": "set", "target": "p", "value": "v"}`, `event.payload.get('file-path') is None`, true,
			`x.json:2:121: error: cannot translate gate "g" (column 19 of its expression): payload field "file-path": its name is not an identifier, and ` + why + `; rename the field, in the blueprint and in the events its callers send, to letters, digits and underscores (not starting with a digit)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gates, tgates := `"gates": {}`, ``
			if tt.gate != "" {
				gates, tgates = `"gates": {"g": {"expression": "`+tt.gate+`"}}`, `, "gates": ["g"]`
			}
			acts := `, "actions": ["s"]`
			if !tt.used {
				acts = ""
			}
			src := `{"$schema": "lpp/v0.2.0", "id": "x", "name": "x", "version": "1", "context_schema": {"properties": {"p": {"type": "string"}}},
"states": {"a": {}}, "entry_state": "a", "terminal_states": {"b": {}}, ` + gates + `,
"actions": {"s": ` + tt.action + `},
"transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO"` + tgates + acts + `}]}`
			_, diags := Parse("x.json", []byte(src))
			var got []string
			for _, d := range diags {
				if strings.Contains(d.Msg, "payload field") {
					got = append(got, d.String())
				}
			}
			require.Len(t, got, 1, "%v", diags)
			assert.Equal(t, tt.want, got[0])
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
