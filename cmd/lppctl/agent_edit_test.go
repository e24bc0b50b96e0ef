package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// editSpec rewrites the project's copy of the spec: each pair is old, new.
func editSpec(t *testing.T, root string, pairs ...string) {
	t.Helper()
	path := filepath.Join(root, "specs", "skills_agent.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("spec lacks %q", pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The same binary behaves differently when only the YAML changes.
func TestAgentSpecEditsNeedNoRecompiling(t *testing.T) {
	t.Run("max_loop_count", func(t *testing.T) {
		root := newProject(t, "hello_skill")
		editSpec(t, root,
			"max_loop_count:    {type: int, default: 8,", "max_loop_count:    {type: int, default: 1,",
			"max_replans:       {type: int, default: 2,", "max_replans:       {type: int, default: 0,")
		f := newFakeLLM(t, "replies:\n"+planner("list the skill")+reply("optimizer", 1, listCall+"\n    repeat: true"))
		res := runAgent(t, root, f, "--yes")
		if res.code != exitPaused || !strings.Contains(res.out, "paused in human_intervention") {
			t.Fatalf("exit %d\n%s", res.code, res.all())
		}
		// 2 rounds run (loop_count 0 and 1 are not > 1), the 3rd request trips the guard
		if n := len(f.requests("optimizer", 1)); n != 3 {
			t.Fatalf("optimizer calls = %d, want 3 with max_loop_count 1", n)
		}
	})
	t.Run("max_retries", func(t *testing.T) {
		root := newProject(t, "hello_skill")
		editSpec(t, root, "max_retries:       {type: int, default: 3}", "max_retries:       {type: int, default: 1}")
		f := newFakeLLM(t, "replies:\n"+planner("greet Ada")+
			reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] nothing")+"\n    repeat: true")+
			reply("evaluator", 1, fail("nothing was done")+"\n    repeat: true"))
		res := runAgent(t, root, f, "--yes")
		if res.code != exitPaused {
			t.Fatalf("exit %d\n%s", res.code, res.all())
		}
		if n := len(f.requests("evaluator", 1)); n != 2 {
			t.Fatalf("evaluations = %d, want 1 + max_retries(1)", n)
		}
	})
	t.Run("extra state from existing actions", func(t *testing.T) {
		root := newProject(t, "hello_skill")
		editSpec(t, root,
			"  commit_step:\n    do: memory.commit_step\n    next: [{to: route_step}]",
			"  commit_step:\n    do: memory.commit_step\n    next: [{to: announce}]\n\n"+
				"  announce:\n    do: log\n    with: {message: \"committed step\", value: step_index + 1}\n    next: [{to: route_step}]")
		f := newFakeLLM(t, "replies:\n"+planner("greet Ada", "greet again")+
			reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] ok"))+reply("evaluator", 1, pass(`"A": "1"`))+
			reply("optimizer", 2, text("[ATTEMPTS_COMPLETE] ok"))+reply("evaluator", 2, pass(`"B": "2"`)))
		res := runAgent(t, root, f, "--yes")
		if res.code != 0 {
			t.Fatalf("exit %d\n%s", res.code, res.all())
		}
		for _, want := range []string{"announce: committed step 1", "announce: committed step 2", "commit_step → announce", "announce → route_step"} {
			if !strings.Contains(res.out, want) {
				t.Errorf("output lacks %q:\n%s", want, res.out)
			}
		}
	})
}

// TestAgentPromptSizePerStep runs a 10-step plan and checks that the
// optimizer's first prompt of step N grows only by what L2 adds (L3 is
// cleared between steps). Run with -v to see the table docs/agent.md quotes.
func TestAgentPromptSizePerStep(t *testing.T) {
	const steps = 10
	root := newProject(t, "hello_skill")
	var instr []string
	script := ""
	for i := 1; i <= steps; i++ {
		instr = append(instr, fmt.Sprintf("do task %02d", i))
		script += reply("optimizer", i, listCall) +
			reply("optimizer", i, text(fmt.Sprintf("[ATTEMPTS_COMPLETE] task %02d done", i))) +
			reply("evaluator", i, pass(fmt.Sprintf(`"RESULT_%02d": "value of task %02d"`, i, i)))
	}
	f := newFakeLLM(t, "replies:\n"+planner(instr...)+script)
	res := runAgent(t, root, f, "--yes")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.all())
	}
	l2Line := len("RESULT_01=value of task 01\n")
	first := 0
	t.Logf("%-5s %-16s %-16s %-14s %-12s", "step", "first prompt", "growth vs 1", "L2 bytes", "all calls")
	for i := 1; i <= steps; i++ {
		reqs := f.requests("optimizer", i)
		if len(reqs) != 2 {
			t.Fatalf("step %d: %d optimizer calls", i, len(reqs))
		}
		size, total := reqs[0].chars(), reqs[0].chars()+reqs[1].chars()
		if i == 1 {
			first = size
		}
		l2 := (i - 1) * l2Line
		t.Logf("%-5d %-16d %-16d %-14d %-12d", i, size, size-first, l2, total)
		if len(reqs[0].Messages) != 2 {
			t.Fatalf("step %d starts with %d messages, want 2 (L3 cleared)", i, len(reqs[0].Messages))
		}
		// the empty-L2 placeholder of step 1 is replaced by the lines; nothing else grows
		if extra := size - first - l2; extra > 0 {
			t.Errorf("step %d: the prompt grew %d chars beyond L2", i, extra)
		}
	}
}
