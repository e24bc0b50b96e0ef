package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/internal/testenv"
	"github.com/lppctl/lppctl/machine/runstore"
)

// A brand-new agent written from files only: a spec with prompts, a JSON
// Schema, a Python compute script, a tools.call, a child spec and scripted
// replies in its demo.yaml.
var newAgentFiles = map[string]string{
	"notes.txt": "Lamps were once lit by hand.\n",
	"agents/book/agent.yaml": `lpp: 1
name: book
context:
  topic:   {type: string, default: lamps}
  notes:   {type: string, default: ""}
  title:   {type: string, default: ""}
  words:   {type: int, default: 0}
  long:    {type: bool, default: false}
  doubled: {type: int, default: 0}
initial: read
states:
  read:
    do: tools.call
    with: {tool: safe_cli_executor, command: read_file, args: {path: '"notes.txt"'}, result: notes}
    next: [{to: name}]
  name:
    do: llm.generate
    with:
      system: prompts/system.md
      prompt: prompts/name.md
      schema: {type: object, properties: {title: {type: string}, words: {type: integer}}, required: [title, words]}
      map: {title: /title, words: /words}
    next: [{to: measure}]
  measure:
    do: script.run
    with: {script: scripts/measure.py, input: {words: words}, output: {long: long}}
    next: [{to: sub}]
  sub:
    do: spec.run
    with: {spec: child.yaml, input: {n: words}, output: {doubled: doubled}}
    next: [{to: done}]
  done: {final: true}
`,
	"agents/book/child.yaml": `lpp: 1
name: child
context:
  n:       {type: int, default: 0}
  doubled: {type: int, default: 0}
initial: one
states:
  one:   {do: noop, next: [{to: two}]}
  two:   {do: noop, next: [{to: three}]}
  three: {do: noop, next: [{to: done, set: {doubled: n * 2}}]}
  done:  {final: true}
`,
	"agents/book/prompts/system.md": "You name books. Answer with JSON.\n",
	"agents/book/prompts/name.md":   "Name a book about {{.topic}}. Notes: {{.notes}}\n",
	"agents/book/demo.yaml": `replies:
  - state: name
    text: 'Here it is: {"title": "Hand-lit", "words": 21}'
`,
	"scripts/measure.py": `import json, sys
d = json.load(sys.stdin)
print(json.dumps({"long": d["words"] > 20}))
`,
}

