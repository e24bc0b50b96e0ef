// Package llm is the Skills Agent's view of a language model: chat messages
// with native tool calls, a Client interface, the langchaingo-backed
// providers (openai, anthropic, ollama) with retries on transient errors,
// and a scripted model that replays replies from a YAML file for tests and
// offline demos.
package llm

import (
	"context"
	"encoding/json"
	"time"
)

// Roles of chat messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one chat message. It is stored as JSON in run memory (L3), so
// its fields are stable.
type Message struct {
	Role       string     `json:"role"`
	Text       string     `json:"text,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`   // assistant: the calls the model asked for
	ToolCallID string     `json:"tool_call_id,omitempty"` // tool: the call this result answers
	Name       string     `json:"name,omitempty"`         // tool: the tool's name
}

// ToolCall is one tool call the model asked for. Arguments is the raw JSON
// text the model produced (it may be malformed).
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool describes a tool the model may call; Parameters is a JSON schema.
type Tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

// Request is one model call.
type Request struct {
	Agent    string    // planner, optimizer, evaluator or teacher (the scripted model matches on it)
	State    string    // the spec state of an llm.generate call ("" for the agent's roles); the scripted model matches on it
	Step     int       // 1-based plan step (0 outside steps)
	Turn     int       // how many calls this agent already made in this step (the scripted model's cursor)
	Messages []Message // system prompt first
	Tools    []Tool    // offered tools (nil: none)
	JSON     bool      // ask for a JSON object answer where the provider supports it
}

// Usage is the token usage of one call, as the provider reported it.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Reply is the model's answer.
type Reply struct {
	Text         string
	ToolCalls    []ToolCall
	Usage        Usage
	UsageMissing bool   // the server reported no token usage (Usage is all 0)
	StopReason   string // the provider's finish reason; "length": cut at the token limit
	Attempts     int    // HTTP attempts it took (1 without retries)
	// ThoughtOnly: the reply has no text because all the model wrote was
	// its reasoning (reasoning_content only, or a thought block that never
	// closed), not because it wrote nothing.
	ThoughtOnly bool
}

// Client is a language model.
type Client interface {
	// Generate sends the request; transient failures are retried inside.
	Generate(ctx context.Context, req Request) (Reply, error)
	// Name is "provider:model" as shown to people, e.g. "openai:gpt-4o-mini".
	Name() string
}

// CallRecord is one line of the LLM call log (JSON lines).
type CallRecord struct {
	Time       time.Time `json:"time"`
	Model      string    `json:"model"`
	Agent      string    `json:"agent"`
	State      string    `json:"state,omitempty"` // the spec state of an llm.generate call
	Step       int       `json:"step"`
	Turn       int       `json:"turn"`
	Messages   int       `json:"messages"`
	PromptChar int       `json:"prompt_chars"` // characters of every message sent (a provider-independent size)
	Usage      Usage     `json:"usage"`
	NoUsage    bool      `json:"usage_missing,omitempty"` // the server reported no usage: the tokens are unknown, not 0
	StopReason string    `json:"finish_reason,omitempty"`
	ToolCalls  int       `json:"tool_calls"`
	ReplyChars int       `json:"reply_chars"`
	Attempts   int       `json:"attempts"`
	DurationMS float64   `json:"duration_ms"`
	Error      string    `json:"error,omitempty"`
	// PromptIDs, ToolsID and ReplyID name the messages as sent, the tools
	// offered and the reply in the run's prompts.jsonl (internal/promptlog).
	PromptIDs []string `json:"prompt_ids,omitempty"`
	ToolsID   string   `json:"tools_id,omitempty"`
	ReplyID   string   `json:"reply_id,omitempty"`
}

// PromptChars is the size of the messages of a request, in characters.
func PromptChars(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Text)
		for _, tc := range m.ToolCalls {
			n += len(tc.Name) + len(tc.Arguments)
		}
	}
	return n
}

// MarshalMessages renders messages as JSON (for logs and debugging).
func MarshalMessages(msgs []Message) string {
	b, _ := json.Marshal(msgs)
	return string(b)
}
