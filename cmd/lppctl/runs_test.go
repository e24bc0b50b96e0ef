package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/lppctl/lppctl/machine/runstore"
)

const countSpec = `lpp: 1
name: count
context:
  n: {type: int, default: 0}
  max: {type: int, default: 4}
initial: start
states:
  start:
    do: log
    with: {message: "n is", value: n}
    set: {n: n + 1}
    next:
      - {to: done, when: n >= max}
      - to: start
  done: {final: true}
`

// lppctlCLI runs lppctl in-process and returns its exit code, stdout and stderr.
// In-process runs take turns (inProcess): urfave/cli writes to package
// globals (its help flag) as it parses, so two at once race.
func lppctlCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	inProcess.Lock()
	defer inProcess.Unlock()
	code := run(append([]string{"lppctl"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// inProcess serialises the in-process runs of parallel tests (lppctlCLI, runCLI).
var inProcess sync.Mutex

// onlyRun returns the ID of the only run in dir.
func onlyRun(t *testing.T, dir string) string {
	t.Helper()
	runs, err := runstore.New(dir).List()
	if err != nil || len(runs) != 1 {
		t.Fatalf("want one run in %s: %v, %v", dir, runs, err)
	}
	return runs[0].Meta.ID
}

// failedCountRun runs countSpec out of budget (it fails after 2 transitions)
// and returns the spec's path, the run directory and the run's ID.
func failedCountRun(t *testing.T) (spec, dir, id string) {
	t.Helper()
	tmp := t.TempDir()
	spec, dir = filepath.Join(tmp, "count.yaml"), filepath.Join(tmp, "runs")
	if err := os.WriteFile(spec, []byte(countSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := lppctlCLI(t, "run", "-q", "--run-dir", dir, "--max-transitions", "2", spec)
	if code != exitFailed || !strings.Contains(errOut, "transition budget exhausted") {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	return spec, dir, onlyRun(t, dir)
}

func TestResumeContinuesFailedRunWithHigherBudget(t *testing.T) {
	_, dir, id := failedCountRun(t)
	code, out, errOut := lppctlCLI(t, "resume", "--run-dir", dir, "--max-transitions", "10", id)
	if code != exitOK {
		t.Fatalf("resume: exit %d\n%s%s", code, out, errOut)
	}
	want := "  start: n is 2\n[3] start → start  next[1]\n  start: n is 3\n[4] start → done  [n >= max]\n[5] done (final)\ncompleted in done after 5 steps\n"
	if out != want {
		t.Errorf("resume output:\n%s\nwant:\n%s", out, want)
	}
	code, out, errOut = lppctlCLI(t, "resume", "--run-dir", dir, id)
	if want := "run " + id + " has already completed in done after 5 steps; nothing left to run\n"; code != exitOK || out != want || errOut != "" {
		t.Errorf("second resume: exit %d, %q %q; want 0, %q", code, out, errOut, want)
	}
}

func TestResumeRefusesChangedSpecUnlessForced(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(string) string
		force   bool
		code    int
		wantErr string
	}{
		{
			name: "a changed guard is refused",
			edit: func(s string) string { return strings.Replace(s, "n >= max", "n >= max + 1", 1) },
			code: exitFailed,
			wantErr: `changed since the run began:
  state "start": changed (next)
resume with --force to continue with the new spec`,
		},
		{
			name: "an added state and a changed default are refused",
			edit: func(s string) string {
				return strings.Replace(strings.Replace(s, "default: 4", "default: 5", 1), "  done: {final: true}", "  done: {final: true}\n  extra: {final: true}", 1)
			},
			code:    exitFailed,
			wantErr: "  context variable \"max\": changed\n  state \"extra\": added\n",
		},
		{
			name:    "--force continues with the new spec",
			edit:    func(s string) string { return strings.Replace(s, "n >= max", "n >= max + 1", 1) },
			force:   true,
			code:    exitOK,
			wantErr: "warning: ",
		},
		{
			name:    "a comment only is a note",
			edit:    func(s string) string { return "# edited\n" + s },
			code:    exitOK,
			wantErr: "changed since the run began, in comments or layout only",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, dir, id := failedCountRun(t)
			if err := os.WriteFile(spec, []byte(tt.edit(countSpec)), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"resume", "-q", "--run-dir", dir, "--max-transitions", "10", id}
			if tt.force {
				args = append(args, "--force")
			}
			code, out, errOut := lppctlCLI(t, args...)
			if code != tt.code || !strings.Contains(errOut, tt.wantErr) {
				t.Fatalf("exit %d, want %d; stderr lacks %q:\n%s%s", code, tt.code, tt.wantErr, out, errOut)
			}
		})
	}
}

func TestResumeIgnoresTornLastJournalLine(t *testing.T) {
	_, dir, id := failedCountRun(t)
	journal := filepath.Join(dir, id, runstore.JournalFile)
	f, err := os.OpenFile(journal, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"step","seq":3,"from":"sta`)
	f.Close()
	code, _, errOut := lppctlCLI(t, "resume", "-q", "--run-dir", dir, "--max-transitions", "10", id)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if want := "note: " + journal + ":5: ignored a torn last line (34 bytes) left by an interrupted write\n"; !strings.HasPrefix(errOut, want) {
		t.Errorf("stderr = %q, want it to start with %q", errOut, want)
	}
	b, _ := os.ReadFile(journal)
	l, err := runstore.ParseJournal(b)
	if err != nil || l.Torn != 0 || l.Steps() != 5 {
		t.Errorf("journal after resume: %d steps, torn %d, %v", l.Steps(), l.Torn, err)
	}
}

func TestResumeRejectsCorruptJournalLine(t *testing.T) {
	_, dir, id := failedCountRun(t)
	journal := filepath.Join(dir, id, runstore.JournalFile)
	b, _ := os.ReadFile(journal)
	lines := strings.SplitAfter(string(b), "\n")
	lines[1] = "{oops\n"
	os.WriteFile(journal, []byte(strings.Join(lines, "")), 0o644)
	code, _, errOut := lppctlCLI(t, "resume", "--run-dir", dir, id)
	want := "lppctl: cannot resume run " + id + ": cannot read journal: " + journal + ":2: invalid JSON: invalid character 'o' looking for beginning of object key string\n"
	if code != exitFailed || errOut != want {
		t.Errorf("exit %d, stderr %q; want %q", code, errOut, want)
	}
}

func TestResumeUsageErrors(t *testing.T) {
	_, dir, id := failedCountRun(t)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{name: "no run", args: []string{"resume", "--run-dir", dir}, code: exitUsage, want: "lppctl: which run? give its ID: lppctl resume RUN_ID (lppctl runs lists them)\n"},
		{name: "unknown run", args: []string{"resume", "--run-dir", dir, "nope"}, code: exitUsage, want: `lppctl: cannot open run "nope": no such run in ` + dir + " (lppctl runs lists them)\n"},
		{name: "two answers", args: []string{"resume", "--run-dir", dir, id, "--approve", "--reject"}, code: exitUsage, want: "lppctl: give one answer: --approve, --reject, --answer TEXT or --answer-file FILE\n"},
		{name: "two events", args: []string{"resume", "--run-dir", dir, id, "--event", "ESCALATE", "--payload", `{"team": "billing"}`, "--event", "RESOLVE"}, code: exitUsage, want: "lppctl: give one event: resume delivers one (--event NAME [--payload JSON]), and is run again for the next; you gave 2 (ESCALATE, RESOLVE)\n"},
		{name: "two payloads", args: []string{"resume", "--run-dir", dir, id, "--event", "GO", "--payload", "{}", "--payload", "{}"}, code: exitUsage, want: "lppctl: give one payload: the event carries one JSON object, and you gave 2\n"},
		{name: "two runs", args: []string{"resume", "--run-dir", dir, id, id}, code: exitUsage, want: "lppctl: one run at a time: give one RUN_ID, not 2 (" + id + " " + id + "): lppctl resume RUN_ID (lppctl runs lists them)\n"},
		{name: "two runs to show", args: []string{"runs", "show", "--run-dir", dir, id, "x"}, code: exitUsage, want: "lppctl: one run at a time: give one RUN_ID, not 2 (" + id + " x): lppctl runs show RUN_ID (lppctl runs lists them)\n"},
		{name: "an answer to a run that does not wait", args: []string{"resume", "--run-dir", dir, id, "--answer", "hi"}, code: exitUsage, want: "lppctl: run " + id + " is not waiting for a person (it is failed): resume it without --approve, --reject or --answer\n"},
		{name: "a bad fsync policy", args: []string{"run", "--run-dir", dir, "--fsync", "sometimes", "count.yaml"}, code: exitUsage, want: "lppctl: cannot use fsync policy \"sometimes\": want always or never\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := lppctlCLI(t, tt.args...)
			if code != tt.code || errOut != tt.want {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, errOut, tt.code, tt.want)
			}
		})
	}
}

// TestRunsPauseApproveInspect pauses a scripted Skills Agent run for
// approval (no terminal), resumes it with --approve, and inspects it.
func TestRunsPauseApproveInspect(t *testing.T) {
	root := newProject(t, "hello_skill")
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "LPPCTL_LLM"} {
		t.Setenv(k, "")
	}
	t.Setenv("LPPCTL_NOW", "2025-01-02T03:04:05Z")
	dir := filepath.Join(t.TempDir(), "runs")
	agent := []string{"--spec", filepath.Join(root, "specs", "skills_agent.yaml"), "--root", root, "--skill", filepath.Join(root, "skills", "hello_skill"), "--run-dir", dir}

	code, out, errOut := lppctlCLI(t, append([]string{"run"}, agent...)...)
	if code != exitPaused {
		t.Fatalf("run: exit %d, want %d\n%s%s", code, exitPaused, out, errOut)
	}
	id := onlyRun(t, dir)
	if want := "lppctl resume " + id + " --run-dir " + dir + " --approve"; !strings.Contains(out, want) { // the runs are not in .lppctl/runs
		t.Errorf("the pause does not say %q:\n%s", want, out)
	}
	code, out, _ = lppctlCLI(t, "runs", "--run-dir", dir)
	if !regexp.MustCompile(`(?m)^`+id+`\s+paused\s+\S+skills_agent.yaml\s+.+\s+1\s+\d+\s+approve_plan$`).MatchString(out) || code != 0 {
		t.Errorf("runs:\n%s", out)
	}
	code, _, errOut = lppctlCLI(t, "resume", "--run-dir", dir, "--no-input", "-q", id)
	if code != exitPaused {
		t.Errorf("resume without an answer: exit %d, want %d (paused again)\n%s", code, exitPaused, errOut)
	}
	code, _, errOut = lppctlCLI(t, "resume", "--run-dir", dir, id, "--answer", "x", "--approve")
	if code != exitUsage {
		t.Errorf("two answers: exit %d\n%s", code, errOut)
	}
	code, out, errOut = lppctlCLI(t, "resume", "--run-dir", dir, "-q", id, "--approve")
	if code != exitOK {
		t.Fatalf("resume --approve: exit %d\n%s%s", code, out, errOut)
	}

	code, out, _ = lppctlCLI(t, "runs", "show", "--run-dir", dir, id)
	for _, want := range []string{"status:   completed", "state:    done", "steps:    28", "resumed:  2 times",
		"L2 skill memory (3):\n  GREETING=Hello, Ada! Welcome to lppctl.\n  GREETING_FILE=output/hello_skill/greeting.txt\n  VERIFIED=yes\n",
		"  step_count        = 3\n"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("runs show lacks %q:\n%s", want, out)
		}
	}
	if m := regexp.MustCompile(`(?m)^tokens:   (\d+)$`).FindStringSubmatch(out); m == nil || m[1] == "0" {
		t.Errorf("runs show counts no tokens:\n%s", out)
	}
	code, out, _ = lppctlCLI(t, "runs", "trace", "--run-dir", dir, id)
	for _, want := range []string{
		"--    +", "started in plan",
		"paused in approve_plan for approval",
		"resumed in approve_plan with --approve",
		"approve_plan → prepare_step_context  (human.approve)  [approval == \"approved\"]",
		"  answer: approve",
		"28 ", "done (final)",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("runs trace lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = lppctlCLI(t, "export", "--run-dir", dir, "--run", id)
	if code != 0 || !strings.Contains(out, "class plan,approve_plan,prepare_step_context,optimizer,tool_executor,evaluator,") {
		t.Errorf("export --run does not highlight the path (exit %d):\n%s%s", code, out, errOut)
	}
}

func TestRunsListsNothingInEmptyStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "none")
	code, out, _ := lppctlCLI(t, "runs", "--run-dir", dir)
	if code != 0 || out != "no runs in "+dir+"\n" {
		t.Errorf("exit %d, %q", code, out)
	}
}

