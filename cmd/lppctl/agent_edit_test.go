package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
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

// TestAgentPromptSizePerStep runs a 50-step plan and checks that the
// optimizer's first prompt of a step stays flat: at step 50 at most 1.1×
// step 1's, because a step's prompt carries in full only the L2 lines of the
// steps it depends on (and of the global ones), the others by key (L3 is
// cleared between steps). The same script with a plan that declares no
// dependencies (every step sees all of L2) must leave skills.md byte for
// byte the same. Run with -v to see the table docs/agent.md quotes.
func TestAgentPromptSizePerStep(t *testing.T) {
	const steps = 50
	scoped := runLongPlan(t, steps, true)
	flat := runLongPlan(t, steps, false)
	first := scoped.first[0]
	t.Logf("%-5s %-14s %-10s %-22s %-10s", "step", "first prompt", "vs step 1", "without scoping (all L2)", "vs step 1")
	for i := 1; i <= steps; i++ {
		size := scoped.first[i-1]
		if i <= 10 || i%10 == 0 {
			t.Logf("%-5d %-14d %-10.3f %-22d %-10.3f", i, size, float64(size)/float64(first), flat.first[i-1], float64(flat.first[i-1])/float64(flat.first[0]))
		}
		if float64(size) > 1.1*float64(first) {
			t.Errorf("step %d: the optimizer's first prompt is %d chars, %.3f× step 1's (%d); want ≤ 1.1×", i, size, float64(size)/float64(first), first)
		}
	}
	t.Logf("all optimizer and evaluator prompts of the run: %d chars (≈ %d tokens) scoped, %d (≈ %d tokens) with all of L2", scoped.total, scoped.total/4, flat.total, flat.total/4)
	if scoped.total >= flat.total {
		t.Errorf("scoping did not make the run's prompts smaller: %d chars vs %d", scoped.total, flat.total)
	}
	if r := float64(flat.first[steps-1]) / float64(flat.first[0]); r < 1.2 {
		t.Errorf("without scoping step %d's prompt is only %.3f× step 1's: the test no longer shows what scoping saves", steps, r)
	}
	if scoped.skillsMD != flat.skillsMD {
		t.Errorf("skills.md differs with and without scoping:\n%s\n---\n%s", scoped.skillsMD[len(scoped.skillsMD)-600:], flat.skillsMD[len(flat.skillsMD)-600:])
	}
	// the stable part of the request comes first and is byte-identical across steps
	for i, sys := range scoped.system {
		if sys != scoped.system[0] {
			t.Fatalf("step %d: the optimizer's system prompt differs from step 1's", i+1)
		}
	}
	last := scoped.user[steps-1]
	for _, want := range []string{
		"Goal of the plan: test goal\n\n<skill_memory>\nRESULT_01=value of task 01\nRESULT_49=value of task 49\n(values not shown, from steps this one does not depend on: RESULT_25, RESULT_26, ",
		", RESULT_48; 23 older key(s))\n</skill_memory>",
	} {
		if !strings.Contains(last, want) {
			t.Errorf("step %d's prompt lacks %q:\n%s", steps, want, last)
		}
	}
}

var entryRun = regexp.MustCompile(`lppctl:entry [^/ ]+/`)

// longRun is what runLongPlan measured.
type longRun struct {
	first    []int    // the size of each step's first optimizer prompt (chars)
	total    int      // the size of every optimizer and evaluator prompt of the run (chars)
	system   []string // the system message of each step's first optimizer prompt
	user     []string // the user message of each step's first optimizer prompt
	skillsMD string
	bodies   [][]byte // every chat request's body, in order
}

