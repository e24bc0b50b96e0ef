package replyjson

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExtractJSONForgivesSlipsAndNamesTheRealError(t *testing.T) {
	tests := []struct {
		name, reply, want, err string
	}{
		{name: "a trailing comma is forgiven", reply: "{\"skill\": \"a\", \"steps\": [{\"title\": \"t\"},],}", want: `{"skill": "a", "steps": [{"title": "t"}]}`},
		{name: "a raw line break inside a string is escaped", reply: "{\"text\": \"a\nb\"}", want: `{"text": "a\nb"}`},
		{name: "prose around fenced JSON with a trailing comma", reply: "Sure:\n```json\n{\"a\": 1,}\n```\nDone.", want: `{"a": 1}`},
		{name: "prose around bare JSON", reply: "Here it is: {\"a\": [1, 2]} hope it helps", want: `{"a": [1, 2]}`},
		{
			name:  "a missing comma names its line and column, not a nested object",
			reply: "{\"skill\": \"a\",\n \"steps\": [{\"title\": \"t\"}]\n \"examples\": []}",
			err:   `the reply's JSON does not parse: line 3, column 2: "\"" where a comma or the closing bracket belongs (a missing comma?); answer with one valid JSON object and nothing else`,
		},
		{
			name:  "a reply cut short says so",
			reply: "{\"skill\": \"a\", \"steps\": [{\"title\": \"t\"}",
			err:   "the reply's JSON does not parse: line 1, column 40: the JSON ends before its last object or array closes (a missing } or ], or the reply was cut); answer with one valid JSON object and nothing else",
		},
		{
			name:  "an unquoted key is named",
			reply: "{\"skill\": \"a\", steps: [{\"title\": \"t\"}]}",
			err:   `the reply's JSON does not parse: line 1, column 16: "s" where a key in double quotes belongs (keys need double quotes); answer with one valid JSON object and nothing else`,
		},
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
