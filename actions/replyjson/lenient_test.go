package replyjson

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// extractCase is a reply given to Extract and what it must give: the JSON
// (want) or the error's exact message (err).
type extractCase struct {
	name, reply, want, err string
}

func runExtractCases(t *testing.T, tests []extractCase) {
	t.Helper()
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

func TestExtractJSONForgivesSlipsAndNamesTheRealError(t *testing.T) {
	tests := []extractCase{
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
	runExtractCases(t, tests)
}

func TestADraftIsNeverTakenForAnAnswerThatDoesNotParseAfterIt(t *testing.T) {
	draft := `{"score": 91, "verdict": "PASS"}`
	tests := []extractCase{
		{
			name:  "a final answer in single quotes after a draft",
			reply: "Draft: " + draft + "\nFinal answer: {'score': 20, 'verdict': 'FAIL'}",
			err:   `the reply holds a JSON object at line 2, column 15, after the one at line 1, column 8, that does not parse (line 2, column 16: "'" where a key in double quotes belongs (keys need double quotes)), so which one is the answer cannot be told; answer with one valid JSON object, your answer, and nothing else (no draft)`,
		},
		{
			name:  "a final answer cut at the token limit after a fenced draft",
			reply: "```json\n" + draft + "\n```\nWait, the tests fail. Corrected:\n```json\n{\"score\": 20, \"verd",
			err:   `the reply holds a JSON object at line 6, column 1, after the one at line 2, column 1, that does not parse (line 6, column 20: the JSON ends before its last object or array closes (a missing } or ], or the reply was cut)), so which one is the answer cannot be told; answer with one valid JSON object, your answer, and nothing else (no draft)`,
		},
		{
			name:  "a final answer with a comment after a draft",
			reply: "Draft: " + draft + "\nFinal:\n{\"score\": 20, // lowered\n \"verdict\": \"FAIL\"}",
			err:   `the reply holds a JSON object at line 3, column 1, after the one at line 1, column 8, that does not parse (line 3, column 15: "/" where a key in double quotes belongs (keys need double quotes)), so which one is the answer cannot be told; answer with one valid JSON object, your answer, and nothing else (no draft)`,
		},
		{name: "a format example that does not parse before the answer is not an answer", reply: "Format: {'score': int}\nAnswer: " + draft, want: draft},
		{name: "braces in prose after the answer are not an answer", reply: draft + "\nUse {name} to fill the template.", want: draft},
		{name: "a fragment of other JSON after the answer is not an answer", reply: draft + "\nThe script reads {\"text\": ...} on stdin.", want: draft},
		{name: "a broken object quoted inside the answer's string is part of it", reply: `{"feedback": "it printed {\"a\": 1,", "score": 3}`, want: `{"feedback": "it printed {\"a\": 1,", "score": 3}`},
	}
	runExtractCases(t, tests)
}

func TestObjectsWithAKeyRefuseABrokenLaterOneWithIt(t *testing.T) {
	reply := "{\"verdict\": \"PASS\", \"feedback\": \"ok\"}\nOn reflection: {'verdict': 'FAIL', 'feedback': 'the name is wrong'}"
	_, err := Objects(reply, "verdict")
	require.EqualError(t, err, `the reply holds a JSON object at line 2, column 16, after the one at line 1, column 1, that does not parse (line 2, column 17: "'" where a key in double quotes belongs (keys need double quotes)), so which one is the answer cannot be told; answer with one valid JSON object, your answer, and nothing else (no draft)`)
	objs, err := Objects("{\"verdict\": \"PASS\"}\nNext I will check {\"path\": broken", "verdict")
	require.NoError(t, err, "a later broken object without the key is not an answer")
	assert.Equal(t, []string{`{"verdict": "PASS"}`}, objs)
}

func TestAKeyGivenTwiceWithDifferentValuesIsNeverReadAsTheLast(t *testing.T) {
	tests := []extractCase{
		{
			name:  "a verdict changed inside the object",
			reply: `{"score": 95, "verdict": "FAIL", "ok": false, "verdict": "PASS"}`,
			err:   `the JSON object at line 1, column 1 gives the key "verdict" twice, with different values ("FAIL", then "PASS"), so which one is meant cannot be told; answer with one JSON object that gives each key once`,
		},
		{
			name:  "in a nested object, in prose",
			reply: "Here: {\"result\": {\"score\": 40, \"problems\": [\"x\"], \"score\": 95}}",
			err:   `the JSON object at line 1, column 7 gives the key "score" (in /result) twice, with different values (40, then 95), so which one is meant cannot be told; answer with one JSON object that gives each key once`,
		},
		{
			name:  "in a fenced block with a trailing comma",
			reply: "```json\n{\"ok\": true,\n \"ok\": false,}\n```",
			err:   `the JSON object at line 2, column 1 gives the key "ok" twice, with different values (true, then false), so which one is meant cannot be told; answer with one JSON object that gives each key once`,
		},
		{name: "the same value twice is one", reply: `{"ok": true, "tags": [1, {"a": 2}], "tags": [1, {"a": 2}]}`, want: `{"ok": true, "tags": [1, {"a": 2}]}`},
	}
	runExtractCases(t, tests)
	_, err := Objects(`{"verdict": "FAIL", "feedback": "wrong name", "verdict": "PASS"}`, "verdict")
	require.EqualError(t, err, `the JSON object at line 1, column 1 gives the key "verdict" twice, with different values ("FAIL", then "PASS"), so which one is meant cannot be told; answer with one JSON object that gives each key once`)
}
