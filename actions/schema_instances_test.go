package actions

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// TestTheOutputOfAReplyWithAnInlineSchemaIsJSONTheSchemaAccepts: with an
// inline schema, llm.generate's output holds the JSON the reply carries,
// valid against it, never other text; it declares valid replies as the
// output's values (a first one from the required fields, then one per value
// of each field with few), so that lppctl check no longer gives the output
// "" and reports `fromJSON(reply).ok` as failing on it. Without a schema,
// or with a schema in a file, it declares nothing.
func TestTheOutputOfAReplyWithAnInlineSchemaIsJSONTheSchemaAccepts(t *testing.T) {
	reg := machine.NewRegistry()
	require.NoError(t, Register(reg, &Deps{}))
	gen := reg.Lookup("llm.generate")
	outputValues := func(params map[string]any) []any {
		for _, w := range gen.WritesFor(params) {
			if w.Name == "reply" {
				return w.Values
			}
		}
		t.Fatal("no write of reply")
		return nil
	}
	schema := map[string]any{"type": "object", "required": []any{"ok", "label"},
		"properties": map[string]any{
			"ok":    map[string]any{"type": "boolean"},
			"label": map[string]any{"type": "string", "enum": []any{"a", "b"}},
			"score": map[string]any{"type": "integer", "minimum": 0},
			"note":  map[string]any{"type": "string"},
		}}
	require.Equal(t, []any{
		`{"label":"a","ok":false}`,
		`{"label":"b","ok":false}`,
		`{"label":"a","ok":true}`,
		`{"label":"a","ok":false,"score":0}`,
		`{"label":"a","ok":false,"score":1}`,
	}, outputValues(map[string]any{"prompt": "p.md", "output": "reply", "schema": schema}))
	require.Equal(t, []any{`{"n":3}`}, outputValues(map[string]any{"prompt": "p.md", "output": "reply",
		"schema": map[string]any{"type": "object", "required": []any{"n"}, "properties": map[string]any{"n": map[string]any{"const": 3}}}}))
	require.Nil(t, outputValues(map[string]any{"prompt": "p.md", "output": "reply"}))
	require.Nil(t, outputValues(map[string]any{"prompt": "p.md", "output": "reply", "schema": "reply.json"}))
	require.Nil(t, outputValues(map[string]any{"prompt": "p.md", "output": "reply", "schema": map[string]any{"type": "object", "required": []any{"x"}}}))
}