func newAgentProject(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	copyTree(t, filepath.Join(repoRoot(t), "config", "tools_config.yaml"), filepath.Join(root, "config", "tools_config.yaml"))
	for name, text := range newAgentFiles {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// runVars returns the final context of the project's only run.
func runVars(t *testing.T, root string) (runstore.Meta, map[string]any) {
	t.Helper()
	meta, snap := foldRun(t, filepath.Join(root, runstore.DefaultDir), runIDIn(t, root))
	return meta, snap.Vars
}

// foldRun rebuilds the run id of the store dir from its journal.
func foldRun(t *testing.T, dir, id string) (runstore.Meta, *runstore.Snapshot) {
	t.Helper()
	run, err := runstore.New(dir).Open(id)
	if err != nil {
		t.Fatal(err)
	}
	l, err := run.ReadJournal()
	if err != nil {
		t.Fatal(err)
	}
	if l.Torn != 0 {
		t.Errorf("the journal ends with a torn line: %s", l.TornNote())
	}
	snap, err := runstore.Fold(nil, run.Meta.Vars, l)
	if err != nil {
		t.Fatal(err)
	}
	return run.Meta, snap
}

func TestBuildYourOwnAgentRunsAndResumesAfterAKillInsideTheChild(t *testing.T) {
	testenv.Python(t) // the example's steps are Python scripts
	t.Parallel()      // child processes: independent of the other tests
	bin := buildLppctl(t)
	want := map[string]any{"title": "Hand-lit", "words": 21, "long": true, "doubled": 42, "notes": "Lamps were once lit by hand.\n"}
	check := func(t *testing.T, root string) {
		t.Helper()
		meta, vars := runVars(t, root)
		if meta.Status != "completed" || meta.State != "done" {
			t.Fatalf("run %s in %s", meta.Status, meta.State)
		}
		for k, v := range want {
			if got := vars[k]; fmt.Sprint(got) != fmt.Sprint(v) {
				t.Errorf("%s = %v, want %v", k, got, v)
			}
		}
	}

	t.Run("validate and run", func(t *testing.T) {
		root := newAgentProject(t)
		if res := runChild(t, bin, root, "", "validate", "agents/book/agent.yaml"); res.code != 0 {
			t.Fatalf("validate: exit %d\n%s", res.code, res.out)
		}
		res := runChild(t, bin, root, "", "run", "agents/book/agent.yaml")
		if res.code != 0 {
			t.Fatalf("run: exit %d\n%s", res.code, res.out)
		}
		for _, s := range []string{"child spec child.yaml completed in state done after 4 step(s)", "completed in done after 5 steps"} {
			if !strings.Contains(res.out, s) {
				t.Errorf("output lacks %q:\n%s", s, res.out)
			}
		}
		check(t, root)
	})

	// The parent journals its start and read, name, measure (lines 1-4); the
	// child its steps one, two and three, which ends it (process lines 5-7).
	// A kill after any of the child's lines leaves the parent in state sub;
	// after line 7 the child is done and the parent has not recorded it.
	for _, n := range []int{5, 6, 7} {
		t.Run(fmt.Sprintf("kill -9 after journal line %d", n), func(t *testing.T) {
			root := newAgentProject(t)
			res := runChild(t, bin, root, fmt.Sprintf("journal-after-write:%d", n), "run", "agents/book/agent.yaml")
			if !res.killed {
				t.Fatalf("not killed (exit %d)\n%s", res.code, res.out)
			}
			id := runIDIn(t, root)
			children, err := filepath.Glob(filepath.Join(root, runstore.DefaultDir, id, "children", "*", runstore.JournalFile))
			if err != nil || len(children) != 1 {
				t.Fatalf("child journals: %v %v", children, err)
			}
			// Killed inside the child: the parent is in sub, the child not done.
			if _, snap := foldRun(t, filepath.Join(root, runstore.DefaultDir), id); snap.State != "sub" {
				t.Fatalf("the parent is in %s, not sub", snap.State)
			}
			childDir := filepath.Dir(children[0])
			if _, snap := foldRun(t, filepath.Dir(childDir), filepath.Base(childDir)); snap.Done != (n == 7) {
				t.Fatalf("the child was in %s (done: %v) when killed", snap.State, snap.Done)
			}
			res = runChild(t, bin, root, "", "resume", id)
			if res.code != 0 {
				t.Fatalf("resume: exit %d\n%s", res.code, res.out)
			}
			check(t, root)
			child, err := runstore.New(filepath.Dir(filepath.Dir(children[0]))).Open(filepath.Base(filepath.Dir(children[0])))
			if err != nil {
				t.Fatal(err)
			}
			l, err := child.ReadJournal()
			if err != nil {
				t.Fatal(err)
			}
			var states []string
			for _, r := range l.Records {
				states = append(states, r.From)
			}
			if got := strings.Join(states, " "); got != "one two three done" || child.Meta.Status != "completed" {
				b, _ := json.Marshal(child.Meta)
				t.Errorf("child steps %q (each once), meta %s", got, b)
			}
		})
	}
}

// The summarise example runs offline from its demo.yaml, as the README says:
// the first summary is too long, the script's feedback gets a second that fits.
func TestSummariseExampleRunsOffline(t *testing.T) {
	testenv.Python(t) // the example's steps are Python scripts
	t.Parallel()      // child processes: independent of the other tests
	bin := buildLppctl(t)
	src, root := repoRoot(t), t.TempDir()
	for _, p := range []string{"config/tools_config.yaml", "scripts/summarise", "specs/examples/summarise"} {
		copyTree(t, filepath.Join(src, p), filepath.Join(root, p))
	}
	res := runChild(t, bin, root, "", "run", "specs/examples/summarise/summarise.yaml")
	if res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.out)
	}
	for _, s := range []string{
		`check: script scripts/summarise/check_summary.py → {"fits": false, "words": 50, "feedback": "The summary has 50 words; write at most 40."}`,
		`[3] check → summarise  [attempts < max_attempts]`,
		`check: script scripts/summarise/check_summary.py → {"fits": true, "words": 29, "feedback": ""}`,
		"completed in done after 6 steps",
	} {
		if !strings.Contains(res.out, s) {
			t.Errorf("output lacks %q:\n%s", s, res.out)
		}
	}
	_, vars := runVars(t, root)
	if s, _ := vars["summary"].(string); !strings.HasPrefix(s, "Agents as declarative state machines") || vars["attempts"] != 2 {
		t.Errorf("summary %q after %v attempts", vars["summary"], vars["attempts"])
	}
}

