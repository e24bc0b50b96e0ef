package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"

	"github.com/lppctl/lppctl/actions/replyjson"
	"github.com/lppctl/lppctl/machine"
)

// lcClient adapts a langchaingo model to Client.
type lcClient struct {
	model    llms.Model
	provider string
	name     string // model name
	base     string // base URL of the API (shown in errors)
	retry    RetryPolicy
	secrets  []string // API keys, redacted from error messages
	// oneToolCallPerMessage splits an assistant message with several parts into
	// one message per part (langchaingo's anthropic adapter reads only the first part).
	oneToolCallPerMessage bool
	// flattenWithoutTools sends tool calls and results as text in a request
	// that offers no tools (see flattenToolBlocks).
	flattenWithoutTools bool
	// native, for ollama, is Ollama's own chat API: used from the first call
	// whose /v1 path the server does not have (useNative).
	native    llms.Model
	useNative atomic.Bool
}

func (c *lcClient) Name() string { return c.provider + ":" + c.name }

// where names the model and its server for error messages: the URL called,
// /api/chat once an ollama client uses Ollama's native API.
func (c *lcClient) where() string {
	if n, ok := c.native.(*ollamaNative); ok && c.useNative.Load() {
		return c.Name() + " at " + displayURL(n.host+"/api/chat")
	}
	if c.base == "" {
		return c.Name()
	}
	return c.Name() + " at " + displayURL(c.base)
}

func (c *lcClient) Generate(ctx context.Context, req Request) (Reply, error) {
	msgs := c.convert(req.Messages)
	if c.flattenWithoutTools && len(req.Tools) == 0 {
		msgs = flattenToolBlocks(req.Messages)
	}
	var opts []llms.CallOption
	if len(req.Tools) > 0 {
		tools := make([]llms.Tool, len(req.Tools))
		for i, t := range req.Tools {
			tools[i] = llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: t.Parameters}}
		}
		opts = append(opts, llms.WithTools(tools))
	}
	var resp *llms.ContentResponse
	attempts, err := withRetry(ctx, c.retry, c.where, func(actx context.Context) error {
		r, err := c.generateContent(actx, msgs, opts)
		if err != nil {
			if c.provider == "anthropic" && errors.Is(err, anthropic.ErrEmptyResponse) {
				resp = &llms.ContentResponse{} // a reply with no content block: an empty answer
				return nil
			}
			return err
		}
		resp = r
		return nil
	})
	if err != nil {
		return Reply{Attempts: attempts}, redact(err, c.secrets)
	}
	out := Reply{Attempts: attempts}
	var texts []string
	for _, ch := range resp.Choices {
		if ch == nil {
			continue
		}
		if t := stripThinking(ch.Content); strings.TrimSpace(t) != "" {
			texts = append(texts, t)
		} else if strings.TrimSpace(ch.Content) != "" || strings.TrimSpace(ch.ReasoningContent) != "" {
			out.ThoughtOnly = true
		}
		for _, tc := range ch.ToolCalls {
			call := ToolCall{ID: tc.ID}
			if tc.FunctionCall != nil {
				call.Name, call.Arguments = tc.FunctionCall.Name, RepairArguments(tc.FunctionCall.Arguments)
			}
			out.ToolCalls = append(out.ToolCalls, call)
		}
		u := usageOf(ch.GenerationInfo)
		if u.TotalTokens > out.Usage.TotalTokens { // every choice repeats the response's usage
			out.Usage = u
		}
		if out.StopReason == "" {
			out.StopReason = stopReason(ch.StopReason)
		}
	}
	out.Text = strings.Join(texts, "\n")
	out.ThoughtOnly = out.ThoughtOnly && out.Text == "" && len(out.ToolCalls) == 0
	out.UsageMissing = out.Usage == (Usage{})
	uniqueIDs(out.ToolCalls)
	return out, nil
}

// generateContent calls the model; a panic in the provider's client (on a
// reply it did not expect) is an error, not a crash.
func (c *lcClient) generateContent(ctx context.Context, msgs []llms.MessageContent, opts []llms.CallOption) (resp *llms.ContentResponse, err error) {
	defer func() {
		if r := recover(); r != nil {
			resp, err = nil, fmt.Errorf("the %s client failed on the server's reply: %v", c.provider, r)
		}
	}()
	if c.native != nil && c.useNative.Load() {
		resp, err = c.native.GenerateContent(ctx, msgs, opts...)
	} else {
		resp, err = c.model.GenerateContent(ctx, msgs, opts...)
		if err != nil && c.native != nil && noSuchRoute(ctx) {
			c.useNative.Store(true)
			resp, err = c.native.GenerateContent(ctx, msgs, opts...)
		}
	}
	if err == nil && resp == nil {
		err = fmt.Errorf("the %s client returned no reply", c.provider)
	}
	return resp, err
}

