package replyjson

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// llm.generate's reader takes a reply's one JSON value wherever it is, but
// never the first of several that differ: a quoted format example with a
// passing value, then the real answer, must not route the run on the example.
func TestAReplyWithSeveralDifferentJSONValuesIsNotReadAsItsFirst(t *testing.T) {
	tests := []struct {
		name, reply, want, err string
	}{
		{name: "a quoted format example, then the answer",
			reply: `The format is {"score": 95, "feedback": "..."} and my answer is {"score": 40, "feedback": "the counts are wrong"}`,
			err:   `the reply holds 2 different JSON values (at line 1, column 15; line 1, column 65), so which one is the answer cannot be told; answer with one JSON object, your answer, and nothing else (no example of the format, no draft)`},
		{name: "a draft, then the final answer in a fence",
			reply: "Draft: {\"score\": 40}\nFinal:\n```json\n{\"score\": 90}\n```",
			err:   `the reply holds 2 different JSON values (at line 1, column 8; line 4, column 1), so which one is the answer cannot be told; answer with one JSON object, your answer, and nothing else (no example of the format, no draft)`},
		{name: "two fenced blocks that differ",
			reply: "```json\n[1]\n```\nor\n```json\n[2]\n```",
			err:   `the reply holds 2 different JSON values (at line 2, column 1; line 6, column 1), so which one is the answer cannot be told; answer with one JSON object, your answer, and nothing else (no example of the format, no draft)`},
		{name: "the same object in a fence and in prose is one value",
			reply: "```json\n{\"a\": 1}\n```\nSo the answer is {\"a\":1}.",
			want:  `{"a":1}`},
		{name: "an object nested in the answer is part of it",
			reply: `Answer: {"a": {"b": 2}, "c": [{"d": 3}]}`,
			want:  `{"a": {"b": 2}, "c": [{"d": 3}]}`},
		{name: "a fenced array stays one value",
			reply: "Here:\n```json\n[{\"a\": 1}, {\"a\": 2}]\n```",
			want:  `[{"a": 1}, {"a": 2}]`},
		{name: "a raw control character inside a string is forgiven",
			reply: "{\"a\": \"x\x01y\"}",
			want:  `{"a": "x\u0001y"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Extract(tt.reply)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, got)
		})
	}
}
