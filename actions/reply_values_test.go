package actions

import (
	"github.com/lppctl/lppctl/actions/replyschema"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With a schema, the one value valid against it is taken (the input quoted
// back is not an answer); several valid ones that differ are still refused.
func TestTheOneValueValidAgainstTheSchemaIsTaken(t *testing.T) {
	schema, err := replyschema.Load(map[string]any{"type": "object", "properties": map[string]any{"score": map[string]any{"type": "integer"}}, "required": []any{"score"}}, "", "", nil)
	require.NoError(t, err)
	got, err := pickReplyValue(`You gave me {"files": ["a.py"]}; my score: {"score": 40}`, schema)
	require.NoError(t, err)
	assert.Equal(t, `{"score": 40}`, got)
	_, err = pickReplyValue(`Format: {"score": 100}. Mine: {"score": 40}`, schema)
	require.EqualError(t, err, `the reply holds 2 different JSON values (at line 1, column 9; line 1, column 31), so which one is the answer cannot be told; answer with one JSON object, your answer, and nothing else (no example of the format, no draft)`)
}

// End to end: a judge that quotes the answer format with a passing score
// before its real, failing one is asked again; the run routes on the answer.
func TestGenerateAsksAgainWhenTheReplyQuotesTheFormatBeforeItsAnswer(t *testing.T) {
	p := newProject(t, map[string]string{
		"a/spec.yaml": `
lpp: 1
name: judge
context:
  score: {type: int, default: 0}
initial: judge
states:
  judge:
    do: llm.generate
    with:
      prompt: p.md
      schema: {type: object, properties: {score: {type: integer}, feedback: {type: string}}, required: [score, feedback]}
      map: {score: /score}
    next:
      - {to: shipped, when: score >= 80}
      - {to: rejected}
  shipped: {final: true}
  rejected: {final: true}
`,
		"a/p.md": "Score it.",
		"a/demo.yaml": `replies:
  - state: judge
    text: 'I must answer as {"score": 95, "feedback": "..."}. My answer: {"score": 40, "feedback": "wrong counts"}'
  - state: judge
    text: '{"score": 40, "feedback": "wrong counts"}'
`,
	})
	rec := &recorder{}
	r, err := p.run("a/spec.yaml", p.deps("a", "demo.yaml"), nil, machine.WithObserver(rec))
	require.NoError(t, err)
	assert.Equal(t, "rejected", r.State())
	assert.Equal(t, 40, r.Var("score"))
	assert.True(t, strings.Contains(notes(rec.recs), "the reply was invalid (the reply holds 2 different JSON values"), notes(rec.recs))
}

// The one value valid against the schema is not taken when an invalid one
// after it holds all its keys: that one is the answer (last, in the
// format's keys), the valid one an example of the format, and the model is
// asked to correct its answer (the example's score 0 was stored).
func TestAnExampleOfTheFormatIsNotTakenForAnInvalidAnswerAfterIt(t *testing.T) {
	schema, err := replyschema.Load(map[string]any{"type": "object", "properties": map[string]any{"score": map[string]any{"type": "integer"}, "why": map[string]any{"type": "string"}}, "required": []any{"score", "why"}}, "", "", nil)
	require.NoError(t, err)
	for _, tt := range []struct {
		name, reply, want, err string
	}{
		{name: "an example, then an invalid answer",
			reply: "Example: {\"score\": 0, \"why\": \"text\"}. Answer:\n{\"score\": \"4\", \"why\": \"good\"}",
			err:   `the reply holds 2 different JSON values (an example of the format, then your answer?); the one at line 2, column 1, after the one that fits, does not satisfy the schema: validating /properties/score: type: "4" is a string, want an integer; answer with one JSON object, your answer, and nothing else (no example of the format, no draft)`},
		{name: "an invalid draft, then the answer", reply: `Draft: {"score": "4", "why": "x"}. Final: {"score": 4, "why": "good"}`, want: `{"score": 4, "why": "good"}`},
		{name: "the answer, then the input quoted back", reply: `{"score": 4, "why": "good"} for your input {"files": ["a.py"]}`, want: `{"score": 4, "why": "good"}`},
		{name: "the answer, then an object with fewer keys", reply: `{"score": 4, "why": "good"} (not {"score": "x"})`, want: `{"score": 4, "why": "good"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pickReplyValue(tt.reply, schema)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