// The triage example classifies its ticket in a child machine and resolves
// it; a ticket more urgent than the bound it is given waits for a person
// (exit 4), whose RESOLVE or ESCALATE, delivered with its payload by resume,
// finishes the run: the payload's reply is sent, or its team gets the
// model's handover note (a template reading event.payload).
func TestTriageExampleRunsItsSubMachineOffline(t *testing.T) {
	testenv.Python(t) // the example's steps are Python scripts
	t.Parallel()      // child processes: independent of the other tests
	bin := buildLppctl(t)
	const handover = "Reviewer: the refund is approved; check why INV-0312 was charged twice. Customer: Dana was charged twice for the March invoice and wants the duplicate payment refunded."
	for _, c := range []struct {
		name    string
		args    []string
		resume  []string // resume's arguments after the run id; nil: the run completes at once
		outcome string
		vars    map[string]any // more variables the run ends with
		out     string         // in the output of the last command
	}{
		{name: "resolved", outcome: "resolved", out: "  resolve: resolved \"Hello Dana, sorry about the duplicate charge"},
		{name: "escalated by a person with a note for a team", args: []string{"--var", "max_auto_urgency=1"},
			resume:  []string{"--event", "ESCALATE", "--payload", `{"team": "billing", "note": "Refund approved; find why INV-0312 was charged twice."}`},
			outcome: "escalated", vars: map[string]any{"team": "billing", "handover": handover},
			out: `[4] review → handover  event ESCALATE {"note":"Refund approved; find why INV-0312 was charged twi…`},
		{name: "resolved by a person with their own reply", args: []string{"--var", "max_auto_urgency=1"},
			resume:  []string{"--event", "RESOLVE", "--payload", `{"reply": "Hello Dana, refunded today."}`},
			outcome: "resolved", vars: map[string]any{"reply": "Hello Dana, refunded today."},
			out: "  resolve: resolved \"Hello Dana, refunded today.\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, root := repoRoot(t), t.TempDir()
			for _, p := range []string{"config/tools_config.yaml", "scripts/triage", "specs/examples/triage"} {
				copyTree(t, filepath.Join(src, p), filepath.Join(root, p))
			}
			res := runChild(t, bin, root, "", append([]string{"run", "specs/examples/triage/triage.yaml"}, c.args...)...)
			if !strings.Contains(res.out, "classify: child spec classify.yaml completed in state done after 3 step(s)") {
				t.Errorf("output:\n%s", res.out)
			}
			if c.resume != nil {
				id := runIDIn(t, root)
				want := "paused in review after 3 steps: waiting for an event: RESOLVE {reply: string (optional)}, ESCALATE {team: string, note: string}; deliver one with: lppctl resume " + id + " --event NAME [--payload JSON]"
				if res.code != exitPaused || !strings.Contains(res.out, want) {
					t.Fatalf("run: exit %d, want %d and %q:\n%s", res.code, exitPaused, want, res.out)
				}
				res = runChild(t, bin, root, "", append([]string{"resume", id}, c.resume...)...)
			}
			if res.code != 0 || !strings.Contains(res.out, "completed in done after") || !strings.Contains(res.out, c.out) {
				t.Fatalf("exit %d, want 0 and %q:\n%s", res.code, c.out, res.out)
			}
			_, vars := runVars(t, root)
			if vars["outcome"] != c.outcome || vars["category"] != "billing" || vars["urgency"] != 2 {
				t.Errorf("outcome %v, category %v, urgency %v", vars["outcome"], vars["category"], vars["urgency"])
			}
			for k, want := range c.vars {
				if vars[k] != want {
					t.Errorf("%s = %q, want %q", k, vars[k], want)
				}
			}
		})
	}
}
