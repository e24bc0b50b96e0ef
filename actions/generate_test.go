package actions

import (
	"encoding/json"
	"github.com/lppctl/lppctl/actions/replyjson"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/actions/llm"
	"github.com/lppctl/lppctl/machine"
)

const generateSpec = `
lpp: 1
name: gen
context:
  topic:  {type: string, default: lamps}
  title:  {type: string, default: ""}
  words:  {type: int, default: 0}
  reply:  {type: string, default: ""}
  failed: {type: string, default: ""}
initial: ask
states:
  ask:
    do: llm.generate
    with:
      system: sys.md
      prompt: ask.md
      output: reply
      schema: {type: object, properties: {title: {type: string}, words: {type: integer}}, required: [title, words]}
      map: {title: /title, words: /words}
      repairs: 1
    next: [{to: done}]
    on_error: {to: broken, set: {failed: last_error}}
  done: {final: true}
  broken: {final: true}
`

func TestGenerateRepairsThenMapsTypedFields(t *testing.T) {
	p := newProject(t, map[string]string{
		"a/spec.yaml": generateSpec,
		"a/sys.md":    "You name things.",
		"a/ask.md":    "Name a book about {{.topic}}.",
		"a/demo.yaml": `replies:
  - state: ask
    text: 'Sure! {"title": "Lamps"}'
  - state: ask
    text: "` + "```json\\n{\\\"title\\\": \\\"Lamps\\\", \\\"words\\\": 1200}\\n```" + `"
`,
	})
	rec := &recorder{}
	r, err := p.run("a/spec.yaml", p.deps("a", "demo.yaml"), nil, machine.WithObserver(rec))
	if err != nil {
		t.Fatal(err)
	}
	if r.State() != "done" || r.Var("title") != "Lamps" || r.Var("words") != 1200 || r.Var("reply") != `{"title": "Lamps", "words": 1200}` {
		t.Fatalf("state %s vars %v", r.State(), r.Vars())
	}
	if want := "the reply was invalid (it does not satisfy the schema: required: missing properties: [\"words\"]); asking again\n"; !strings.Contains(notes(rec.recs), want) {
		t.Errorf("notes:\n%s\nwant first: %s", notes(rec.recs), want)
	}
	// Both calls are logged with the state and token usage.
	lines := strings.Split(strings.TrimSpace(p.llm.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("LLM log has %d lines:\n%s", len(lines), p.llm.String())
	}
	for i, l := range lines {
		var cr llm.CallRecord
		if err := json.Unmarshal([]byte(l), &cr); err != nil {
			t.Fatal(err)
		}
		if cr.State != "ask" || cr.Agent != "llm.generate" || cr.Turn != i || cr.Usage.TotalTokens == 0 {
			t.Errorf("call %d: %+v", i, cr)
		}
	}
}

func TestGenerateFailsAfterRepairsSoOnErrorRoutes(t *testing.T) {
	p := newProject(t, map[string]string{
		"a/spec.yaml": generateSpec,
		"a/sys.md":    "You name things.",
		"a/ask.md":    "Name a book about {{.topic}}.",
		"a/demo.yaml": `replies:
  - state: ask
    text: '{"title": "Lamps", "words": "many"}'
    repeat: true
`,
	})
	r, err := p.run("a/spec.yaml", p.deps("a", "demo.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `the model's reply in state "ask" is still invalid after 1 repair(s): it does not satisfy the schema: validating /properties/words: type: "many" is a string, want an integer`
	if r.State() != "broken" || r.Var("failed") != want {
		t.Fatalf("state %s, failed %q\nwant %q", r.State(), r.Var("failed"), want)
	}
}

func TestGenerateWithoutSchemaWritesText(t *testing.T) {
	p := newProject(t, map[string]string{
		"a/spec.yaml": `
lpp: 1
name: plain
context:
  topic: {type: string, default: tea}
  text:  {type: string, default: ""}
initial: say
states:
  say:
    do: llm.generate
    with: {prompt: p.md, output: text}
    next: [{to: done}]
  done: {final: true}
`,
		"a/p.md":      `Say something about {{.topic}}; memory says {{memory "nothing"}}.`,
		"a/demo.yaml": "replies:\n  - state: say\n    text: '  Tea is hot.  '\n",
	})
	r, err := p.run("a/spec.yaml", p.deps("a", "demo.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Var("text") != "Tea is hot." {
		t.Fatalf("text %q", r.Var("text"))
	}
}

func TestGenerateRunsOfferedToolsThroughTheGateway(t *testing.T) {
	p := newProject(t, map[string]string{
		"notes.txt": "the answer is 42\n",
		"a/spec.yaml": `
lpp: 1
name: tools
context:
  answer: {type: string, default: ""}
initial: look
states:
  look:
    do: llm.generate
    with: {prompt: p.md, output: answer, tools: [safe_cli_executor], max_rounds: 2}
    next: [{to: done}]
  done: {final: true}
`,
		"a/p.md": "What is the answer in notes.txt?",
		"a/demo.yaml": `replies:
  - state: look
    tool_calls:
      - {name: safe_cli_executor, arguments: {tool_name: read_file, path: notes.txt}}
      - {name: safe_py_runner, arguments: {script_name: scripts/x.py}}
      - {name: safe_cli_executor, arguments: {tool_name: read_file, path: ../outside}}
  - state: look
    text: "42"
`,
	})
	rec := &recorder{}
	r, err := p.run("a/spec.yaml", p.deps("a", "demo.yaml"), nil, machine.WithObserver(rec))
	if err != nil {
		t.Fatal(err)
	}
	if r.Var("answer") != "42" {
		t.Fatalf("answer %q", r.Var("answer"))
	}
	got := notes(rec.recs)
	for _, want := range []string{
		"safe_cli_executor {\"path\":\"notes.txt\",\"tool_name\":\"read_file\"} → allow: the answer is 42\n",
		"safe_py_runner {\"script_name\":\"scripts/x.py\"} → block: [SECURITY BLOCKED] tool-not-offered: state \"look\" offers only safe_cli_executor\n",
		"→ block: [SECURITY BLOCKED] path-",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("notes lack %q:\n%s", want, got)
		}
	}
	// The gateway audited the two calls it saw; the one not offered never reached it.
	if n := strings.Count(p.audit.String(), "\n"); n != 2 {
		t.Errorf("audit has %d lines:\n%s", n, p.audit.String())
	}
}

func TestGenerateStopsAfterMaxRounds(t *testing.T) {
	p := newProject(t, map[string]string{
		"a/spec.yaml": `
lpp: 1
name: loop
context:
  answer: {type: string, default: ""}
initial: look
states:
  look:
    do: llm.generate
    with: {prompt: p.md, output: answer, tools: [safe_cli_executor], max_rounds: 1}
    next: [{to: done}]
  done: {final: true}
`,
		"a/p.md": "Look around.",
		"a/demo.yaml": `replies:
  - state: look
    tool_calls: [{name: safe_cli_executor, arguments: {tool_name: list_files}}]
    repeat: true
`,
	})
	_, err := p.run("a/spec.yaml", p.deps("a", "demo.yaml"), nil)
	want := `action failed: llm.generate in state "look": the model still asks for tools after 1 rounds (max_rounds 1) in state "look"`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

func TestExtractJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a": 1}`, `{"a": 1}`},
		{`[1, 2]`, `[1, 2]`},
		{"Here:\n```json\n{\"a\": 1}\n```\nDone.", `{"a": 1}`},
		{"Here:\n```\n[1]\n```", `[1]`},
		{`The answer is {"a": {"b": 2}} as asked.`, `{"a": {"b": 2}}`},
	} {
		got, err := replyjson.Extract(c.in)
		if err != nil || got != c.want {
			t.Errorf("extractJSON(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := replyjson.Extract("no json here"); err == nil || err.Error() != "the reply holds no JSON object; answer with one JSON object and nothing else" {
		t.Errorf("got %v", err)
	}
	if _, err := replyjson.Extract("{0}"); err == nil || err.Error() != `the reply's JSON does not parse: line 1, column 2: "0" where a key in double quotes belongs (keys need double quotes); answer with one valid JSON object and nothing else` {
		t.Errorf("got %v", err)
	}
}

func TestPointerGet(t *testing.T) {
	v, _ := replyjson.Decode(`{"a": {"b/c": [10, {"d": true}]}, "e~f": 1}`)
	for ptr, want := range map[string]string{
		"/a/b~1c/0":   "10",
		"/a/b~1c/1/d": "true",
		"/e~0f":       "1",
		"/a/x":        "error: the reply has no /a/x (the object at /a has keys b/c)",
		"/a/b~1c/5":   "error: the reply has no /a/b~1c/5 (the array at /a/b/c has 2 items)",
		"/e~0f/g":     "error: the reply has no /e~0f/g (/e~f is an integer, not an object or array)",
		"a":           `error: "a" is not a JSON pointer: it must start with /, e.g. /summary`,
	} {
		got, err := replyjson.PointerGet(v, ptr)
		s := JSONText(got)
		if err != nil {
			s = "error: " + err.Error()
		}
		if s != want {
			t.Errorf("%s: got %s, want %s", ptr, s, want)
		}
	}
}
