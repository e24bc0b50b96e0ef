package actions

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lppctl/lppctl/actions/llm"
	"github.com/lppctl/lppctl/internal/promptlog"
	"github.com/lppctl/lppctl/machine/runstore"
)

// prompts returns where the messages of the model calls are stored:
// Deps.Prompts, else prompts.jsonl next to the LLM call log when that is a
// file (a run's llm.jsonl), else nowhere (nil).
func (d *Deps) prompts() *promptlog.Log {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.Prompts == nil {
		if f, ok := d.LLMLog.(*os.File); ok && f != nil {
			d.Prompts = promptlog.Open(filepath.Join(filepath.Dir(f.Name()), runstore.PromptsFile))
		}
	}
	return d.Prompts
}

// recordMessages stores the messages of a model call exactly as sent, the
// tools offered and the reply (when there is one), API keys redacted, and
// names them in the call's log record. A failure to store them is said on
// the run's output; the call goes on.
func (d *Deps) recordMessages(rec *llm.CallRecord, req llm.Request, reply llm.Reply, callErr error) {
	log := d.prompts()
	if log == nil {
		return
	}
	red := d.apiKeys()
	vals := make([]any, 0, len(req.Messages)+2)
	for _, m := range req.Messages {
		vals = append(vals, redactMessage(m, red))
	}
	if len(req.Tools) > 0 {
		vals = append(vals, req.Tools)
	}
	if callErr == nil {
		vals = append(vals, redactMessage(llm.Message{Role: llm.RoleAssistant, Text: reply.Text, ToolCalls: reply.ToolCalls}, red))
	}
	ids, err := log.Put(vals...)
	if err != nil {
		fmt.Fprintf(d.Output(), "  llm: %v\n", err)
		return
	}
	rec.PromptIDs, ids = ids[:len(req.Messages)], ids[len(req.Messages):]
	if len(req.Tools) > 0 {
		rec.ToolsID, ids = ids[0], ids[1:]
	}
	if callErr == nil {
		rec.ReplyID = ids[0]
	}
}

// minKeyLen is the shortest API key redacted from the recorded messages (as
// from the providers' error messages: a shorter one would blank out words).
const minKeyLen = 8

// apiKeys returns the providers' API keys set in the environment.
func (d *Deps) apiKeys() *strings.Replacer {
	var pairs []string
	for _, name := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY"} {
		if k := d.Env(name); len(k) >= minKeyLen {
			pairs = append(pairs, k, "[REDACTED]")
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	return strings.NewReplacer(pairs...)
}

// redactMessage returns m with the API keys replaced in its text and tool
// calls' arguments.
func redactMessage(m llm.Message, keys *strings.Replacer) llm.Message {
	if keys == nil {
		return m
	}
	m.Text = keys.Replace(m.Text)
	if len(m.ToolCalls) > 0 {
		calls := make([]llm.ToolCall, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			tc.Arguments = keys.Replace(tc.Arguments)
			calls[i] = tc
		}
		m.ToolCalls = calls
	}
	return m
}
