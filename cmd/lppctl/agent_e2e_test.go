package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	greetCall = `
    tool_calls:
      - name: safe_py_runner
        arguments: {script_name: skills/hello_skill/scripts/greet.py, args: ["--name", "Ada"]}`
	writeCall = `
    tool_calls:
      - name: safe_py_runner
        arguments: {script_name: scripts/write_file.py, args: [output/hello_skill/greeting.txt], stdin_text: "Hello, Ada! Welcome to lppctl.\n"}`
	listCall = `
    tool_calls:
      - name: safe_cli_executor
        arguments: {tool_name: list_files, params: {path: skills/hello_skill}}`
)

func planner(instructions ...string) string {
	return "  - role: planner\n    text: " + yamlQuote(planJSON(instructions...)) + "\n"
}

func reply(role string, step int, body string) string {
	return fmt.Sprintf("  - role: %s\n    step: %d\n%s\n", role, step, strings.TrimPrefix(body, "\n"))
}

func text(s string) string { return "    text: " + yamlQuote(s) }

func pass(keys string) string {
	return text(`{"verdict": "PASS", "feedback": "looks right", "key_outputs": {` + keys + `}}`)
}

func fail(feedback string) string {
	return text(`{"verdict": "FAIL", "feedback": "` + feedback + `", "key_outputs": {}}`)
}

func TestAgentPassPathCarriesL2AndClearsL3(t *testing.T) {
	root := newProject(t, "hello_skill")
	before := readSkillsMD(t, root)
	f := newFakeLLM(t, "replies:\n"+planner("greet Ada", "write the greeting")+
		reply("optimizer", 1, greetCall)+
		reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] greet.py printed the greeting"))+
		reply("evaluator", 1, pass(`"GREETING": "Hello, Ada! Welcome to lppctl."`))+
		reply("optimizer", 2, writeCall)+
		reply("optimizer", 2, text("[ATTEMPTS_COMPLETE] wrote it"))+
		reply("evaluator", 2, `
    tool_calls:
      - name: safe_cli_executor
        arguments: {tool_name: read_file, params: {path: output/hello_skill/greeting.txt}}`)+
		reply("evaluator", 2, pass(`"GREETING_FILE": "output/hello_skill/greeting.txt"`)))
	res := runAgent(t, root, f, "--yes")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.all())
	}
	if !strings.Contains(res.out, "completed in done") {
		t.Fatalf("not completed:\n%s", res.out)
	}
	// L2 flows into step 2; L3 of step 1 does not.
	step2 := f.requests("optimizer", 2)
	if len(step2) != 2 {
		t.Fatalf("step 2 optimizer calls = %d", len(step2))
	}
	first := step2[0]
	if len(first.Messages) != 2 || first.Messages[0].Role != "system" || first.Messages[1].Role != "user" {
		t.Fatalf("step 2 must start from system+user only (L3 cleared), got %d messages", len(first.Messages))
	}
	if !strings.Contains(first.Messages[1].Content, "<skill_memory>\nGREETING=Hello, Ada! Welcome to lppctl.\n</skill_memory>") {
		t.Fatalf("L2 missing from step 2's prompt:\n%s", first.Messages[1].Content)
	}
	if strings.Contains(first.text(), "greet.py printed the greeting") {
		t.Fatal("step 1's chat leaked into step 2")
	}
	if !strings.Contains(first.Messages[0].Content, "<global_context>\n# Project context for lppctl agents (L1)") {
		t.Fatal("L1 missing from the system prompt")
	}
	if first.Tools != 2 {
		t.Fatalf("tools offered = %d, want safe_cli_executor and safe_py_runner", first.Tools)
	}
	// the tool result came back to the model
	if got := step2[1].Messages[3]; got.Role != "tool" || !strings.Contains(got.Content, "wrote 31 bytes") {
		t.Fatalf("tool result = %+v", got)
	}
	// the evaluator verified with its own tool call
	if ev := f.requests("evaluator", 2); len(ev) != 2 || !strings.Contains(ev[1].last().Content, "Hello, Ada!") {
		t.Fatalf("evaluator tool loop: %+v", ev)
	}
	// the optimizer may change files; the evaluator, whose calls run read-only, is offered only the commands that look
	if got, want := first.SubCommands, "copy_file,list_files,make_directory,move_file,python_run,read_file,tree"; got != want {
		t.Errorf("optimizer offered %s, want %s", got, want)
	}
	if got, want := f.requests("evaluator", 2)[0].SubCommands, "list_files,python_run,read_file,tree"; got != want {
		t.Errorf("evaluator offered %s, want %s", got, want)
	}
	if b, err := os.ReadFile(filepath.Join(root, "output", "hello_skill", "greeting.txt")); err != nil || string(b) != "Hello, Ada! Welcome to lppctl.\n" {
		t.Fatalf("greeting file: %q %v", b, err)
	}
	// skills.md: the original bytes untouched, two success cases appended
	after := readSkillsMD(t, root)
	if !strings.HasPrefix(after, before) {
		t.Fatal("skills.md's original text changed")
	}
	added := after[len(before):]
	if n := strings.Count(added, "### [2025-01-02 03:04 UTC]"); n != 2 {
		t.Fatalf("success entries = %d:\n%s", n, added)
	}
	for _, want := range []string{"## Success Cases", "- **Step:** 1", "- **Instruction:** greet Ada", "`safe_py_runner` {\"args\":[\"--name\",\"Ada\"]", "`GREETING` = Hello, Ada! Welcome to lppctl.", "- **Step:** 2", "`GREETING_FILE` = output/hello_skill/greeting.txt"} {
		if !strings.Contains(added, want) {
			t.Errorf("skills.md lacks %q:\n%s", want, added)
		}
	}
	if strings.Contains(added, "## Failure Cases") {
		t.Error("no failure expected")
	}
}

