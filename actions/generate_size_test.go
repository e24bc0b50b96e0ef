package actions

import (
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sizeSpec = `
lpp: 1
name: gen
context:
  reply:  {type: string, default: ""}
  failed: {type: string, default: ""}
initial: ask
states:
  ask:
    do: llm.generate
    with: {prompt: ask.md, output: reply, max_reply_chars: 100, repairs: REPAIRS}
    next: [{to: done}]
    on_error: {to: broken, set: {failed: last_error}}
  done: {final: true}
  broken: {final: true}
`

func TestGenerateRefusesAnOversizedReply(t *testing.T) {
	long := strings.Repeat("x", 500)
	tests := []struct {
		name, repairs, replies, state, reply, failed, note string
	}{
		{
			name: "a reply over max_reply_chars is refused and asked again", repairs: "1",
			replies: "  - state: ask\n    text: " + long + "\n  - state: ask\n    text: short\n",
			state:   "done", reply: "short",
			note: "the reply has 500 characters, more than max_reply_chars (100); asking again",
		},
		{
			name: "still too long after the repairs fails the action, and is not kept", repairs: "0",
			replies: "  - state: ask\n    text: " + long + "\n",
			state:   "broken",
			failed:  `the model's reply in state "ask" is still too long after 0 repair(s): the reply has 500 characters, more than max_reply_chars (100)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, map[string]string{
				"a/spec.yaml": strings.Replace(sizeSpec, "REPAIRS", tt.repairs, 1),
				"a/ask.md":    "Say something.",
				"a/demo.yaml": "replies:\n" + tt.replies,
			})
			rec := &recorder{}
			r, err := p.run("a/spec.yaml", p.deps("a", "demo.yaml"), nil, machine.WithObserver(rec))
			require.NoError(t, err)
			assert.Equal(t, tt.state, r.State())
			assert.Equal(t, tt.reply, r.Var("reply"))
			assert.Contains(t, r.Var("failed"), tt.failed)
			assert.Contains(t, notes(rec.recs), tt.note)
			assert.NotContains(t, r.Var("failed"), long)
		})
	}
}
