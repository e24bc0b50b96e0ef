package actions

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// TestARequiredEnumFieldOfTheInlineSchemaDeclaresItsValues: llm.generate's
// map declares the values of a variable whose field the inline schema
// requires (at every level of its pointer) and gives an enum or a const
// without null, so that lppctl check gives it those values only (a reply
// outside them is asked again, then fails the action). A field that may be
// left out keeps its variable's value, so it declares nothing; nor does an
// array item, an enum with null, or a schema in a file.
func TestARequiredEnumFieldOfTheInlineSchemaDeclaresItsValues(t *testing.T) {
	reg := machine.NewRegistry()
	require.NoError(t, Register(reg, &Deps{}))
	gen := reg.Lookup("llm.generate")
	schema := map[string]any{"type": "object", "required": []any{"verdict", "optional", "fixed", "nested", "maybe", "list", "plain"},
		"properties": map[string]any{
			"verdict":  map[string]any{"type": "string", "enum": []any{"PASS", "FAIL"}},
			"optional": map[string]any{"type": "object", "properties": map[string]any{"k": map[string]any{"enum": []any{"a"}}}},
			"other":    map[string]any{"enum": []any{"x", "y"}},
			"fixed":    map[string]any{"const": 3},
			"nested": map[string]any{"type": "object", "required": []any{"level"},
				"properties": map[string]any{"level": map[string]any{"enum": []any{1, 2}}}},
			"maybe": map[string]any{"enum": []any{"a", nil}},
			"list":  map[string]any{"type": "array", "items": map[string]any{"enum": []any{"a"}}},
			"plain": map[string]any{"type": "string"},
		}}
	mapping := map[string]any{"verdict": "/verdict", "k": "/optional/k", "other": "/other", "fixed": "/fixed",
		"level": "/nested/level", "maybe": "/maybe", "first": "/list/0", "plain": "/plain"}
	values := func(params map[string]any) map[string][]any {
		out := map[string][]any{}
		for _, w := range gen.WritesFor(params) {
			out[w.Name] = w.Values
		}
		return out
	}
	require.Equal(t, map[string][]any{"verdict": {"PASS", "FAIL"}, "k": nil, "other": nil, "fixed": {3},
		"level": {1, 2}, "maybe": nil, "first": nil, "plain": nil},
		values(map[string]any{"prompt": "p.md", "schema": schema, "map": mapping}))
	require.Equal(t, map[string][]any{"verdict": nil}, values(map[string]any{"prompt": "p.md", "schema": "reply.json", "map": map[string]any{"verdict": "/verdict"}}))
}