func TestAgentFailRetryPass(t *testing.T) {
	root := newProject(t, "hello_skill")
	f := newFakeLLM(t, "replies:\n"+planner("greet Ada")+
		reply("optimizer", 1, greetCall)+
		reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] hi"))+
		reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] Hello, Ada! Welcome to lppctl."))+
		reply("evaluator", 1, fail("report the exact greeting"))+
		reply("evaluator", 1, pass(`"GREETING": "Hello, Ada! Welcome to lppctl."`)))
	res := runAgent(t, root, f, "--yes", "--feedback", "Good run.\nKeep greetings short.")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.all())
	}
	opt := f.requests("optimizer", 1)
	if len(opt) != 3 {
		t.Fatalf("optimizer calls = %d", len(opt))
	}
	if last := opt[2].last(); last.Role != "user" || !strings.Contains(last.Content, "report the exact greeting") {
		t.Fatalf("the retry did not carry the evaluator's feedback: %+v", last)
	}
	md := readSkillsMD(t, root)
	for _, want := range []string{"## Failure Cases", "- **Evaluator feedback:** report the exact greeting", "## Success Cases", "## Human Feedback", "- Good run.\n  Keep greetings short."} {
		if !strings.Contains(md, want) {
			t.Errorf("skills.md lacks %q:\n%s", want, md)
		}
	}
}

func TestAgentRetriesExhaustedPausesForHuman(t *testing.T) {
	root := newProject(t, "hello_skill")
	f := newFakeLLM(t, "replies:\n"+planner("greet Ada")+
		reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] nothing")+"\n    repeat: true")+
		reply("evaluator", 1, fail("nothing was done")+"\n    repeat: true"))
	res := runAgent(t, root, f, "--yes")
	if res.code != exitPaused {
		t.Fatalf("exit %d, want %d (paused)\n%s", res.code, exitPaused, res.all())
	}
	if !strings.Contains(res.out, "paused in human_intervention") || !strings.Contains(res.out, "--answer 'GUIDANCE'") {
		t.Fatalf("no pause with instructions:\n%s", res.out)
	}
	if n := len(f.requests("evaluator", 1)); n != 4 {
		t.Fatalf("evaluations = %d, want 1 + max_retries(3)", n)
	}
	if n := strings.Count(readSkillsMD(t, root), "- **Evaluator feedback:** nothing was done"); n != 4 {
		t.Fatalf("failure cases = %d, want 4", n)
	}
}

