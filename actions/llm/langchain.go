package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// lcClient adapts a langchaingo model to Client.
type lcClient struct {
	model    llms.Model
	provider string
	name     string // model name
	retry    RetryPolicy
	// oneToolCallPerMessage splits an assistant message with several parts into
	// one message per part (langchaingo's anthropic adapter reads only the first part).
	oneToolCallPerMessage bool
}

func (c *lcClient) Name() string { return c.provider + ":" + c.name }

func (c *lcClient) Generate(ctx context.Context, req Request) (Reply, error) {
	msgs := c.convert(req.Messages)
	var opts []llms.CallOption
	if len(req.Tools) > 0 {
		tools := make([]llms.Tool, len(req.Tools))
		for i, t := range req.Tools {
			tools[i] = llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: t.Parameters}}
		}
		opts = append(opts, llms.WithTools(tools))
	}
	var resp *llms.ContentResponse
	attempts, err := withRetry(ctx, c.retry, c.Name(), func(actx context.Context) error {
		r, err := c.model.GenerateContent(actx, msgs, opts...)
		if err != nil {
			if isEmptyResponse(err) {
				resp = &llms.ContentResponse{}
				return nil
			}
			return err
		}
		resp = r
		return nil
	})
	if err != nil {
		return Reply{Attempts: attempts}, err
	}
	out := Reply{Attempts: attempts}
	var texts []string
	for _, ch := range resp.Choices {
		if ch == nil {
			continue
		}
		if strings.TrimSpace(ch.Content) != "" {
			texts = append(texts, ch.Content)
		}
		for _, tc := range ch.ToolCalls {
			call := ToolCall{ID: tc.ID}
			if tc.FunctionCall != nil {
				call.Name, call.Arguments = tc.FunctionCall.Name, tc.FunctionCall.Arguments
			}
			out.ToolCalls = append(out.ToolCalls, call)
		}
		u := usageOf(ch.GenerationInfo)
		if u.TotalTokens > out.Usage.TotalTokens { // every choice repeats the response's usage
			out.Usage = u
		}
	}
	out.Text = strings.Join(texts, "\n")
	for i := range out.ToolCalls {
		if out.ToolCalls[i].ID == "" {
			out.ToolCalls[i].ID = fmt.Sprintf("call_%d", i+1)
		}
	}
	return out, nil
}

func isEmptyResponse(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "empty response") || strings.Contains(s, "unexpected length of response")
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
