package agent

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A reply with several verdicts is read only when they agree: verdicts that
// disagree are a format error (re-asked), never the first one silently.
func TestAReplyWithVerdictsThatDisagreeIsAFormatError(t *testing.T) {
	tests := []struct {
		name, reply string
		err         string
		verdict     string
		feedback    string
	}{
		{name: "a quoted format example with PASS, then the real FAIL",
			reply: `I must answer in the format {"verdict": "PASS", "feedback": "...", "key_outputs": {}}. The greeting printed was "Hello, Bob!", so my verdict is:` + "\n" + `{"verdict": "FAIL", "feedback": "greet.py printed the wrong name", "key_outputs": {}}`,
			err:   `the reply holds 2 JSON objects with a "verdict" (PASS, then FAIL) that disagree; answer with one JSON object, your verdict, and nothing else (no example of the format)`},
		{name: "a FAIL draft, then a final PASS",
			reply: `Draft: {"verdict": "FAIL", "feedback": "not checked yet"} Final: {"verdict": "PASS", "feedback": "ok"}`,
			err:   `the reply holds 2 JSON objects with a "verdict" (FAIL, then PASS) that disagree; answer with one JSON object, your verdict, and nothing else (no example of the format)`},
		{name: "a PASS, then a verdict that is none",
			reply: `{"verdict": "PASS"} {"verdict": "FAIL with notes"}`,
			err:   `the reply holds 2 JSON objects with a "verdict" (PASS, then "FAIL with notes") that disagree; answer with one JSON object, your verdict, and nothing else (no example of the format)`},
		{name: "the same verdict twice: the last is taken",
			reply:   "```json\n{\"verdict\": \"PASS\", \"feedback\": \"draft\"}\n```\n```json\n{\"verdict\": \"pass\", \"feedback\": \"final\"}\n```",
			verdict: "PASS", feedback: "final"},
		{name: "a verdict nested in the verdict's own object does not count twice",
			reply:   `{"verdict": "PASS", "feedback": "ok", "key_outputs": {"verdict": "FAIL"}}`,
			verdict: "PASS", feedback: "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := ParseEvaluation(tt.reply)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.verdict, ev.Verdict)
			assert.Equal(t, tt.feedback, ev.Feedback)
		})
	}
}

// The plan and verdict parsers forgive what llm.generate forgives (a
// trailing comma, a raw line break in a string); when the object does not
// parse, the error names its line, column and problem, not an object
// nested in it.
func TestAFailWithoutFeedbackIsAFormatErrorNotAFailureCase(t *testing.T) {
	const want = `a "FAIL" verdict needs "feedback" saying what is wrong, so that the step can be fixed`
	for _, reply := range []string{
		`{"verdict": "FAIL", "key_outputs": {}}`,
		`{"verdict": "fail", "feedback": "  ", "key_outputs": {}}`,
		`{"verdict": "FAILED", "feedback": null}`,
	} {
		t.Run(reply, func(t *testing.T) {
			_, err := ParseEvaluation(reply)
			require.EqualError(t, err, want)
		})
	}
	ev, err := ParseEvaluation(`{"verdict": "PASS", "key_outputs": {}}`)
	require.NoError(t, err, "a PASS needs no feedback")
	require.Equal(t, "PASS", ev.Verdict)
}

