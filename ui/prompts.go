package ui

import (
	"encoding/json"
	"path/filepath"
	"slices"

	"github.com/lppctl/lppctl/internal/promptlog"
	"github.com/lppctl/lppctl/machine/runstore"
)

// sentMessage is one message of a model call as the page shows it: a
// message as sent or the reply.
type sentMessage struct {
	Role       string
	Text       string
	ToolCalls  []sentToolCall // an assistant's: the calls the model asked for
	ToolCallID string         // a tool result's: the call it answers
	Name       string         // a tool result's: the tool
	Missing    bool           // not in prompts.jsonl (a torn or removed file)
}

type sentToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// offeredTools are the tools offered to a model call.
type offeredTools struct {
	Names []string
	Raw   string // their definitions (JSON)
}

// callMessages are the messages of a model call, read from the run's
// prompts.jsonl by the IDs its llm.jsonl line names.
type callMessages struct {
	Sent  []sentMessage
	Tools *offeredTools
	Reply *sentMessage
}

// promptIndexesKept is how many runs' prompts.jsonl indexes the server
// keeps (recent).
const promptIndexesKept = 16

// resolveMessages fills the messages of the calls that name them, looking
// them up in the run's prompts.jsonl in dir through its index (which reads
// only what was appended since the last page).
func (s *Server) resolveMessages(dir string, calls []*logLine) {
	var want []string
	for _, c := range calls {
		want = append(want, c.PromptIDs...)
		want = append(want, c.ToolsID, c.ReplyID)
	}
	want = slices.DeleteFunc(want, func(id string) bool { return id == "" })
	if len(want) == 0 {
		return
	}
	path := filepath.Join(dir, runstore.PromptsFile)
	vals, err := s.prompts.get(path, func() *promptlog.Index { return promptlog.NewIndex(path) }).Read(want)
	if err != nil {
		vals = nil // shown as not recorded
	}
	for _, c := range calls {
		if len(c.PromptIDs) == 0 && c.ReplyID == "" {
			continue
		}
		m := &callMessages{}
		for _, id := range c.PromptIDs {
			m.Sent = append(m.Sent, decodeMessage(vals[id]))
		}
		if c.ToolsID != "" {
			m.Tools = decodeTools(vals[c.ToolsID])
		}
		if c.ReplyID != "" {
			r := decodeMessage(vals[c.ReplyID])
			m.Reply = &r
		}
		c.Messages = m
	}
}

func decodeMessage(raw json.RawMessage) sentMessage {
	if raw == nil {
		return sentMessage{Missing: true}
	}
	var v struct {
		Role       string         `json:"role"`
		Text       string         `json:"text"`
		ToolCalls  []sentToolCall `json:"tool_calls"`
		ToolCallID string         `json:"tool_call_id"`
		Name       string         `json:"name"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return sentMessage{Missing: true}
	}
	return sentMessage{Role: v.Role, Text: v.Text, ToolCalls: v.ToolCalls, ToolCallID: v.ToolCallID, Name: v.Name}
}

func decodeTools(raw json.RawMessage) *offeredTools {
	var tools []struct {
		Name string `json:"name"`
	}
	if raw == nil || json.Unmarshal(raw, &tools) != nil {
		return &offeredTools{Names: []string{"(not recorded)"}}
	}
	t := &offeredTools{Raw: string(raw)}
	for _, x := range tools {
		t.Names = append(t.Names, x.Name)
	}
	return t
}