// TestResumeAnswersPauseAfterResumeDied gives the answer again to a run whose
// previous resume (with the answer) died before the answered step was committed.
func TestResumeAnswersPauseAfterResumeDied(t *testing.T) {
	root := newProject(t, "hello_skill")
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "LPPCTL_LLM"} {
		t.Setenv(k, "")
	}
	dir := filepath.Join(t.TempDir(), "runs")
	code, out, errOut := lppctlCLI(t, "run", "-q", "--spec", filepath.Join(root, "specs", "skills_agent.yaml"), "--root", root, "--skill", filepath.Join(root, "skills", "hello_skill"), "--run-dir", dir)
	if code != exitPaused {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	run, err := runstore.New(dir).Open(onlyRun(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	// What a resume --approve killed before committing its step leaves behind.
	run.Meta.Status, run.Meta.Pause = "running", nil
	if err := run.SaveMeta(); err != nil {
		t.Fatal(err)
	}
	j, err := run.OpenJournal(runstore.FsyncNever)
	if err != nil {
		t.Fatal(err)
	}
	j.Mark(&runstore.Entry{Type: runstore.EntryResume, State: "approve_plan"})
	j.Close()

	code, _, errOut = lppctlCLI(t, "resume", "-q", "--run-dir", dir, run.Meta.ID, "--answer", "x", "--approve")
	if code != exitUsage {
		t.Errorf("two answers: exit %d\n%s", code, errOut)
	}
	code, out, errOut = lppctlCLI(t, "resume", "-q", "--run-dir", dir, run.Meta.ID, "--approve")
	if code != exitOK {
		t.Fatalf("resume --approve: exit %d\n%s%s", code, out, errOut)
	}
}
