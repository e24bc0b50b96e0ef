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
	var r struct {
		Message struct {
			Content   string           `json:"content"`
			Thinking  string           `json:"thinking"`
			ToolCalls []ollamaToolCall `json:"tool_calls"`
		} `json:"message"`
		DoneReason      string `json:"done_reason"`
		PromptEvalCount int    `json:"prompt_eval_count"`
		EvalCount       int    `json:"eval_count"`
		Error           string `json:"error"`
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(bytes.TrimSpace(raw), &r); err != nil {
		return nil, &replyError{msg: fmt.Sprintf("the server's /api/chat reply is not one JSON object (%s)", snippet(raw))}
	}
	if r.Error != "" {
		return nil, &replyError{msg: "the server answered HTTP 200 with an error: " + r.Error}
	}
	ch := &llms.ContentChoice{
		Content:    r.Message.Content,
		StopReason: r.DoneReason,
		GenerationInfo: map[string]any{
			"PromptTokens": r.PromptEvalCount, "CompletionTokens": r.EvalCount, "TotalTokens": r.PromptEvalCount + r.EvalCount,
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
