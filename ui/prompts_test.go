package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/internal/promptlog"
	"github.com/lppctl/lppctl/machine/runstore"
)

func TestRunPageShowsAModelCallsMessagesAsSentAndItsReply(t *testing.T) {
	type msg = map[string]any
	sys := msg{"role": "system", "text": "You <b>name</b> things."}
	ask := msg{"role": "user", "text": "Name a book about lamps."}
	call := msg{"role": "assistant", "tool_calls": []msg{{"id": "c1", "name": "safe_cli_executor", "arguments": `{"command":"read_file"}`}}}
	result := msg{"role": "tool", "tool_call_id": "c1", "name": "safe_cli_executor", "text": "Lamps were lit by hand."}
	tools := []msg{{"name": "safe_cli_executor", "description": "runs commands", "parameters": msg{"type": "object"}}}
	reply := msg{"role": "assistant", "text": `{"title": "Hand-lit"}`}
	tests := []struct {
		name    string
		values  []any // stored in prompts.jsonl
		line    func(ids []string) msg
		want    []string
		notWant []string
	}{
		{
			name:   "messages, tool call and result, tools offered, reply",
			values: []any{sys, ask, call, result, tools, reply},
			line: func(ids []string) msg {
				return msg{"prompt_ids": ids[:4], "tools_id": ids[4], "reply_id": ids[5]}
			},
			want: []string{
				`<summary>messages as sent (4) and reply</summary>`,
				`<span class="k role-system">system</span><pre class="text">You &lt;b&gt;name&lt;/b&gt; things.</pre>`,
				`<span class="k role-user">user</span><pre class="text">Name a book about lamps.</pre>`,
				`<span class="badge">safe_cli_executor</span> <small>c1</small>`,
				`<span class="k role-tool">tool · safe_cli_executor · answers c1</span><pre class="text">Lamps were lit by hand.</pre>`,
				`<summary>1 tool(s) offered: safe_cli_executor</summary>`,
				`<div class="reply"><span class="k">reply</span><span class="k role-assistant">assistant</span><pre class="text">{&#34;title&#34;: &#34;Hand-lit&#34;}</pre></div>`,
			},
		},
		{
			name:   "a message missing from prompts.jsonl says so",
			values: []any{sys},
			line: func(ids []string) msg {
				return msg{"prompt_ids": []string{ids[0], "0123456789abcdef0123456789abcdef"}, "reply_id": "fedcba9876543210fedcba9876543210"}
			},
			want: []string{`<summary>messages as sent (2) and reply</summary>`, `<span class="empty">not recorded (prompts.jsonl lacks it)</span>`},
		},
		{
			name:    "a call logged without messages shows its sizes only",
			line:    func([]string) msg { return msg{} },
			want:    []string{`prompt 40 chars, reply 20 chars`},
			notWant: []string{`messages as sent`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			id := f.addRun(1, nil)
			dir := filepath.Join(f.store.Dir, id)
			ids, err := promptlog.Open(filepath.Join(dir, runstore.PromptsFile)).Put(tt.values...)
			require.NoError(t, err)
			line := tt.line(ids)
			line["time"] = time.Date(2026, 11, 22, 3, 11, 36, 1200000, time.UTC).Format(time.RFC3339Nano) // during step 1
			line["agent"], line["model"], line["prompt_chars"], line["reply_chars"] = "llm.generate", "script:demo.yaml", 40, 20
			b, err := json.Marshal(line)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, runstore.LLMFile), append(b, '\n'), 0o644))

			w := f.do("GET", "/runs/"+id, "")
			require.Equal(t, 200, w.Code, w.Body.String())
			body := w.Body.String()
			for _, s := range tt.want {
				assert.Contains(t, body, s)
			}
			for _, s := range tt.notWant {
				assert.False(t, strings.Contains(body, s), "the page shows %s", s)
			}
		})
	}
}
