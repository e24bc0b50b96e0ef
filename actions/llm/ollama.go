package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// ollamaNative is an llms.Model for Ollama's native chat API (POST
// /api/chat, no streaming), with tool calls: langchaingo v0.1.14's ollama
// adapter has none. The ollama provider speaks Ollama's OpenAI-compatible
// /v1 first and falls back to this when the server has no /v1 (an old
// Ollama, a proxy or a mock of the native API only).
type ollamaNative struct {
	host  string // http://host:port, without /v1
	model string
	hc    *http.Client
}

type ollamaMessage struct {
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	ToolCalls []ollamaToolCall `json:"tool_calls,omitempty"`
	ToolName  string           `json:"tool_name,omitempty"`
}

type ollamaToolCall struct {
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

func (o *ollamaNative) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, o, prompt, options...)
}

func (o *ollamaNative) GenerateContent(ctx context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	opts := llms.CallOptions{}
	for _, opt := range options {
		opt(&opts)
	}
	var out []ollamaMessage
	for _, mc := range msgs {
		m := ollamaMessage{}
		switch mc.Role {
		case llms.ChatMessageTypeSystem:
			m.Role = "system"
		case llms.ChatMessageTypeHuman, llms.ChatMessageTypeGeneric:
			m.Role = "user"
		case llms.ChatMessageTypeAI:
			m.Role = "assistant"
		case llms.ChatMessageTypeTool:
			m.Role = "tool"
		default:
			return nil, fmt.Errorf("role %v not supported", mc.Role)
		}
		for _, p := range mc.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				m.Content += p.Text
			case llms.ToolCall:
				var tc ollamaToolCall
				if p.FunctionCall != nil {
					tc.Function.Name = p.FunctionCall.Name
					tc.Function.Arguments = json.RawMessage(jsonObjectOr(p.FunctionCall.Arguments))
				}
				m.ToolCalls = append(m.ToolCalls, tc)
			case llms.ToolCallResponse:
				m.Content, m.ToolName = p.Content, p.Name
			}
		}
		out = append(out, m)
	}
	body := map[string]any{"model": o.model, "messages": out, "stream": false}
	if len(opts.Tools) > 0 {
		body["tools"] = opts.Tools
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.host+"/api/chat", bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := o.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("API returned unexpected status code: %d", resp.StatusCode)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes))
	if err != nil {
		return nil, err
	}
	r, rerr := readOllamaChat(raw)
	if rerr != nil {
		return nil, rerr
	}
	ch := &llms.ContentChoice{
		Content:    r.Message.Content,
		StopReason: r.DoneReason,
		GenerationInfo: map[string]any{
			"PromptTokens": int(r.PromptEvalCount), "CompletionTokens": int(r.EvalCount), "TotalTokens": int(r.PromptEvalCount + r.EvalCount),
		},
	}
	for _, tc := range r.Message.ToolCalls {
		args := strings.TrimSpace(string(tc.Function.Arguments))
		var s string
		if json.Unmarshal(tc.Function.Arguments, &s) == nil {
			args = s // a string, as the OpenAI API sends them
		}
		ch.ToolCalls = append(ch.ToolCalls, llms.ToolCall{Type: "function", FunctionCall: &llms.FunctionCall{Name: tc.Function.Name, Arguments: args}})
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{ch}}, nil
}

// ollamaChat is a reply of /api/chat, or one chunk of a streamed one.
type ollamaChat struct {
	Message struct {
		Content   string           `json:"content"`
		Thinking  string           `json:"thinking"`
		ToolCalls []ollamaToolCall `json:"tool_calls"`
	} `json:"message"`
	Done            *bool  `json:"done"`
	DoneReason      string `json:"done_reason"`
	PromptEvalCount count  `json:"prompt_eval_count"`
	EvalCount       count  `json:"eval_count"`
	Error           string `json:"error"`
}

// count is a token count: a number, or a string holding one (proxies send
// "100"); anything else is 0, not a reply that fails to decode.
type count int

func (c *count) UnmarshalJSON(b []byte) error {
	var n json.Number
	if s := strings.TrimSpace(string(b)); strings.HasPrefix(s, `"`) {
		var str string
		if json.Unmarshal(b, &str) != nil {
			*c = 0
			return nil
		}
		n = json.Number(strings.TrimSpace(str))
	} else {
		n = json.Number(s)
	}
	f, err := n.Float64()
	if err != nil || f < 0 || f > 1<<53 {
		*c = 0
		return nil
	}
	*c = count(f)
	return nil
}

// readOllamaChat reads a /api/chat reply: one JSON object, or the NDJSON
// stream a proxy that drops "stream": false sends (one object a line, the
// last with "done": true), merged into one reply as Ollama would have sent
// it: the texts joined, the tool calls of every chunk, the last chunk's stop
// reason and token counts. A stream without its last chunk was cut short.
func readOllamaChat(raw []byte) (ollamaChat, *replyError) {
	var r ollamaChat
	trimmed := trimBody(raw)
	if err := json.Unmarshal(trimmed, &r); err == nil {
		if r.Error != "" {
			return r, &replyError{msg: "the server answered HTTP 200 with an error: " + r.Error, transient: saysTransient.MatchString(r.Error)}
		}
		if r.Done != nil && !*r.Done {
			return r, &replyError{msg: fmt.Sprintf("the server's /api/chat reply was cut short: it is a first chunk (\"done\": false) with no rest (%s)", snippet(trimmed)), transient: true}
		}
		return r, nil
	}
	if !bytes.HasPrefix(trimmed, []byte("{")) {
		if terr := textError(trimmed, ""); terr != nil {
			return r, terr
		}
	}
	lines := bytes.Split(trimmed, []byte("\n"))
	notJSON := &replyError{setup: true, msg: fmt.Sprintf("the server's /api/chat reply is not one JSON object (%s)", snippet(trimmed))}
	if len(lines) < 2 {
		return r, notJSON
	}
	var content, thinking strings.Builder
	for i, line := range lines {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var chunk ollamaChat
		if json.Unmarshal(line, &chunk) != nil || !bytes.HasPrefix(line, []byte("{")) {
			return r, notJSON
		}
		if chunk.Error != "" {
			return r, &replyError{msg: fmt.Sprintf("the server's streamed /api/chat reply (though none was asked for) holds an error at line %d: %s", i+1, chunk.Error)}
		}
		content.WriteString(chunk.Message.Content)
		thinking.WriteString(chunk.Message.Thinking)
		r.Message.ToolCalls = append(r.Message.ToolCalls, chunk.Message.ToolCalls...)
		if chunk.Done != nil && *chunk.Done {
			r.Message.Content, r.Message.Thinking = content.String(), thinking.String()
			r.Done, r.DoneReason, r.PromptEvalCount, r.EvalCount = chunk.Done, chunk.DoneReason, chunk.PromptEvalCount, chunk.EvalCount
			return r, nil
		}
	}
	return r, &replyError{msg: fmt.Sprintf("the server's streamed /api/chat reply (though none was asked for) was cut short: it ends before its last chunk (\"done\": true) (%s)", snippetEnd(trimmed)), transient: true}
}