// runLongPlan runs a plan of n steps (each: one list_files call, then
// [ATTEMPTS_COMPLETE]; each PASS commits RESULT_NN). With scoping, step 1
// is global and each even step depends on the step before it, so step 50
// sees steps 1 and 49 in full; without, the plan declares no dependency
// and every step sees all of L2.
func runLongPlan(t testing.TB, n int, scoping bool) longRun {
	root := newProject(t, "hello_skill")
	type step struct {
		Index  int      `json:"index"`
		Opt    string   `json:"optimizer_instruction"`
		Eval   string   `json:"evaluator_instruction"`
		Tools  []string `json:"tools_hint"`
		Deps   []int    `json:"depends_on"`
		Global bool     `json:"global,omitempty"`
	}
	plan := struct {
		Goal  string `json:"goal"`
		Steps []step `json:"steps"`
	}{Goal: "test goal"}
	script := ""
	for i := 1; i <= n; i++ {
		st := step{Index: i, Opt: fmt.Sprintf("do task %02d", i), Eval: fmt.Sprintf("check step %d", i), Tools: []string{"safe_cli_executor"}, Deps: []int{}}
		if scoping {
			st.Global = i == 1
			if i%2 == 0 {
				st.Deps = []int{i - 1}
			}
		}
		plan.Steps = append(plan.Steps, st)
		script += reply("optimizer", i, listCall) +
			reply("optimizer", i, text(fmt.Sprintf("[ATTEMPTS_COMPLETE] task %02d done", i))) +
			reply("evaluator", i, pass(fmt.Sprintf(`"RESULT_%02d": "value of task %02d"`, i, i)))
	}
	b, _ := json.Marshal(plan)
	f := newFakeLLM(t, "replies:\n  - role: planner\n    text: "+yamlQuote(string(b))+"\n"+script)
	var (
		mu     sync.Mutex
		bodies [][]byte
	)
	f.srv.Close()
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, body)
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.serve(w, r)
	}))
	t.Cleanup(f.srv.Close)
	res := runAgent(t, root, f, "--yes", "--var", "max_steps="+fmt.Sprint(n))
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.all())
	}
	out := longRun{bodies: bodies}
	for _, agent := range []string{"optimizer", "evaluator"} {
		for _, r := range f.requests(agent, -1) {
			out.total += r.chars()
		}
	}
	for i := 1; i <= n; i++ {
		reqs := f.requests("optimizer", i)
		if len(reqs) != 2 {
			t.Fatalf("step %d: %d optimizer calls", i, len(reqs))
		}
		if len(reqs[0].Messages) != 2 {
			t.Fatalf("step %d starts with %d messages, want 2 (L3 cleared)", i, len(reqs[0].Messages))
		}
		out.first = append(out.first, reqs[0].chars())
		out.system = append(out.system, reqs[0].Messages[0].Content)
		out.user = append(out.user, reqs[0].Messages[1].Content)
	}
	md, err := os.ReadFile(filepath.Join(root, "skills", "hello_skill", "skills.md"))
	if err != nil {
		t.Fatal(err)
	}
	out.skillsMD = entryRun.ReplaceAllString(string(md), "lppctl:entry RUN/") // runs differ by id only
	return out
}

// After a RESET the new plan knows nothing of the L2 lines committed before
// it (the planner does not see L2), so they are shown in full to every
// step of the new plan, whatever steps of the old plan made them.
func TestAgentReplanShowsEarlierOutputsInFull(t *testing.T) {
	root := newProject(t, "hello_skill")
	plan := func(steps string) string {
		return "  - role: planner\n    text: " + yamlQuote(`{"goal": "test goal", "steps": [`+steps+`]}`) + "\n"
	}
	step := func(i int, deps string) string {
		return fmt.Sprintf(`{"index": %d, "optimizer_instruction": "do %d", "evaluator_instruction": "check %d", "depends_on": [%s]}`, i, i, i, deps)
	}
	done := text("[ATTEMPTS_COMPLETE] done")
	f := newFakeLLM(t, "replies:\n"+
		plan(step(1, "")+", "+step(2, "")+", "+step(3, "2"))+
		plan(step(1, "")+", "+step(2, "1"))+
		reply("optimizer", 1, done)+reply("optimizer", 1, done)+
		reply("evaluator", 1, pass(`"A": "1"`))+reply("evaluator", 1, pass(`"C": "3"`))+
		reply("optimizer", 2, done)+reply("optimizer", 2, done)+
		reply("evaluator", 2, pass(`"B": "2"`))+reply("evaluator", 2, pass(`"D": "4"`))+
		reply("optimizer", 3, done)+reply("evaluator", 3, fail("no")))
	res := runAgent(t, root, f, "--yes", "--var", "max_retries=0")
	if res.code != exitPaused || !strings.Contains(res.out, "paused in human_intervention") {
		t.Fatalf("exit %d\n%s", res.code, res.all())
	}
	var out, errb bytes.Buffer
	if code := run([]string{"lppctl", "resume", "--root", root, runIDIn(t, root), "--event", "RESET"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("resume: exit %d\n%s%s", code, out.String(), errb.String())
	}
	reqs := f.requests("optimizer", 1)
	if len(reqs) != 2 {
		t.Fatalf("optimizer calls of step 1 = %d, want 2 (one per plan)", len(reqs))
	}
	if want := "<skill_memory>\nA=1\nB=2\n</skill_memory>"; !strings.Contains(reqs[1].Messages[1].Content, want) {
		t.Errorf("the new plan's step 1 lacks %q:\n%s", want, reqs[1].Messages[1].Content)
	}
}
