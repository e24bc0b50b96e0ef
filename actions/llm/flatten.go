package llm

import (
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// flattenToolBlocks rewrites a history for a request that offers no tools
// (the evaluator's last, verdict-only request): Anthropic-compatible
// endpoints (Bedrock) refuse tool_use and tool_result blocks in a request
// without tool definitions, and langchaingo's Anthropic client cannot send
// tool_choice "none". So each tool call becomes a line of the assistant's
// text, each tool result a user message quoting it, and consecutive
// messages of one role are joined (the Messages API wants the roles to
// alternate). The model still sees every call and result.
func flattenToolBlocks(in []Message) []llms.MessageContent {
	type turn struct {
		role  llms.ChatMessageType
		texts []string
	}
	var turns []turn
	add := func(role llms.ChatMessageType, text string) {
		if n := len(turns); n > 0 && turns[n-1].role == role && role != llms.ChatMessageTypeSystem {
			turns[n-1].texts = append(turns[n-1].texts, text)
			return
		}
		turns = append(turns, turn{role, []string{text}})
	}
	for _, m := range in {
		switch m.Role {
		case RoleSystem:
			add(llms.ChatMessageTypeSystem, m.Text)
		case RoleUser:
			add(llms.ChatMessageTypeHuman, nonEmpty(m.Text))
		case RoleAssistant:
			var b strings.Builder
			if strings.TrimSpace(m.Text) != "" || len(m.ToolCalls) == 0 {
				b.WriteString(nonEmpty(m.Text))
			}
			for _, tc := range m.ToolCalls {
				if b.Len() > 0 {
					b.WriteString("\n")
				}
				b.WriteString("[tool call " + tc.ID + "] " + tc.Name + " " + tc.Arguments)
			}
			add(llms.ChatMessageTypeAI, b.String())
		case RoleTool:
			add(llms.ChatMessageTypeHuman, "[tool result "+m.ToolCallID+" ("+m.Name+")]\n"+nonEmpty(m.Text))
		}
	}
	out := make([]llms.MessageContent, len(turns))
	for i, t := range turns {
		out[i] = llms.TextParts(t.role, strings.Join(t.texts, "\n\n"))
	}
	return out
}