func TestAgentStuckLoopReplansThenAsksHuman(t *testing.T) {
	root := newProject(t, "hello_skill")
	f := newFakeLLM(t, "replies:\n"+planner("list the skill")+
		reply("optimizer", 1, listCall+"\n    repeat: true"))
	res := runAgent(t, root, f, "--yes")
	if res.code != exitPaused {
		t.Fatalf("exit %d\n%s", res.code, res.all())
	}
	if n := strings.Count(res.out, "warning: stuck-loop guard"); n != 2 {
		t.Fatalf("replans = %d, want max_replans(2):\n%s", n, res.out)
	}
	fresh := 0
	for _, r := range f.requests("optimizer", 1) {
		if len(r.Messages) == 2 {
			restarted := fmt.Sprintf("This step was restarted (%d time(s)): an earlier attempt made more\nthan 8 rounds of tool calls without finishing.", fresh)
			if got := strings.Contains(r.Messages[1].Content, restarted); got != (fresh > 0) {
				t.Errorf("start %d: restart notice = %v:\n%s", fresh, got, r.Messages[1].Content)
			}
			fresh++
		}
	}
	if fresh != 3 {
		t.Fatalf("the step started %d times, want 3 (first try + 2 replans)", fresh)
	}
	// each attempt runs max_loop_count+1 = 9 rounds, the 10th request trips the guard
	if n := len(f.requests("optimizer", 1)); n != 30 {
		t.Fatalf("optimizer calls = %d, want 30", n)
	}
	if !strings.Contains(res.out, "paused in human_intervention") {
		t.Fatalf("no intervention:\n%s", res.out)
	}
	if want := "step 1 needs help (retries 0 of 3, replans 2 of 2); stuck: still calling tools after 9 rounds (max_loop_count 8); last feedback: (no evaluator feedback)"; !strings.Contains(res.out, want) {
		t.Fatalf("the pause does not say why:\n%s", res.out)
	}
}

func TestAgentMissingPrefixWarnsAndEvaluates(t *testing.T) {
	root := newProject(t, "hello_skill")
	f := newFakeLLM(t, "replies:\n"+planner("greet Ada")+
		reply("optimizer", 1, text("I greeted Ada."))+
		reply("evaluator", 1, pass(`"DONE": "yes"`)))
	res := runAgent(t, root, f, "--yes")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.all())
	}
	if !strings.Contains(res.out, "warning: optimizer replied without [ATTEMPTS_COMPLETE]; evaluating anyway") {
		t.Fatalf("no warning:\n%s", res.out)
	}
}

func TestAgentDirectiveReminderEveryThreeToolCalls(t *testing.T) {
	root := newProject(t, "hello_skill")
	f := newFakeLLM(t, "replies:\n"+planner("list the skill four times")+
		reply("optimizer", 1, listCall)+reply("optimizer", 1, listCall)+reply("optimizer", 1, listCall)+reply("optimizer", 1, listCall)+
		reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] listed"))+
		reply("evaluator", 1, pass(`"LISTED": "4"`)))
	res := runAgent(t, root, f, "--yes")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.all())
	}
	reqs := f.requests("optimizer", 1)
	for i, r := range reqs {
		reminded := strings.Contains(r.last().Content, "<primary_directive>\nReminder")
		if reminded != (i == 3) {
			t.Errorf("request %d: reminder = %v (last message %q)", i, reminded, r.last().Content)
		}
	}
	if n := strings.Count(reqs[len(reqs)-1].text(), "Reminder — you are on step 1"); n != 1 {
		t.Fatalf("reminders in the final request = %d, want 1 (4 tool calls)", n)
	}
}

