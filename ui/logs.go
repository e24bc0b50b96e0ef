package ui

import (
	"bufio"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"time"
)

// logLine is one line of a run's llm.jsonl or audit.jsonl, as the timeline
// shows it. Lines are matched to the step whose action was running when
// they were written (their time within the step's start and duration).
type logLine struct {
	Time time.Time
	// llm.jsonl
	Agent  string
	Model  string
	Tokens int
	// PromptChars, ReplyChars and Stop: the call's sizes and finish reason
	PromptChars, ReplyChars int
	Stop                    string
	Raw                     string // the whole line, for the call's details
	// PromptIDs, ToolsID and ReplyID name the call's messages in
	// prompts.jsonl; Messages holds them once read (resolveMessages)
	PromptIDs        []string
	ToolsID, ReplyID string
	Messages         *callMessages
	// audit.jsonl: a tool call and the gateway's verdict
	Tool     string
	Sub      string
	Params   string
	Decision string // allow, block, error...
	Rule     string
	Exit     *int
	Detail   string
}

// readLog reads a JSON-lines log; unreadable lines are skipped (a log is
// for people, the journal is the truth).
func readLog(path string, audit bool) []logLine {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []logLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		t, _ := time.Parse(time.RFC3339Nano, str(m["time"]))
		l := logLine{Time: t}
		if audit {
			l.Tool, l.Sub, l.Decision, l.Rule = str(m["tool"]), str(m["sub_command"]), str(m["decision"]), str(m["rule"])
			l.Detail = firstStr(m, "reason", "error", "message")
			if p, ok := m["params"]; ok {
				b, _ := json.Marshal(p)
				l.Params = string(b)
			}
			if n, ok := m["exit_code"].(float64); ok {
				c := int(n)
				l.Exit = &c
			}
		} else {
			l.Agent, l.Model = str(m["agent"]), str(m["model"])
			l.Tokens = tokensOf(m)
			l.PromptChars, l.ReplyChars, l.Stop = num(m["prompt_chars"]), num(m["reply_chars"]), str(m["finish_reason"])
			l.Detail = str(m["error"])
			l.Raw = sc.Text()
			l.ToolsID, l.ReplyID = str(m["tools_id"]), str(m["reply_id"])
			if ids, ok := m["prompt_ids"].([]any); ok {
				for _, id := range ids {
					l.PromptIDs = append(l.PromptIDs, str(id))
				}
			}
		}
		out = append(out, l)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}

// within returns the lines written in [from, to] (lines sorted by time).
func within(lines []logLine, from, to time.Time) []logLine {
	i := sort.Search(len(lines), func(i int) bool { return !lines[i].Time.Before(from) })
	j := i
	for j < len(lines) && !lines[j].Time.After(to) {
		j++
	}
	return lines[i:j]
}

// tokensOf reads a call's token usage as runstore.Run.Tokens does: total, or
// input + output, at the top level or under "usage".
func tokensOf(m map[string]any) int {
	for _, mm := range []map[string]any{m, asMap(m["usage"])} {
		if mm == nil {
			continue
		}
		if n := num(mm["total_tokens"]); n > 0 {
			return n
		}
		in := max(num(mm["prompt_tokens"]), num(mm["input_tokens"]))
		out := max(num(mm["completion_tokens"]), num(mm["output_tokens"]))
		if in+out > 0 {
			return in + out
		}
	}
	return 0
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }

func num(v any) int { n, _ := v.(float64); return int(n) }

func str(v any) string { s, _ := v.(string); return s }

func firstStr(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := strings.TrimSpace(str(m[k])); s != "" {
			return s
		}
	}
	return ""
}
