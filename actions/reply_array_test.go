package actions

import (
	"github.com/lppctl/lppctl/actions/replyschema"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A reply to a schema that takes an array may hold the array in prose, as
// a reply to an object schema holds its object: it is found there (such a
// reply was re-asked to answer with one JSON object, which no array schema
// takes, until the repairs ran out).
func TestAnArrayInProseIsTakenForAnArraySchema(t *testing.T) {
	schema, err := replyschema.Load(map[string]any{"type": "array", "items": map[string]any{"type": "string"}}, "", "", nil)
	require.NoError(t, err)
	for _, tt := range []struct {
		name, reply, want, err string
	}{
		{name: "after a sentence", reply: "Here are the items:\n[\"a\", \"b\"]", want: `["a", "b"]`},
		{name: "before a sentence with braces", reply: "[\"a\", \"b\"]\n\nThese are the items {a} and {b}.", want: `["a", "b"]`},
		{name: "with a footnote that is not valid", reply: `Items: ["a", "b"] (see [1])`, want: `["a", "b"]`},
		{name: "the same array twice", reply: `Items: ["a"]. Again: ["a"]`, want: `["a"]`},
		{name: "a trailing comma", reply: `Items: ["a", "b",]`, want: `["a","b"]`},
		{name: "a fenced block", reply: "```json\n[\"a\"]\n```", want: `["a"]`},
		{name: "two that differ", reply: `Items: ["a", "b"]. Or maybe ["c"]?`,
			err: `the reply holds 2 different JSON arrays (at line 1, column 8; line 1, column 29), so which one is the answer cannot be told; answer with one JSON array, your answer, and nothing else (no example of the format, no draft)`},
		{name: "none", reply: `I have no items [x]`,
			err: `the reply holds no JSON array valid against the schema; answer with one JSON array and nothing else`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pickReplyValue(tt.reply, schema)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, got)
		})
	}
}
