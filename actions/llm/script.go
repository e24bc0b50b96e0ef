package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// Script is the scripted model (--llm script:FILE): it replays replies from a
// YAML file instead of calling a provider. Tools still run for real.
//
//	replies:
//	  - role: planner                  # planner, optimizer, evaluator or teacher
//	    text: '{"goal": "...", "steps": [...]}'
//	  - role: optimizer
//	    step: 1                        # 1-based plan step; leave out to match any step
//	    tool_calls:
//	      - name: safe_py_runner
//	        arguments: {script_name: scripts/write_file.py, args: [out.txt], stdin_text: hi}
//	  - role: optimizer
//	    step: 1
//	    text: "[ATTEMPTS_COMPLETE] done"
//	    repeat: true                   # serves every later call too
//
// The replies matching a call's role and step are served in file order: the
// n-th call of a role within a step (Request.Turn, counted in run memory, so
// a resumed run continues where it stopped) gets the n-th matching reply.
type Script struct {
	File        string        `yaml:"-"`
	Description string        `yaml:"description"`
	Replies     []ScriptReply `yaml:"replies"`
}

// ScriptReply is one scripted reply.
type ScriptReply struct {
	Role      string           `yaml:"role"`
	State     string           `yaml:"state"` // answers the llm.generate calls of this spec state (instead of a role)
	Step      int              `yaml:"step"`
	Text      string           `yaml:"text"`
	ToolCalls []ScriptToolCall `yaml:"tool_calls"`
	Repeat    bool             `yaml:"repeat"`
	Error     string           `yaml:"error"` // make the call fail with this message (tests)
	// WhenPromptContains and WhenPromptLacks make the reply a candidate only
	// for a request whose messages hold (lack) the text (see script_when.go).
	WhenPromptContains string `yaml:"when_prompt_contains"`
	WhenPromptLacks    string `yaml:"when_prompt_lacks"`
	Line               int    `yaml:"-"`
}

// ScriptToolCall is a scripted tool call. Arguments is a mapping (sent as
// JSON) or a string (sent as it is, so it may be malformed on purpose).
type ScriptToolCall struct {
	ID        string    `yaml:"id"`
	Name      string    `yaml:"name"`
	Arguments yaml.Node `yaml:"arguments"`
}

// LoadScript reads a script file.
func LoadScript(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot load LLM script: %w", err)
	}
	return ParseScript(path, data)
}

// ParseScript decodes a script.
func ParseScript(path string, data []byte) (*Script, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("cannot load LLM script %s: %w", path, err)
	}
	s := &Script{File: path}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(s); err != nil {
		return nil, fmt.Errorf("cannot load LLM script %s: %w", path, err)
	}
	s.File = path
	// positions of the replies, for messages
	if len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		m := doc.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == "replies" && m.Content[i+1].Kind == yaml.SequenceNode {
				for j, n := range m.Content[i+1].Content {
					if j < len(s.Replies) {
						s.Replies[j].Line = n.Line
					}
				}
			}
		}
	}
	for i, r := range s.Replies {
		if err := r.checkState(); err != nil {
			return nil, fmt.Errorf("cannot load LLM script %s: reply %d (line %d): %w", path, i+1, r.Line, err)
		}
		if r.State != "" {
			continue
		}
		switch r.Role {
		case "planner", "optimizer", "evaluator", "teacher":
		default:
			return nil, fmt.Errorf("cannot load LLM script %s: reply %d (line %d): role %q is not planner, optimizer, evaluator or teacher", path, i+1, r.Line, r.Role)
		}
		for _, tc := range r.ToolCalls {
			if tc.Name == "" {
				return nil, fmt.Errorf("cannot load LLM script %s: reply %d (line %d): a tool call has no name", path, i+1, r.Line)
			}
		}
	}
	if len(s.Replies) == 0 {
		return nil, fmt.Errorf("cannot load LLM script %s: it has no replies", path)
	}
	return s, nil
}

// Name implements Client.
func (s *Script) Name() string { return "script:" + s.File }

// Generate implements Client.
func (s *Script) Generate(_ context.Context, req Request) (Reply, error) {
	var cands []*ScriptReply
	for i := range s.Replies {
		r := &s.Replies[i]
		if r.answers(req) && r.promptMatches(req) {
			cands = append(cands, r)
		}
	}
	where := req.where()
	if len(cands) == 0 {
		if s.conditional(req) {
			return Reply{}, fmt.Errorf("cannot reply from script %s: no reply for the %s has a when_prompt_contains/when_prompt_lacks that this prompt meets", s.File, where)
		}
		return Reply{}, fmt.Errorf("cannot reply from script %s: it has no reply for the %s", s.File, where)
	}
	r := cands[len(cands)-1]
	switch {
	case req.Turn < len(cands):
		r = cands[req.Turn]
	case !r.Repeat:
		return Reply{}, fmt.Errorf("cannot reply from script %s: the %s asked for reply #%d but the script has only %d (mark the last one repeat: true to reuse it)", s.File, where, req.Turn+1, len(cands))
	}
	if r.Error != "" {
		return Reply{}, fmt.Errorf("scripted error (%s line %d): %s", s.File, r.Line, r.Error)
	}
	out := Reply{Text: r.Text, Attempts: 1}
	for i, tc := range r.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d_%d", req.Step, req.Turn+1, i+1)
		}
		args, err := scriptArgs(&tc.Arguments)
		if err != nil {
			return Reply{}, fmt.Errorf("cannot reply from script %s line %d: %w", s.File, r.Line, err)
		}
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: id, Name: tc.Name, Arguments: args})
	}
	out.Usage = Usage{PromptTokens: PromptChars(req.Messages) / 4, CompletionTokens: (len(out.Text) + len(fmt.Sprint(out.ToolCalls))) / 4}
	out.Usage.TotalTokens = out.Usage.PromptTokens + out.Usage.CompletionTokens
	return out, nil
}

func scriptArgs(n *yaml.Node) (string, error) {
	switch n.Kind {
	case 0:
		return "{}", nil
	case yaml.ScalarNode:
		return n.Value, nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}