// noSuchRoute reports whether the attempt's last response was a 404 or 405
// about the path (not about a model), and forgets it for the next request.
func noSuchRoute(ctx context.Context) bool {
	info, ok := ctx.Value(attemptKey{}).(*attemptInfo)
	if !ok {
		return false
	}
	info.mu.Lock()
	defer info.mu.Unlock()
	if !notThere(info.status) || strings.Contains(strings.ToLower(info.said), "model") {
		return false
	}
	info.status, info.said, info.retryAfter, info.transport = 0, "", 0, nil
	return true
}

// stopReason maps the providers' finish reasons to ours: "length" when the
// reply was cut at the token limit (OpenAI "length", Anthropic "max_tokens").
func stopReason(s string) string {
	switch strings.ToLower(s) {
	case "length", "max_tokens", "model_length":
		return "length"
	}
	return s
}

// uniqueIDs gives every tool call of a reply an id of its own: servers leave
// it out (llama.cpp, some mocks) or repeat one, and each tool result must
// name the call it answers.
func uniqueIDs(calls []ToolCall) {
	seen := map[string]bool{}
	for i := range calls {
		id := calls[i].ID
		if id == "" || seen[id] {
			base := id
			if base == "" {
				base = "call"
			}
			id = fmt.Sprintf("%s_%d", base, i+1)
			for seen[id] {
				id += "x"
			}
			calls[i].ID = id
		}
		seen[id] = true
	}
}

// stripThinking drops the <think>...</think> blocks (or <thinking>,
// <reasoning>, <thought>: thoughtTags) that reasoning models served without
// a reasoning parser put before their answer (Qwen3, DeepSeek-R1 on
// llama.cpp or Ollama): a marker the model only thought of
// must not route the run, nor a verdict it considered. Two more shapes are
// thoughts, not answers:
//   - a block that opens and never closes (the reply was cut while the model
//     was thinking): everything from <think> on is dropped, so a draft in
//     the thought is not read as the answer (the reply is then empty, and
//     its finish reason says why);
//   - a closing </think> with no opening one (chat templates that put
//     <think> in the prompt, so the reply starts inside the thought):
//     everything up to the last </think> that ends its line is dropped. A
//     </think> inside a line ("close it with </think> and answer") or in a
//     reply that is a JSON value as a whole (a string of it that quotes the
//     tag) is the answer's own text, kept.
//
// Reasoning sent apart (reasoning_content, thinking blocks) is never read.
func stripThinking(s string) string {
	t := strings.TrimSpace(s)
	if thoughtTag(t) == "" {
		if end := danglingThoughtEnd(t); end >= 0 && !strings.Contains(t[:end], "<think>") {
			return strings.TrimSpace(t[end+len("</think>"):])
		}
		return s
	}
	for tag := thoughtTag(t); tag != ""; tag = thoughtTag(t) {
		end := strings.Index(t, "</"+tag+">")
		if end < 0 {
			return "" // unclosed: cut while thinking, no answer yet
		}
		t = strings.TrimSpace(t[end+len("</"+tag+">"):])
	}
	return t
}

// thoughtTags are the tags reasoning models open their thought with at the
// start of a reply: <think> (Qwen3, DeepSeek-R1), <thinking> (models
// prompted or tuned to think in Claude's style), <reasoning> and <thought>.
var thoughtTags = []string{"think", "thinking", "reasoning", "thought"}

// thoughtTag is the thought tag t starts with ("" for none).
func thoughtTag(t string) string {
	for _, tag := range thoughtTags {
		if strings.HasPrefix(t, "<"+tag+">") {
			return tag
		}
	}
	return ""
}

// danglingThoughtEnd is the offset of the last </think> in t that closes a
// thought the reply began in: one that ends its line (spaces aside), in a
// reply that is not a JSON value as a whole; -1 when there is none.
func danglingThoughtEnd(t string) int {
	if !strings.Contains(t, "</think>") || json.Valid([]byte(t)) {
		return -1
	}
	for end := len(t); ; {
		i := strings.LastIndex(t[:end], "</think>")
		if i < 0 {
			return -1
		}
		rest := t[i+len("</think>"):]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[:nl]
		}
		if strings.TrimSpace(rest) == "" {
			return i
		}
		end = i
	}
}