func TestAgentSurvivesModelMistakes(t *testing.T) {
	tests := []struct {
		name    string
		first   string // the optimizer's first reply in step 1
		wantOut string // in the run's output
		wantMsg string // in the tool result (or the next prompt) the model sees
	}{
		{
			name:    "hallucinated tool",
			first:   "\n    tool_calls:\n      - name: delete_everything\n        arguments: {path: /}",
			wantOut: "delete_everything {\"path\":\"/\"} → block",
			wantMsg: "[SECURITY BLOCKED]",
		},
		{
			name:    "malformed arguments",
			first:   "\n    tool_calls:\n      - name: safe_cli_executor\n        arguments: '{\"tool_name\": \"read_file\", \"params\": {'",
			wantOut: "→ error: [ERROR] cannot parse the arguments as JSON",
			wantMsg: "[ERROR] cannot parse the arguments as JSON",
		},
		{
			name:    "empty reply",
			first:   text(""),
			wantOut: "the optimizer's reply was empty",
			wantMsg: "the reply was empty",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := newProject(t, "hello_skill")
			evals := reply("evaluator", 1, pass(`"OK": "yes"`))
			if tt.name == "empty reply" {
				evals = reply("evaluator", 1, fail("the reply was empty")) + evals
			}
			f := newFakeLLM(t, "replies:\n"+planner("greet Ada")+
				reply("optimizer", 1, tt.first)+
				reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] recovered"))+evals)
			res := runAgent(t, root, f, "--yes")
			if res.code != 0 {
				t.Fatalf("exit %d\n%s", res.code, res.all())
			}
			if !strings.Contains(res.out, tt.wantOut) {
				t.Fatalf("output lacks %q:\n%s", tt.wantOut, res.out)
			}
			reqs := f.requests("optimizer", 1)
			if !strings.Contains(reqs[1].text(), tt.wantMsg) {
				t.Fatalf("the model never saw %q:\n%s", tt.wantMsg, reqs[1].text())
			}
		})
	}
}

func TestAgentUnparseablePlan(t *testing.T) {
	t.Run("re-prompted, then gives up", func(t *testing.T) {
		root := newProject(t, "hello_skill")
		f := newFakeLLM(t, "replies:\n  - role: planner\n    text: I would greet Ada.\n    repeat: true\n")
		res := runAgent(t, root, f, "--yes")
		if res.code != exitFailed {
			t.Fatalf("exit %d\n%s", res.code, res.all())
		}
		if !strings.Contains(res.err, "the planner gave no valid plan in 3 attempts; the last problem: the reply holds no JSON object") {
			t.Fatalf("stderr:\n%s", res.err)
		}
		reqs := f.requests("planner", -1)
		if len(reqs) != 3 || !strings.Contains(reqs[1].last().Content, "Your plan could not be used") {
			t.Fatalf("re-prompts: %d", len(reqs))
		}
	})
	t.Run("invalid, then fixed", func(t *testing.T) {
		root := newProject(t, "hello_skill")
		f := newFakeLLM(t, "replies:\n  - role: planner\n    text: '{\"goal\": \"x\", \"steps\": [{\"index\": 3, \"optimizer_instruction\": \"a\"}]}'\n"+
			planner("greet Ada")+reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] ok"))+reply("evaluator", 1, pass("")))
		res := runAgent(t, root, f, "--yes")
		if res.code != 0 {
			t.Fatalf("exit %d\n%s", res.code, res.all())
		}
		retry := f.requests("planner", -1)[1].last().Content
		for _, want := range []string{"steps[0].index is 3", "steps[0].evaluator_instruction is missing"} {
			if !strings.Contains(retry, want) {
				t.Errorf("re-prompt lacks %q:\n%s", want, retry)
			}
		}
	})
}