func TestPlanAndVerdictRepliesAreReadAsLLMGenerateReadsJSON(t *testing.T) {
	ev, err := ParseEvaluation(`{"verdict": "PASS", "feedback": "ok", "key_outputs": {"GREETING": "Hello, Ada! Welcome to lppctl."},}`)
	require.NoError(t, err)
	assert.Equal(t, "PASS", ev.Verdict)
	assert.Equal(t, map[string]string{"GREETING": "Hello, Ada! Welcome to lppctl."}, ev.KeyOutputs)

	ev, err = ParseEvaluation("{\"verdict\": \"FAIL\", \"feedback\": \"line one\nline two\"}")
	require.NoError(t, err)
	assert.Equal(t, "line one\nline two", ev.Feedback)

	p, err := ParsePlan("```json\n{\"goal\": \"greet\", \"steps\": [{\"optimizer_instruction\": \"a\", \"evaluator_instruction\": \"b\",},],}\n```", 3)
	require.NoError(t, err)
	assert.Equal(t, "greet", p.Goal)
	require.Len(t, p.Steps, 1)

	for _, tt := range []struct{ name, reply, err string }{
		{"a missing comma in the verdict, with key_outputs inside",
			`{"verdict": "PASS" "feedback": "ok", "key_outputs": {"GREETING": "Hello"}}`,
			`the reply's JSON does not parse: line 1, column 20: "\"" where a comma or the closing bracket belongs (a missing comma?); answer with one valid JSON object and nothing else`},
		{"a verdict cut short",
			"{\"verdict\": \"PASS\",\n \"feedback\": \"the greeting",
			`the reply's JSON does not parse: line 2, column 27: the JSON ends before its last object or array closes (a missing } or ], or the reply was cut); answer with one valid JSON object and nothing else`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseEvaluation(tt.reply)
			require.EqualError(t, err, tt.err)
		})
	}
	_, err = ParsePlan(`{"goal": "g" "steps": [{"optimizer_instruction": "a", "evaluator_instruction": "b"}]}`, 3)
	require.EqualError(t, err, `the reply's JSON does not parse: line 1, column 14: "\"" where a comma or the closing bracket belongs (a missing comma?); answer with one valid JSON object and nothing else`)
}

// A plan reply holding several plans is read only when one of them is a
// valid plan or they are the same: a quoted format example (every field
// "...") before the real plan is a format error, never the plan run.
func TestAReplyWithSeveralValidPlansThatDifferIsAFormatError(t *testing.T) {
	const echo = `{"goal": "...", "steps": [{"index": 1, "optimizer_instruction": "...", "evaluator_instruction": "...", "tools_hint": ["..."], "depends_on": []}]}`
	const real = `{"goal": "greet Ada", "steps": [{"index": 1, "optimizer_instruction": "run greet.py --name Ada", "evaluator_instruction": "check the greeting"}]}`
	_, err := ParsePlan("The schema is "+echo+"\nMy plan:\n"+real, 5)
	require.EqualError(t, err, `the reply holds 2 different JSON objects with "steps" (at line 1, column 15; line 3, column 1), so which one is the answer cannot be told; answer with one JSON object, your answer, and nothing else (no example of the format, no draft)`)

	p, err := ParsePlan(`The schema is {"goal": "", "steps": []}. My plan: `+real, 5)
	require.NoError(t, err, "only one of them is a valid plan")
	assert.Equal(t, "greet Ada", p.Goal)

	p, err = ParsePlan("```json\n"+real+"\n```\n"+real, 5)
	require.NoError(t, err, "the same plan twice")
	assert.Equal(t, "greet Ada", p.Goal)

	_, err = ParsePlan(`{"goal": "", "steps": []} {"goal": "g", "steps": "none"}`, 5)
	require.EqualError(t, err, `the plan is invalid: "goal" is missing or empty; "steps" is missing or empty: give at least one step`, "none valid: the first one's problems")
}

func TestAPassDraftBeforeAVerdictThatDoesNotParseIsNeverCommitted(t *testing.T) {
	for name, reply := range map[string]string{
		"a final verdict in single quotes": "{\"verdict\": \"PASS\", \"feedback\": \"ok\", \"key_outputs\": {}}\nOn reflection the name is wrong:\n{'verdict': 'FAIL', 'feedback': 'the name is wrong', 'key_outputs': {}}",
		"a final verdict cut short":        "```json\n{\"verdict\": \"PASS\", \"feedback\": \"ok\", \"key_outputs\": {}}\n```\nNo, wait:\n```json\n{\"verdict\": \"FAIL\", \"feedback\": \"the na",
	} {
		t.Run(name, func(t *testing.T) {
			ev, err := ParseEvaluation(reply)
			require.Error(t, err, "got %+v", ev)
			assert.Contains(t, err.Error(), "that does not parse")
		})
	}
}
