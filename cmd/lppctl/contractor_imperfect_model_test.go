package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// imperfectModel is an OpenAI-compatible server (reached through the real
// langchaingo client) that plays a model building one skill for the Skill
// Contractor, and makes the mistakes a test seeds: each reply is the
// target's current version of what the state asks for, passed through the
// mistakes seeded for that state's n-th call. It records what it was told.
type imperfectModel struct {
	t   *testing.T
	srv *httptest.Server
	tg  codingTarget
	mu  sync.Mutex

	// Versions handed out in order; the last repeats.
	blueprints []string
	scripts    []string
	scores     []int
	reviews    []string
	// defects are what the model finds in its own feedback when confirming.
	defects [][]string
	// feedbacks are the scorer's feedback texts (default: the evidence was read).
	feedbacks []string
	// replanAll makes a refinement plan every file again, not only the script.
	replanAll bool
	// mistakes[state][n] rewrites the n-th reply (0-based) of the state.
	mistakes map[string]map[int]func(string) string

	calls   map[string]int      // replies given, by state
	written map[string]int      // versions handed out: "blueprint", "script"
	told    map[string][]string // the last user message of each call, by state
	sent    []modelRequest      // every request, all its messages
	tokens  struct{ in, out int }
}

// codingTarget is a coding target the imperfect model builds: its
// right blueprint and script (the mistakes derive wrong ones from them).
type codingTarget struct {
	target, skill, script string // script: the file name under scripts/
	examples              []map[string]any
	// probes are what the model proposes when asked for hidden probes
	// (inputs no example uses, with their right values).
	probes      []map[string]any
	blueprint   string // uses SCRIPT for the script's path
	good, wrong string // the script, right and with wrong logic
}

func (tg codingTarget) blueprintWith(scriptPath string) string {
	return strings.ReplaceAll(tg.blueprint, "SCRIPT", scriptPath)
}

// rightBlueprint names the script at its installed place.
func (tg codingTarget) rightBlueprint() string {
	return tg.blueprintWith("skills/" + tg.skill + "/scripts/" + tg.script)
}

