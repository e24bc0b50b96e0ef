package lpp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TestAPropertyTypeLppDoesNotCheckIsReadWithAWarning: lpp's loader reads no
// property type (its compiler starts every property None), so a property
// without a type, with a Python or JSON Schema spelling of one, or with a
// type nothing names was refused ("type of property "n" must be one of
// string, …") though lpp reads and runs the blueprint. Now an evident
// spelling is its L++ type, any other is typed from the property's use
// (a gate, a set) or default, each with a warning, and export writes the
// type back as the blueprint wrote it.
func TestAPropertyTypeLppDoesNotCheckIsReadWithAWarning(t *testing.T) {
	for _, tt := range []struct {
		name, prop string // the property n as written
		gate       string // the gate that reads n
		want       mspec.Type
		warning    string
	}{
		{"python int", `{"type": "int"}`, "n > 1", mspec.TypeInt,
			`t.json:1:115: property "n" has the type "int", which is not an L++ type: lppctl reads it as integer (lpp reads no property type, and every lppctl property is nullable) = write "type": "integer"`},
		{"python dict", `{"type": "dict"}`, "n.k == 1", mspec.TypeMap,
			`t.json:1:115: property "n" has the type "dict", which is not an L++ type: lppctl reads it as object (lpp reads no property type, and every lppctl property is nullable) = write "type": "object"`},
		{"capitalised", `{"type": "Number"}`, "n > 1", mspec.TypeFloat,
			`t.json:1:115: property "n" has the type "Number", which is not an L++ type: lppctl reads it as number (lpp reads no property type, and every lppctl property is nullable) = write "type": "number"`},
		{"json schema nullable", `{"type": ["number", "null"]}`, "n > 1", mspec.TypeFloat,
			`t.json:1:115: property "n" has the type ["number","null"], which is not an L++ type: lppctl reads it as number (lpp reads no property type, and every lppctl property is nullable) = write "type": "number"`},
		{"no type, a comparison tells", `{"description": "how many"}`, "n > 1", mspec.TypeFloat,
			`t.json:1:101: property "n" has no type, which lpp does not check (its loader reads no property type): lppctl types it number from its use, nullable = write "type": "number", or the type it holds (one of string, number, integer, boolean, array, object)`},
		{"any, a set tells", `{"type": "any"}`, "n is None", mspec.TypeBool,
			`t.json:1:115: property "n" has the type "any", which lpp does not check (its loader reads no property type): lppctl types it boolean from its use, nullable = write "type": "boolean", or the type it holds (one of string, number, integer, boolean, array, object)`},
		{"a union, the default tells", `{"type": ["string", "array"], "default": []}`, "n is None", mspec.TypeList,
			`t.json:1:115: property "n" has the type ["string","array"], which lpp does not check (its loader reads no property type): lppctl types it array from its default, nullable = write "type": "array", or the type it holds (one of string, number, integer, boolean, array, object)`},
		{"null, nothing tells", `{"type": "null"}`, "n is None", mspec.TypeString,
			`t.json:1:115: property "n" has the type "null", which lpp does not check (its loader reads no property type): lppctl types it string (nothing tells its type), nullable = write "type": "string", or the type it holds (one of string, number, integer, boolean, array, object)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			set := `{"target": "k", "value": "x"}`
			if tt.name == "any, a set tells" {
				set = `{"target": "n", "value": true}`
			}
			src := `{"$schema": "lpp/v0.2.0", "id": "p", "name": "p", "version": "1", "context_schema": {"properties": {"n": ` + tt.prop + `, "k": {"type": "string"}}},
"states": {"a": {}}, "entry_state": "a", "terminal_states": {"b": {}, "c": {}},
"gates": {"g": {"expression": "` + tt.gate + `"}}, "actions": {"s": ` + set + `},
"transitions": [{"id": "t1", "from": "a", "to": "b", "on_event": "GO", "gates": ["g"], "actions": ["s"]}, {"id": "t2", "from": "a", "to": "c", "on_event": "GO"}]}`
			bp, diags := Parse("t.json", []byte(src))
			require.False(t, diags.HasErrors(), "%v", diags)
			require.Len(t, diags, 1)
			assert.Equal(t, tt.warning, diags[0].Where()+": "+diags[0].Msg+" = "+diags[0].Hint)
			out, err := ToSpecYAML(bp, nil)
			require.NoError(t, err)
			spec, sd := mspec.Parse("t.yaml", out)
			require.False(t, sd.HasErrors(), "%v", sd)
			require.Equal(t, "n", spec.Context[0].Name, "the property keeps its place")
			assert.Equal(t, tt.want, spec.Context[0].Type)
			assert.True(t, spec.Context[0].Nullable)

			back, err := FromSpec(spec)
			require.NoError(t, err)
			var doc struct {
				Context struct {
					Properties map[string]json.RawMessage `json:"properties"`
				} `json:"context_schema"`
			}
			require.NoError(t, json.Unmarshal(back, &doc))
			var wrote, orig map[string]any
			require.NoError(t, json.Unmarshal(doc.Context.Properties["n"], &wrote))
			require.NoError(t, json.Unmarshal([]byte(tt.prop), &orig))
			assert.Equal(t, orig["type"], wrote["type"], "export writes the type as the blueprint wrote it")
		})
	}
}