func TestAgentTransientErrors(t *testing.T) {
	t.Run("429 then success", func(t *testing.T) {
		root := newProject(t, "hello_skill")
		f := newFakeLLM(t, "replies:\n"+planner("greet Ada")+reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] ok"))+reply("evaluator", 1, pass("")))
		f.fail = func(n int) int {
			if n == 1 {
				return 429
			}
			return 0
		}
		res := runAgent(t, root, f, "--yes")
		if res.code != 0 {
			t.Fatalf("exit %d\n%s", res.code, res.all())
		}
		if !strings.Contains(res.out, "after 2 attempts]") {
			t.Fatalf("the retry is not reported:\n%s", res.out)
		}
	})
	t.Run("500 forever stops the run in place; resume makes the call again", func(t *testing.T) {
		root := newProject(t, "hello_skill")
		f := newFakeLLM(t, "replies:\n"+planner("greet Ada")+reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] ok"))+reply("evaluator", 1, pass("")))
		f.fail = func(int) int { return 500 }
		res := runAgent(t, root, f, "--yes")
		if res.code != exitFailed {
			t.Fatalf("exit %d\n%s", res.code, res.all())
		}
		want := `action failed: llm.planner in state "plan": cannot get the planner's reply: cannot call openai:test-model at ` + f.srv.URL + `: gave up after 3 attempts, the last one failed with HTTP 500 (server error)`
		if !strings.Contains(res.err, want) {
			t.Fatalf("stderr lacks %q:\n%s", want, res.err)
		}
		if !strings.Contains(res.err, "stopped in plan; after fixing the cause, retry the state with: lppctl resume ") {
			t.Fatalf("stderr lacks the resume hint:\n%s", res.err)
		}
		if f.n != 3 {
			t.Fatalf("requests = %d", f.n)
		}
		// The provider comes back: the run resumes where it stopped and completes.
		f.fail = nil
		ents, err := os.ReadDir(filepath.Join(root, ".lppctl", "runs"))
		if err != nil || len(ents) != 1 {
			t.Fatalf("runs: %v %v", ents, err)
		}
		var out, errb bytes.Buffer
		if code := run([]string{"lppctl", "resume", "-q", "--root", root, ents[0].Name()}, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("resume: exit %d\n%s%s", code, out.String(), errb.String())
		}
		if !strings.Contains(out.String(), "completed in done") {
			t.Fatalf("resume output:\n%s", out.String())
		}
	})
}

func TestAgentNoTerminalNoYesPausesForApproval(t *testing.T) {
	root := newProject(t, "hello_skill")
	f := newFakeLLM(t, "replies:\n"+planner("greet Ada"))
	res := runAgent(t, root, f)
	if res.code != exitPaused {
		t.Fatalf("exit %d\n%s", res.code, res.all())
	}
	for _, want := range []string{"Proposed plan (1 step)", "paused in approve_plan", "--approve", "--yes"} {
		if !strings.Contains(res.out, want) {
			t.Errorf("output lacks %q:\n%s", want, res.out)
		}
	}
}

// The evaluator's tool loop is read-only: it checks the step's work and
// cannot change it, while the optimizer's writes go through.
func TestAgentEvaluatorCannotWrite(t *testing.T) {
	root := newProject(t, "hello_skill")
	f := newFakeLLM(t, "replies:\n"+planner("write the greeting")+
		reply("optimizer", 1, writeCall)+
		reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] wrote it"))+
		reply("evaluator", 1, `
    tool_calls:
      - name: safe_py_runner
        arguments: {script_name: scripts/write_file.py, args: [output/hello_skill/greeting.txt], stdin_text: "forged by the evaluator\n"}
      - name: safe_cli_executor
        arguments: {tool_name: copy_file, params: {src: output/hello_skill/greeting.txt, dst: output/hello_skill/copy.txt}}`)+
		reply("evaluator", 1, pass(`"GREETING_FILE": "output/hello_skill/greeting.txt"`)))
	res := runAgent(t, root, f, "--yes")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.all())
	}
	if b, err := os.ReadFile(filepath.Join(root, "output", "hello_skill", "greeting.txt")); err != nil || string(b) != "Hello, Ada! Welcome to lppctl.\n" {
		t.Errorf("greeting.txt = %q, %v; the evaluator changed it", b, err)
	}
	if _, err := os.Stat(filepath.Join(root, "output", "hello_skill", "copy.txt")); !os.IsNotExist(err) {
		t.Errorf("the evaluator's copy_file ran: %v", err)
	}
	evals := f.requests("evaluator", 1)
	if len(evals) != 2 {
		t.Fatalf("evaluator calls = %d", len(evals))
	}
	var results []string
	for _, m := range evals[1].Messages {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	want := []string{
		"[SECURITY BLOCKED] read-only: 'output/hello_skill/greeting.txt': this tool call may only look, not write (a checker such as the evaluator verifies the work, it does not change it)",
		"[SECURITY BLOCKED] read-only: copy_file changes files, and this tool call may only look (a checker such as the evaluator verifies the work, it does not change it); use read_file, list_files or tree",
	}
	if strings.Join(results, "\n") != strings.Join(want, "\n") {
		t.Errorf("the evaluator's tool results =\n%s\nwant\n%s", strings.Join(results, "\n"), strings.Join(want, "\n"))
	}
}