func newImperfectModel(t *testing.T, tg codingTarget) *imperfectModel {
	m := &imperfectModel{
		t: t, tg: tg,
		blueprints: []string{tg.rightBlueprint()},
		scripts:    []string{tg.good},
		scores:     []int{90},
		reviews:    []string{"replan"},
		defects:    [][]string{{}},
		mistakes:   map[string]map[int]func(string) string{},
		calls:      map[string]int{}, written: map[string]int{}, told: map[string][]string{},
	}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

// seed makes the n-th reply (0-based) of state go through mistake.
func (m *imperfectModel) seed(state string, n int, mistake func(string) string) *imperfectModel {
	if m.mistakes[state] == nil {
		m.mistakes[state] = map[int]func(string) string{}
	}
	m.mistakes[state][n] = mistake
	return m
}

func pick[T any](list []T, i int) T {
	if i >= len(list) {
		return list[len(list)-1]
	}
	return list[i]
}

var writeLineRE = regexp.MustCompile(`(?m)^Write: (.+)$`)

// reply is what the model answers the state asked in first (the first user
// message of the conversation).
func (m *imperfectModel) reply(state, first string) string {
	tg := m.tg
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	switch state {
	case "planning":
		if strings.Contains(first, "Phase 1 of 2") {
			return js(map[string]any{"skill": tg.skill, "examples": tg.examples, "steps": []any{map[string]any{
				"title": "the blueprint", "files": []string{tg.skill + ".yaml"}, "instruction": "the machine of " + tg.target,
			}}})
		}
		steps := []any{map[string]any{"title": "the script", "files": []string{"scripts/" + tg.script}, "instruction": "the compute unit"}}
		if m.replanAll || !strings.Contains(first, "The last version was not good enough") {
			steps = append(steps, map[string]any{"title": "the documents", "files": []string{"skills.md", "demo.yaml", "README.md"}, "instruction": "for the Skills Agent"})
		}
		return js(map[string]any{"skill": tg.skill, "steps": steps, "examples": []any{}})
	case "executing":
		files := map[string]string{}
		w := writeLineRE.FindStringSubmatch(first)
		if w == nil {
			m.t.Errorf("imperfect model: an executing prompt without a Write: line:\n%s", first)
			return "{}"
		}
		for _, f := range strings.Split(w[1], ", ") {
			switch {
			case strings.HasSuffix(f, ".yaml") && f != "demo.yaml":
				files[f] = pick(m.blueprints, m.written["blueprint"])
				m.written["blueprint"]++
			case strings.HasSuffix(f, ".py"):
				files[f] = pick(m.scripts, m.written["script"])
				m.written["script"]++
			case f == "skills.md":
				files[f] = "# " + tg.skill + "\n\nGoal: " + tg.target + ".\n\nRun scripts/" + tg.script + " through safe_py_runner, its input as JSON on stdin.\n"
			case f == "demo.yaml":
				files[f] = "description: " + tg.skill + " offline demo\nreplies:\n  - role: planner\n    text: '{\"goal\": \"x\", \"steps\": []}'\n"
			default:
				files[f] = "# " + tg.skill + "\n\nlppctl run skills/" + tg.skill + "/" + tg.skill + ".yaml\n"
			}
		}
		return js(map[string]any{"files": files})
	case "deriving":
		// The model derives the values its examples hold (they are right).
		items := make([]any, len(tg.examples))
		for i, ex := range tg.examples {
			fails := ex["kind"] == "error"
			expect := ex["expect"]
			if fails {
				expect = map[string]any{}
			}
			items[i] = map[string]any{"name": ex["name"], "fails": fails, "expect": expect}
		}
		return js(map[string]any{"examples": items})
	case "probing":
		return js(map[string]any{"probes": tg.probes})
	case "probe_deriving":
		// The model works the probes' values out again (they are right).
		items := make([]any, len(tg.probes))
		for i, p := range tg.probes {
			items[i] = map[string]any{"name": p["name"], "fails": false, "expect": p["expect"]}
		}
		return js(map[string]any{"examples": items})
	case "evaluating":
		feedback := "the evidence was read"
		if len(m.feedbacks) > 0 {
			feedback = pick(m.feedbacks, m.calls[state])
		}
		return js(map[string]any{"score": pick(m.scores, m.calls[state]), "problems": []string{}, "feedback": feedback})
	case "confirming":
		return js(map[string]any{"defects": pick(m.defects, m.calls[state])})
	case "reviewing":
		return js(map[string]any{"decision": pick(m.reviews, m.calls[state]), "reason": "the step keeps failing"})
	}
	m.t.Errorf("imperfect model: no reply for a prompt of state %s:\n%s", state, first)
	return "{}"
}

func (m *imperfectModel) serve(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	first, last, size := "", "", 0
	for _, msg := range body.Messages {
		size += len(msg.Content)
		if msg.Role == "user" {
			if first == "" {
				first = msg.Content
			}
			last = msg.Content
		}
	}
	state := stateOf(first)
	m.mu.Lock()
	m.told[state] = append(m.told[state], last)
	all := make([]string, 0, len(body.Messages))
	for _, msg := range body.Messages {
		all = append(all, msg.Role+": "+msg.Content)
	}
	m.sent = append(m.sent, modelRequest{state: state, text: strings.Join(all, "\n")})
	n := m.calls[state]
	text := m.reply(state, first)
	if f := m.mistakes[state][n]; f != nil {
		text = f(text)
	}
	m.calls[state]++
	m.tokens.in += size / 4
	m.tokens.out += len(text) / 4
	m.mu.Unlock()
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": "imperfect",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": size / 4, "completion_tokens": len(text) / 4, "total_tokens": (size + len(text)) / 4},
	})
}

// toldIn returns every user message the state's calls ended with.
func (m *imperfectModel) toldIn(state string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.told[state]...)
}

// modelRequest is one request the model was sent: the state that asked
// and every message of it (system, user, and the assistant's own replies of
// a repair), joined.
type modelRequest struct{ state, text string }

// requests returns every request the model was sent, in order.
func (m *imperfectModel) requests() []modelRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]modelRequest(nil), m.sent...)
}

