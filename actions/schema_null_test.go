package actions

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// TestAFieldTheInlineSchemaKeepsFromNullIsWrittenNeverNull: llm.generate's
// map writes a variable whose field an inline schema types without "null"
// (or gives an enum or const without null, or an anyOf or oneOf whose every
// schema does, or an allOf one of whose schemas does) as NotNull, so lppctl check gives
// it no null outcome; a field that may be null, one the schema does not
// describe, and a schema file stay nullable.
func TestAFieldTheInlineSchemaKeepsFromNullIsWrittenNeverNull(t *testing.T) {
	reg := machine.NewRegistry()
	require.NoError(t, Register(reg, &Deps{}))
	gen := reg.Lookup("llm.generate")
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"score":  map[string]any{"type": "integer"},
		"label":  map[string]any{"type": []any{"string", "null"}},
		"kind":   map[string]any{"enum": []any{"a", "b"}},
		"maybe":  map[string]any{"enum": []any{"a", nil}},
		"fixed":  map[string]any{"const": "x"},
		"open":   map[string]any{"description": "no type"},
		"a/b":    map[string]any{"type": "string"},
		"nested": map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "number"}}},
		"list":   map[string]any{"type": "array", "items": map[string]any{"type": "boolean"}},
		"either": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}},
		"orNull": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "null"}}},
		"one":    map[string]any{"oneOf": []any{map[string]any{"enum": []any{"a"}}, map[string]any{"const": 1}}},
		"both":   map[string]any{"allOf": []any{map[string]any{"description": "x"}, map[string]any{"type": "string"}}},
		"ref":    map[string]any{"anyOf": []any{map[string]any{"$ref": "#/$defs/x"}, map[string]any{"type": "string"}}},
	}}
	mapping := map[string]any{"score": "/score", "label": "/label", "kind": "/kind", "maybe": "/maybe", "fixed": "/fixed",
		"open": "/open", "slash": "/a~1b", "n": "/nested/n", "first": "/list/0", "missing": "/missing",
		"either": "/either", "orNull": "/orNull", "one": "/one", "both": "/both", "ref": "/ref"}
	notNull := func(params map[string]any) map[string]bool {
		out := map[string]bool{}
		for _, w := range gen.WritesFor(params) {
			out[w.Name] = w.NotNull
		}
		return out
	}
	require.Equal(t, map[string]bool{"score": true, "label": false, "kind": true, "maybe": false, "fixed": true,
		"open": false, "slash": true, "n": true, "first": true, "missing": false,
		"either": true, "orNull": false, "one": true, "both": true, "ref": false},
		notNull(map[string]any{"prompt": "p.md", "schema": schema, "map": mapping}))
	require.Equal(t, map[string]bool{"score": false}, notNull(map[string]any{"prompt": "p.md", "schema": "reply.json", "map": map[string]any{"score": "/score"}}))
}
