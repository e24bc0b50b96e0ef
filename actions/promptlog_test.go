package actions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/actions/llm"
	"github.com/lppctl/lppctl/internal/promptlog"
)

// recordedCall is a call of llm.jsonl with its messages read back from
// prompts.jsonl.
type recordedCall struct {
	Sent  []llm.Message
	Reply llm.Message
}

func readRecordedCalls(t *testing.T, llmLog, prompts string) []recordedCall {
	t.Helper()
	vals, err := promptlog.Read(prompts, nil)
	require.NoError(t, err)
	var out []recordedCall
	for _, l := range strings.Split(strings.TrimSpace(llmLog), "\n") {
		var cr llm.CallRecord
		require.NoError(t, json.Unmarshal([]byte(l), &cr))
		var c recordedCall
		for _, id := range cr.PromptIDs {
			var m llm.Message
			require.Contains(t, vals, id)
			require.NoError(t, json.Unmarshal(vals[id], &m))
			c.Sent = append(c.Sent, m)
		}
		require.Contains(t, vals, cr.ReplyID)
		require.NoError(t, json.Unmarshal(vals[cr.ReplyID], &c.Reply))
		out = append(out, c)
	}
	return out
}

func TestLLMGenerateRecordsTheMessagesAsSentAndTheReply(t *testing.T) {
	const key = "sk-test-0123456789abcdef"
	sys := llm.Message{Role: "system", Text: "You name things.\n"} // a rendered template ends its last line
	tests := []struct {
		name   string
		topic  string
		getenv map[string]string
		ask    string // the user message as sent
	}{
		{name: "plain", topic: "lamps", ask: "Name a book about lamps."},
		{name: "an API key in the prompt is redacted", topic: "keys like " + key, getenv: map[string]string{"OPENAI_API_KEY": key},
			ask: "Name a book about keys like [REDACTED]."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, map[string]string{
				"a/spec.yaml": generateSpec,
				"a/sys.md":    "You name things.",
				"a/ask.md":    "Name a book about {{.topic}}.",
				"a/demo.yaml": `replies:
  - state: ask
    text: 'Sure! {"title": "Lamps"}'
  - state: ask
    text: '{"title": "Lamps", "words": 1200}'
`,
			})
			d := p.deps("a", "demo.yaml")
			d.Getenv = func(k string) string { return tt.getenv[k] }
			file := filepath.Join(t.TempDir(), "prompts.jsonl")
			d.Prompts = promptlog.Open(file)
			_, err := p.run("a/spec.yaml", d, map[string]any{"topic": tt.topic})
			require.NoError(t, err)

			schema := "\nAnswer with one JSON value valid against this JSON Schema, and nothing else:\n" +
				`{"properties":{"title":{"type":"string"},"words":{"type":"integer"}},"required":["title","words"],"type":"object"}` + "\n"
			ask := llm.Message{Role: "user", Text: tt.ask + "\n" + schema}
			first := llm.Message{Role: "assistant", Text: `Sure! {"title": "Lamps"}`}
			repair := llm.Message{Role: "user", Text: "Your reply was invalid: it does not satisfy the schema: required: missing properties: [\"words\"]\nAnswer again with the corrected JSON only."}
			want := []recordedCall{
				{Sent: []llm.Message{sys, ask}, Reply: first},
				{Sent: []llm.Message{sys, ask, first, repair}, Reply: llm.Message{Role: "assistant", Text: `{"title": "Lamps", "words": 1200}`}},
			}
			assert.Equal(t, want, readRecordedCalls(t, p.llm.String(), file))

			// Each distinct message is stored once: system, ask, first reply,
			// repair, second reply.
			b, err := os.ReadFile(file)
			require.NoError(t, err)
			assert.Equal(t, 5, strings.Count(string(b), "\n"))
			assert.NotContains(t, string(b), key)
		})
	}
}

func TestModelCallMessagesGoNextToTheLLMLogFile(t *testing.T) {
	p := newProject(t, map[string]string{
		"a/spec.yaml": generateSpec,
		"a/sys.md":    "You name things.",
		"a/ask.md":    "Name a book about {{.topic}}.",
		"a/demo.yaml": "replies:\n  - state: ask\n    text: '{\"title\": \"T\", \"words\": 3}'\n",
	})
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "llm.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	d := p.deps("a", "demo.yaml")
	d.LLMLog = f
	_, err = p.run("a/spec.yaml", d, nil)
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir, "llm.jsonl"))
	require.NoError(t, err)
	calls := readRecordedCalls(t, string(b), filepath.Join(dir, "prompts.jsonl"))
	require.Len(t, calls, 1)
	assert.Equal(t, "You name things.\n", calls[0].Sent[0].Text)
	assert.Equal(t, `{"title": "T", "words": 3}`, calls[0].Reply.Text)
}