func (m *imperfectModel) callsOf(state string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[state]
}

// The mistakes an imperfect model makes in the form of its replies.
var (
	// fenced wraps the reply in a ```json fence with prose around it.
	fenced = func(s string) string {
		return "Here is the answer:\n```json\n" + s + "\n```\nLet me know if it needs changes."
	}
	// prose puts the bare JSON inside sentences.
	prose = func(s string) string { return "Sure! " + s + " That should do it." }
	// trailingCommas adds a comma before every closing bracket of the JSON
	// (outside its strings) that follows a value.
	trailingCommas = func(s string) string {
		var b strings.Builder
		inString, escaped := false, false
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case inString && escaped:
				escaped = false
			case inString && c == '\\':
				escaped = true
			case inString && c == '"':
				inString = false
			case inString:
			case c == '"':
				inString = true
			case (c == '}' || c == ']') && i > 0 && s[i-1] != '{' && s[i-1] != '[':
				b.WriteByte(',')
			}
			b.WriteByte(c)
		}
		return b.String()
	}
	// literalNewlines writes the line breaks inside JSON strings raw.
	literalNewlines = func(s string) string { return strings.ReplaceAll(s, `\n`, "\n") }
	// missingComma drops the comma between the reply's first two members.
	missingComma = func(s string) string { return strings.Replace(s, `","`, "\"\n\"", 1) }
	// oversized pads the reply far past any sane size.
	oversized = func(s string) string { return s + strings.Repeat(" ", 300_000) }
)

