package actions

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/lppctl/lppctl/actions/llm"
	"github.com/lppctl/lppctl/internal/textx"
	"github.com/lppctl/lppctl/machine"
)

// Generate calls the model for agent at step and records the call.
func (d *Deps) Generate(ctx context.Context, c *machine.Call, agent string, step int, msgs []llm.Message, tools []llm.Tool) (llm.Reply, error) {
	return d.send(ctx, c, llm.Request{Agent: agent, Step: step, Messages: msgs, Tools: tools}, agent)
}

// send makes one model call: it records the run's model at its first call,
// takes the next turn of req's caller from run memory (the scripted model's
// cursor; turnKey names the caller), logs the call with its token usage and
// notes it on the step.
func (d *Deps) send(ctx context.Context, c *machine.Call, req llm.Request, turnKey string) (llm.Reply, error) {
	agent, step, msgs := req.Agent, req.Step, req.Messages
	client, err := d.Client()
	if err != nil {
		return llm.Reply{}, err
	}
	tx := c.Memory()
	var began string
	if _, err := tx.Get(MemModel, &began); err != nil {
		return llm.Reply{}, err
	}
	if began != "" && !strings.HasPrefix(began, "script:") && d.demoFallback() {
		// A resume without the provider's variables must not let canned
		// replies finish a run a real model began.
		return llm.Reply{}, fmt.Errorf("cannot continue with the scripted demo: this run began with %s and no LLM is configured now; configure it as when the run began (%s), then resume", began, configHint(began))
	}
	if began == "" {
		if err := tx.Put(MemModel, client.Name()); err != nil {
			return llm.Reply{}, err
		}
	}
	turn, err := nextTurn(tx, turnKey, step)
	if err != nil {
		return llm.Reply{}, err
	}
	req.Turn = turn
	start := time.Now()
	spanCtx, span := startModelSpan(ctx, client.Name(), req)
	reply, err := client.Generate(spanCtx, req)
	endModelSpan(ctx, span, reply, err)
	rec := llm.CallRecord{
		Time: start.UTC(), Model: client.Name(), Agent: agent, State: req.State, Step: step, Turn: turn,
		Messages: len(msgs), PromptChar: llm.PromptChars(msgs), Usage: reply.Usage,
		NoUsage: err == nil && reply.UsageMissing, StopReason: reply.StopReason,
		ToolCalls: len(reply.ToolCalls), ReplyChars: len(reply.Text), Attempts: reply.Attempts,
		DurationMS: float64(time.Since(start).Microseconds()) / 1000,
	}
	d.recordMessages(&rec, req, reply, err)
	if err != nil {
		rec.Error = err.Error()
		d.logCall(rec)
		if req.State != "" {
			return llm.Reply{}, fmt.Errorf("cannot get the model's reply in state %q: %w", req.State, err)
		}
		return llm.Reply{}, fmt.Errorf("cannot get the %s's reply: %w", agent, err)
	}
	d.logCall(rec)
	if err := stepTokens(c, step, cmp.Or(reply.Usage.TotalTokens, reply.Usage.PromptTokens+reply.Usage.CompletionTokens)); err != nil {
		return llm.Reply{}, err
	}
	what := fmt.Sprintf("%d tool call(s)", len(reply.ToolCalls))
	if len(reply.ToolCalls) == 0 {
		what = fmt.Sprintf("reply %q", Clip(textx.OneLine(headBytes(reply.Text, 1000)), 70))
	}
	retries := ""
	if reply.Attempts > 1 {
		retries = fmt.Sprintf(", after %d attempts", reply.Attempts)
	}
	tokens := fmt.Sprintf("%d tokens in / %d out", reply.Usage.PromptTokens, reply.Usage.CompletionTokens)
	if reply.UsageMissing {
		tokens = "tokens not reported"
	}
	if reply.StopReason == "length" {
		retries += ", cut at the token limit"
	}
	c.Notef("%s: %s [prompt %d chars, %s%s]", agent, what, rec.PromptChar, tokens, retries)
	return reply, nil
}

// CutOffProblem is what a re-ask says of a reply that was cut at the token
// limit (finish_reason "length") and could not be used: that it was cut,
// and to answer shorter (asked again as it was, a model cuts again).
const CutOffProblem = `your reply was cut off at the token limit (finish_reason "length"), so it is incomplete; answer again with a shorter reply that fits: the same JSON, with less text in it`

// ThoughtOnlyProblem is what a re-ask says of a reply whose only text was
// the model's reasoning (the server's reasoning_content, or a thought
// block that never closed): the answer must come after the thought.
const ThoughtOnlyProblem = `your reply holds only your reasoning and no answer after it (the server gave all of it as reasoning, or your thought block never closed); finish your reasoning, then answer with the JSON`

// ReplyProblem says why a reply that could not be used is so when its
// finish reason or its tool calls tell more than its text (problem, what
// the reader found, otherwise): cut at the token limit (CutOffProblem),
// stopped by the provider's filter with no text, only tool calls where
// none are offered (a server that calls tools of its own accord), or only
// reasoning (ThoughtOnlyProblem).
func ReplyProblem(r llm.Reply, toolsOffered bool, problem string) string {
	switch reason := strings.ToLower(r.StopReason); {
	case reason == "length":
		return CutOffProblem
	case strings.TrimSpace(r.Text) != "":
		return problem
	case reason == "content_filter" || reason == "refusal" || reason == "safety":
		return fmt.Sprintf("the provider stopped your reply before it held any text (finish_reason %q: its content filter or a refusal); answer again with the JSON only", r.StopReason)
	case len(r.ToolCalls) > 0 && !toolsOffered:
		return fmt.Sprintf("your reply is a call of the tool %q and no text, but no tools are offered here; answer with the JSON as text", r.ToolCalls[0].Name)
	case r.ThoughtOnly:
		return ThoughtOnlyProblem
	}
	return problem
}

// configHint names how a provider is configured.
func configHint(model string) string {
	provider, _, _ := strings.Cut(model, ":")
	switch provider {
	case "openai":
		return "OPENAI_API_KEY or OPENAI_API_BASE, and LPPCTL_LLM=" + model
	case "anthropic":
		return "ANTHROPIC_API_KEY, and LPPCTL_LLM=" + model
	case "ollama":
		return "OLLAMA_HOST, and LPPCTL_LLM=" + model
	}
	return "LPPCTL_LLM=" + model
}

// ToolDefs returns the gateway's tools for native tool calling; with
// readOnly, only the sub-commands that look (for a checker such as the
// evaluator, whose calls run read-only: anything else would be refused).
func (d *Deps) ToolDefs(readOnly bool) ([]llm.Tool, error) {
	gw, err := d.OpenGateway()
	if err != nil {
		return nil, err
	}
	defs := gw.Tools()
	if readOnly {
		defs = gw.ReadOnlyTools()
	}
	out := make([]llm.Tool, len(defs))
	for i, t := range defs {
		out[i] = llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters}
	}
	return out, nil
}

// RelToRoot returns p relative to the root, with slashes, when it is
// inside it, else p as it is (with slashes).
func (d *Deps) RelToRoot(p string) string {
	root, err1 := filepath.Abs(d.RootDir())
	abs, err2 := filepath.Abs(p)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(p)
	}
	if rel, err := filepath.Rel(root, abs); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(p)
}