// RepairArguments undoes what models commonly wrap tool-call arguments in:
// a Markdown code fence, text after the JSON object, a second JSON
// encoding; and forgives the slips plans and verdicts are forgiven (see
// replyjson.Lenient): a trailing comma, a raw line break or tab inside a
// string. Anything else is returned as is (a malformed call is answered
// with an [ERROR] the model can act on); empty arguments become {}.
func RepairArguments(args string) string {
	t := strings.TrimSpace(args)
	if t == "" {
		return "{}"
	}
	if json.Valid([]byte(t)) {
		var inner string
		if json.Unmarshal([]byte(t), &inner) == nil && strings.HasPrefix(strings.TrimSpace(inner), "{") && json.Valid([]byte(inner)) {
			return strings.TrimSpace(inner) // encoded twice: an object inside a JSON string
		}
		return args
	}
	if strings.HasPrefix(t, "```") {
		t = strings.TrimPrefix(t, "```")
		if nl := strings.IndexByte(t, '\n'); nl >= 0 && !strings.HasPrefix(strings.TrimSpace(t[:nl]), "{") {
			t = t[nl+1:] // the fence's language tag
		}
		if end := strings.LastIndex(t, "```"); end >= 0 {
			t = t[:end]
		}
		t = strings.TrimSpace(t)
	}
	if fixed, ok := replyjson.Lenient(t); ok && strings.HasPrefix(fixed, "{") {
		return fixed
	}
	if strings.HasPrefix(t, "{") {
		dec := json.NewDecoder(strings.NewReader(t))
		var obj map[string]any
		if dec.Decode(&obj) == nil && obj != nil {
			return t[:dec.InputOffset()]
		}
	}
	return args
}

// redact replaces the secrets in err's message. The result keeps err's
// chain only when nothing had to be redacted; an unavailable provider's
// error stays machine.ErrUnavailable either way.
func redact(err error, secrets []string) error {
	msg := err.Error()
	red := msg
	for _, s := range secrets {
		red = strings.ReplaceAll(red, s, "[REDACTED]")
	}
	if red == msg {
		return err
	}
	if errors.Is(err, machine.ErrUnavailable) {
		return machine.Unavailable(errors.New(red))
	}
	return errors.New(red)
}

// convert turns our messages into langchaingo's.
func (c *lcClient) convert(in []Message) []llms.MessageContent {
	out := make([]llms.MessageContent, 0, len(in))
	for _, m := range in {
		switch m.Role {
		case RoleSystem:
			out = append(out, llms.TextParts(llms.ChatMessageTypeSystem, m.Text))
		case RoleUser:
			out = append(out, llms.TextParts(llms.ChatMessageTypeHuman, nonEmpty(m.Text)))
		case RoleAssistant:
			var parts []llms.ContentPart
			if strings.TrimSpace(m.Text) != "" || len(m.ToolCalls) == 0 {
				parts = append(parts, llms.TextPart(nonEmpty(m.Text)))
			}
			for _, tc := range m.ToolCalls {
				parts = append(parts, llms.ToolCall{ID: tc.ID, Type: "function", FunctionCall: &llms.FunctionCall{Name: tc.Name, Arguments: jsonObjectOr(tc.Arguments)}})
			}
			if c.oneToolCallPerMessage {
				for _, p := range parts {
					out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{p}})
				}
				continue
			}
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: parts})
		case RoleTool:
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: m.ToolCallID, Name: m.Name, Content: nonEmpty(m.Text)},
			}})
		}
	}
	return out
}

func nonEmpty(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(empty)"
	}
	return s
}

// jsonObjectOr returns args when it is a JSON object, else "{}": a model's
// malformed arguments must not make the provider refuse the whole history
// (the tool result already told the model what was wrong).
func jsonObjectOr(args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) == nil && m != nil {
		return args
	}
	return "{}"
}

func usageOf(info map[string]any) Usage {
	get := func(keys ...string) int {
		for _, k := range keys {
			switch v := info[k].(type) {
			case int:
				return v
			case int64:
				return int(v)
			case int32:
				return int(v)
			case float64:
				return int(v)
			}
		}
		return 0
	}
	u := Usage{
		PromptTokens:     get("PromptTokens", "InputTokens"),
		CompletionTokens: get("CompletionTokens", "OutputTokens"),
		TotalTokens:      get("TotalTokens"),
	}
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	return u
}