// The targets.
var (
	lengthTarget = codingTarget{
		target: "a skill that converts a length between units (m, km, cm, mm, ft, in, yd, mi)",
		skill:  "length_conv", script: "convert.py",
		examples: []map[string]any{
			{"name": "12 ft in m", "kind": "typical", "vars": map[string]any{"value": 12, "from_unit": "ft", "to_unit": "m"}, "expect": map[string]any{"result": 3.6576}},
			{"name": "5 km in mi", "kind": "typical", "vars": map[string]any{"value": 5, "from_unit": "km", "to_unit": "mi"}, "expect": map[string]any{"result": 3.10686}},
			{"name": "0 m in km", "kind": "edge", "vars": map[string]any{"value": 0, "from_unit": "m", "to_unit": "km"}, "expect": map[string]any{"result": 0}},
			{"name": "an unknown unit", "kind": "error", "vars": map[string]any{"value": 1, "from_unit": "parsec", "to_unit": "m"}, "expect": map[string]any{}},
		},
		blueprint: `lpp: 1
name: length_conv
description: Convert a length between units.
limits: {max_transitions: 10}
context:
  value:     {type: float, default: 1}
  from_unit: {type: string, default: m}
  to_unit:   {type: string, default: m}
  result:    {type: float, default: 0}
  report:    {type: string, default: ""}
initial: convert
states:
  convert:
    do: script.run
    with:
      script: SCRIPT
      input: {value: value, from_unit: from_unit, to_unit: to_unit}
      output: {result: result, report: report}
    next: [done]
    on_error: failed
  done:
    final: true
    do: log
    with: {message: converted, value: report}
  failed:
    final: true
    do: log
    with: {message: cannot convert, value: last_error}
`,
		probes: []map[string]any{
			{"name": "100 cm in in", "vars": map[string]any{"value": 100, "from_unit": "cm", "to_unit": "in"}, "expect": map[string]any{"result": 39.3701}},
			{"name": "7 in in mm", "vars": map[string]any{"value": 7, "from_unit": "in", "to_unit": "mm"}, "expect": map[string]any{"result": 177.8}},
			{"name": "3 yd in ft", "vars": map[string]any{"value": 3, "from_unit": "yd", "to_unit": "ft"}, "expect": map[string]any{"result": 9}},
			{"name": "1 mi in km", "vars": map[string]any{"value": 1, "from_unit": "mi", "to_unit": "km"}, "expect": map[string]any{"result": 1.609344}},
		},
		good:  lengthScript(map[string]string{"ft": "0.3048", "mi": "1609.344"}),
		wrong: lengthScript(map[string]string{"ft": "0.3", "mi": "1600.0"}),
	}
	csvTarget = codingTarget{
		target: "a skill that reports the count, mean and maximum of a numeric column of a CSV file",
		skill:  "csv_stats", script: "stats.py",
		examples: []map[string]any{
			{"name": "three values", "kind": "typical", "vars": map[string]any{"csv_path": "skills/csv_stats/reference/a.csv", "column": "value"}, "files": map[string]any{"reference/a.csv": "name,value\na,1\nb,2\nc,6\n"}, "expect": map[string]any{"count": 3, "mean": 3, "maximum": 6}},
			{"name": "one value", "kind": "typical", "vars": map[string]any{"csv_path": "skills/csv_stats/reference/b.csv", "column": "x"}, "files": map[string]any{"reference/b.csv": "x\n2.5\n"}, "expect": map[string]any{"count": 1, "mean": 2.5, "maximum": 2.5}},
			{"name": "negative values", "kind": "edge", "vars": map[string]any{"csv_path": "skills/csv_stats/reference/c.csv", "column": "x"}, "files": map[string]any{"reference/c.csv": "x\n-1\n-3\n"}, "expect": map[string]any{"count": 2, "mean": -2, "maximum": -1}},
			{"name": "a missing file", "kind": "error", "vars": map[string]any{"csv_path": "skills/csv_stats/reference/none.csv", "column": "x"}, "expect": map[string]any{}},
		},
		blueprint: `lpp: 1
name: csv_stats
description: Count, mean and maximum of a CSV column.
limits: {max_transitions: 10}
context:
  csv_path: {type: string, default: skills/csv_stats/reference/sample.csv}
  column:   {type: string, default: value}
  count:    {type: int, default: 0}
  mean:     {type: float, default: 0}
  maximum:  {type: float, default: 0}
  report:   {type: string, default: ""}
initial: stats
states:
  stats:
    do: script.run
    with:
      script: SCRIPT
      input: {path: csv_path, column: column}
      output: {count: count, mean: mean, maximum: maximum, report: report}
    next: [done]
    on_error: failed
  done:
    final: true
    do: log
    with: {message: stats, value: report}
  failed:
    final: true
    do: log
    with: {message: cannot compute, value: last_error}
`,
		probes: []map[string]any{
			{"name": "a mean that is not whole", "vars": map[string]any{"csv_path": "skills/csv_stats/reference/p1.csv", "column": "v"}, "files": map[string]any{"reference/p1.csv": "v\n1\n2\n"}, "expect": map[string]any{"count": 2, "mean": 1.5, "maximum": 2}},
			{"name": "the second column", "vars": map[string]any{"csv_path": "skills/csv_stats/reference/p2.csv", "column": "b"}, "files": map[string]any{"reference/p2.csv": "a,b\n10,3\n20,5\n7,1\n"}, "expect": map[string]any{"count": 3, "mean": 3, "maximum": 5}},
		},
		good:  csvScript("len(values)"),
		wrong: csvScript("len(values) + 1"),
	}
	logTarget = codingTarget{
		target: "a skill that counts the lines of a log file at a given level (ERROR, WARN, INFO)",
		skill:  "log_counter", script: "count_lines.py",
		examples: []map[string]any{
			{"name": "two errors", "kind": "typical", "vars": map[string]any{"log_path": "skills/log_counter/reference/app.log", "level": "ERROR"}, "files": map[string]any{"reference/app.log": "INFO start\nERROR disk full\nWARN slow\nERROR disk full again\n"}, "expect": map[string]any{"count": 2}},
			{"name": "one warning", "kind": "typical", "vars": map[string]any{"log_path": "skills/log_counter/reference/app.log", "level": "WARN"}, "files": map[string]any{"reference/app.log": "INFO start\nERROR disk full\nWARN slow\n"}, "expect": map[string]any{"count": 1}},
			{"name": "blank lines, no match", "kind": "edge", "vars": map[string]any{"log_path": "skills/log_counter/reference/blank.log", "level": "INFO"}, "files": map[string]any{"reference/blank.log": "\n\nERROR x\n"}, "expect": map[string]any{"count": 0}},
			{"name": "a missing log", "kind": "error", "vars": map[string]any{"log_path": "skills/log_counter/reference/none.log", "level": "INFO"}, "expect": map[string]any{}},
		},
		blueprint: `lpp: 1
name: log_counter
description: Count the lines of a log at a level.
limits: {max_transitions: 10}
context:
  log_path: {type: string, default: skills/log_counter/reference/app.log}
  level:    {type: string, default: ERROR}
  count:    {type: int, default: 0}
  report:   {type: string, default: ""}
initial: count_lines
states:
  count_lines:
    do: script.run
    with:
      script: SCRIPT
      input: {path: log_path, level: level}
      output: {count: count, report: report}
    next: [done]
    on_error: failed
  done:
    final: true
    do: log
    with: {message: counted, value: report}
  failed:
    final: true
    do: log
    with: {message: cannot count, value: last_error}
`,
		probes: []map[string]any{
			{"name": "two info lines", "vars": map[string]any{"log_path": "skills/log_counter/reference/p1.log", "level": "INFO"}, "files": map[string]any{"reference/p1.log": "INFO a\nINFO b\nERROR c\n"}, "expect": map[string]any{"count": 2}},
		},
		good:  logScript(`line.split()[0] == level`),
		wrong: logScript(`True`),
	}
)

