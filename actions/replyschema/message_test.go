package replyschema

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestASchemaMismatchIsReportedInJSONTerms(t *testing.T) {
	judge := map[string]any{"type": "object", "required": []any{"score"}, "properties": map[string]any{
		"score":   map[string]any{"type": "integer"},
		"verdict": map[string]any{"enum": []any{"PASS", "FAIL"}},
		"tags":    map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"note":    map[string]any{"type": []any{"string", "null"}},
		"level":   map[string]any{"type": []any{"integer", "string", "null"}},
		"meta":    map[string]any{"type": "object"},
		"kind":    map[string]any{"const": "judge"},
		"problems": map[string]any{"type": "array", "items": map[string]any{"type": "string",
			"not": map[string]any{"pattern": "^(?i:none)$", "description": "an item says there is no problem; leave the list empty instead"}}},
		"other": map[string]any{"not": map[string]any{"type": "null"}},
	}}
	long := strings.Repeat("é", 150)
	tests := []struct {
		name  string
		reply any
		want  string
	}{
		{"an array for the object", []any{map[string]any{"score": 20.0, "tags": []any{"bad"}, "ok": false}},
			`type: [{"ok":false,"score":20,"tags":["bad"]}] is an array, want an object`},
		{"a string for an integer", map[string]any{"score": "many"},
			`validating /properties/score: type: "many" is a string, want an integer`},
		{"a number for an integer", map[string]any{"score": 2.5},
			`validating /properties/score: type: 2.5 is a number, want an integer`},
		{"an object for a string item", map[string]any{"score": 1.0, "tags": []any{map[string]any{"a": []any{1.0}}}},
			`validating /properties/tags: validating /properties/tags/items: type: {"a":[1]} is an object, want a string`},
		{"an array for one of two types", map[string]any{"score": 1.0, "note": []any{"x", true}},
			`validating /properties/note: type: ["x",true] is an array, want a string or null`},
		{"a boolean for one of three types", map[string]any{"score": 1.0, "level": true},
			`validating /properties/level: type: true is a boolean, want an integer, a string or null`},
		{"null for an object", map[string]any{"score": 1.0, "meta": nil},
			`validating /properties/meta: type: null, want an object`},
		{"a long value is cut", map[string]any{"score": long},
			`validating /properties/score: type: "` + strings.Repeat("é", 99) + `… is a string, want an integer`},
		{"an enum names the value as JSON", map[string]any{"score": 1.0, "verdict": "pass"},
			`validating /properties/verdict: enum: "pass" is not one of ["PASS","FAIL"]`},
		{"a const names the value as JSON", map[string]any{"score": 1.0, "kind": []any{"judge"}},
			`validating /properties/kind: const: ["judge"] is not "judge"`},
		{"a failed not says what its description says", map[string]any{"score": 1.0, "problems": []any{"None"}},
			`validating /properties/problems: validating /properties/problems/items: not: an item says there is no problem; leave the list empty instead`},
		{"a failed not without a description is as the library says", map[string]any{"score": 1.0, "other": nil},
			`validating /properties/other: not: validated against <anonymous schema>`},
	}
	rs, err := Load(judge, t.TempDir(), t.TempDir(), nil)
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := rs.Validate(tt.reply)
			require.Error(t, err)
			require.Equal(t, tt.want, err.Error())
		})
	}
}

func TestValuesShownAsJSONStillValidateAsBefore(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"verdict": map[string]any{"enum": []any{"PASS", "FAIL", map[string]any{"k": []any{"v"}}}},
		"kind":    map[string]any{"const": "judge"},
		"tags":    map[string]any{"type": "array", "uniqueItems": true, "items": map[string]any{"type": "string", "minLength": 2, "pattern": "^[a-z]+$"}},
	}}
	rs, err := Load(schema, t.TempDir(), t.TempDir(), nil)
	require.NoError(t, err)
	require.NoError(t, rs.Validate(map[string]any{"verdict": "PASS", "kind": "judge", "tags": []any{"ab", "cd"}}))
	require.NoError(t, rs.Validate(map[string]any{"verdict": map[string]any{"k": []any{"v"}}}))
	require.EqualError(t, rs.Validate(map[string]any{"tags": []any{"ab", "ab"}}), `validating /properties/tags: uniqueItems: array items 1 and 0 are equal`)
	require.EqualError(t, rs.Validate(map[string]any{"tags": []any{"a"}}), `validating /properties/tags: validating /properties/tags/items: minLength: "a" contains 1 Unicode code points, fewer than 2`)
}