func lengthScript(f map[string]string) string {
	return `"""Convert a length: {value, from_unit, to_unit} on stdin; {result, report} on stdout."""
import json
import sys

TO_M = {"m": 1.0, "km": 1000.0, "cm": 0.01, "mm": 0.001, "ft": ` + f["ft"] + `, "in": 0.0254, "yd": 0.9144, "mi": ` + f["mi"] + `}


def main():
    data = json.load(sys.stdin)
    value = float(data["value"])
    for unit in (data["from_unit"], data["to_unit"]):
        if unit not in TO_M:
            sys.exit("unknown unit %r: known are %s" % (unit, ", ".join(TO_M)))
    result = value * TO_M[data["from_unit"]] / TO_M[data["to_unit"]]
    print(json.dumps({"result": result, "report": "%g %s = %.6g %s" % (value, data["from_unit"], result, data["to_unit"])}))


if __name__ == "__main__":
    main()
`
}

func csvScript(denominator string) string {
	return `"""Stats of a CSV column: {path, column} on stdin; {count, mean, maximum, report} on stdout."""
import csv
import json
import sys


def main():
    data = json.load(sys.stdin)
    try:
        with open(data["path"], encoding="utf-8", newline="") as f:
            values = [float(row[data["column"]]) for row in csv.DictReader(f)]
    except OSError as e:
        sys.exit("cannot read %s: %s" % (data["path"], e.strerror))
    mean = sum(values) / (` + denominator + `)
    print(json.dumps({"count": len(values), "mean": mean, "maximum": max(values), "report": "count %d, mean %g, max %g" % (len(values), mean, max(values))}))


if __name__ == "__main__":
    main()
`
}

func logScript(match string) string {
	return `"""Count log lines at a level: {path, level} on stdin; {count, report} on stdout."""
import json
import sys


def main():
    data = json.load(sys.stdin)
    level = data["level"]
    try:
        with open(data["path"], encoding="utf-8") as f:
            count = sum(1 for line in f if line.strip() and ` + match + `)
    except OSError as e:
        sys.exit("cannot read %s: %s" % (data["path"], e.strerror))
    print(json.dumps({"count": count, "report": "%d %s line(s)" % (count, level)}))


if __name__ == "__main__":
    main()
`
}

// deadlocked is a blueprint whose script state has no way out.
func deadlocked(bp string) string {
	return regexp.MustCompile(`(?m)^    next: \[done\]\n    on_error: failed\n`).ReplaceAllString(bp, "")
}

// withImport adds an import to a script.
func withImport(script, module string) string {
	return strings.Replace(script, "import json\n", "import json\nimport "+module+"\n", 1)
}

func (tg codingTarget) String() string { return fmt.Sprintf("%s (%s)", tg.skill, tg.target) }
