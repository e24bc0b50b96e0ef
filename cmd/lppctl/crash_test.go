package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/actions/agent"
	"github.com/lppctl/lppctl/actions/llm"
	"github.com/lppctl/lppctl/internal/promptlog"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

// crashCase is one way to kill a scripted Skills Agent run (hello_skill, 28
// transitions; journal line 1 is the start marker, written when the run
// directory is made, line k+1 is step k, and the journal points count the
// lines a process appends: in lppctl run, hit k is step k; step 8 is the
// commit_step of plan step 1, which appends to skills.md).
type crashCase struct {
	name   string
	point  string        // $LPPCTL_CRASHPOINT of the first `lppctl run --yes`
	pause  bool          // run without --yes (it pauses), then crash `resume --approve` at point
	again  string        // crash point of the first resume as well
	delay  time.Duration // instead of a point: SIGKILL after this long (if still running)
	killed bool          // the first process must die of SIGKILL
}

// crashCases are the kill points: every one under LPPCTL_FULL_TESTS=1,
// else each point's first and last line, one approval resume and one
// SIGKILL at a moment (the cases marked full are left out).
func crashCases(full bool) []crashCase {
	var cs []crashCase
	add := func(point string, lines ...int) {
		if !full && len(lines) > 2 {
			lines = []int{lines[0], lines[len(lines)-1]}
		}
		for _, n := range lines {
			p := fmt.Sprintf("%s:%d", point, n)
			cs = append(cs, crashCase{name: p, point: p, killed: true})
		}
	}
	add("journal-before-write", 1, 8, 17, 28)
	add("journal-mid-write", 1, 4, 8, 9, 16, 17, 24, 28)
	add("journal-after-write", 2, 8, 15, 28)
	add("runjson-write", 2)
	add("runjson-rename", 2)
	add("skillsmd-mid-write", 1, 2, 3)
	add("skillsmd-after-append", 1, 2, 3)
	add("run-created", 1) // the run directory is made, the first action not started
	for _, c := range []struct {
		crashCase
		full bool // only under LPPCTL_FULL_TESTS=1
	}{
		{crashCase{name: "approval resume, journal-mid-write:2", point: "journal-mid-write:2", pause: true, killed: true}, false},
		{crashCase{name: "approval resume, journal-after-write:2", point: "journal-after-write:2", pause: true, killed: true}, true},
		{crashCase{name: "twice, journal-mid-write:11 then 6", point: "journal-mid-write:11", again: "journal-mid-write:6", killed: true}, false},
		{crashCase{name: "twice, skillsmd-after-append:1 then 2", point: "skillsmd-after-append:1", again: "skillsmd-after-append:2", killed: true}, false},
		{crashCase{name: "twice, journal-after-write:5 then resume-started", point: "journal-after-write:5", again: "resume-started:1", killed: true}, false},
		{crashCase{name: "SIGKILL after 80ms", delay: 80 * time.Millisecond}, true},
		{crashCase{name: "SIGKILL after 160ms", delay: 160 * time.Millisecond}, false},
		{crashCase{name: "SIGKILL after 240ms", delay: 240 * time.Millisecond}, true},
	} {
		if full || !c.full {
			cs = append(cs, c.crashCase)
		}
	}
	return cs
}

// TestCrashSafetyResumeMatchesUninterruptedRun kills a scripted Skills Agent
// run (a child process) at many points — between and in the middle of journal
// writes, around run.json and skills.md writes, at random moments — resumes
// it until it completes, and checks that it ends with the same L2, skills.md
// and output as an uninterrupted run, every step committed exactly once and
// every file whole.
//
// Without LPPCTL_FULL_TESTS=1 it kills at fewer points (crashCases).
func TestCrashSafetyResumeMatchesUninterruptedRun(t *testing.T) {
	t.Parallel()
	cases := crashCases(fullTests())
	if !fullTests() {
		t.Logf("%d kill points (%d with %s=1)", len(cases), len(crashCases(true)), EnvFullTests)
	}
	bin := buildLppctl(t)
	ref := newProject(t, "hello_skill")
	res := runChild(t, bin, ref, "", "run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/hello_skill", "--yes", "-q")
	require.Equal(t, 0, res.code, "reference run:\n%s", res.out)
	want := finalState(t, ref)
	require.True(t, len(want.l2) == 3 && want.steps == 28, "reference run: %d steps, L2 %q", want.steps, want.l2)

	t.Run("points", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				root := newProject(t, "hello_skill")
				var res childResult
				if tc.pause {
					r := runChild(t, bin, root, "", "run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/hello_skill", "-q")
					require.Equal(t, exitPaused, r.code, "run without --yes:\n%s", r.out)
					res = runChild(t, bin, root, tc.point, "resume", "-q", runIDIn(t, root), "--approve")
				} else {
					res = runChildKillAfter(t, bin, root, tc.point, tc.delay, "run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/hello_skill", "--yes", "-q")
				}
				require.False(t, tc.killed && !res.killed, "the process was not killed at %s (exit %d)\n%s", tc.point, res.code, res.out)
				if tc.delay > 0 && !hasRun(t, root) {
					// Killed before the run directory existed: nothing was
					// recorded, so the user starts over.
					r := runChild(t, bin, root, "", "run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/hello_skill", "--yes", "-q")
					require.Equal(t, 0, r.code, "run after an early kill:\n%s", r.out)
				}
				id := runIDIn(t, root)
				crash := tc.again
				for attempt := 0; ; attempt++ {
					require.Less(t, attempt, 8, "the run did not complete after %d resumes", attempt)
					res = runChild(t, bin, root, crash, "resume", "-q", "--no-input", id)
					crash = ""
					if res.code == exitPaused { // it stopped before the approval was committed
						res = runChild(t, bin, root, "", "resume", "-q", id, "--approve")
					}
					if res.code == 0 {
						break
					}
					require.True(t, res.killed, "resume: exit %d\n%s", res.code, res.out)
				}
				got := finalState(t, root)
				assert.Equal(t, want.l2, got.l2, "L2")
				assert.Equal(t, want.skillsMD, got.skillsMD, "skills.md differs from the uninterrupted run's")
				assert.Equal(t, want.output, got.output, "greeting.txt")
				assert.Equal(t, want.steps, got.steps, "the journal's steps")
			})
		}
	})

	t.Run("Ctrl-C stops at a clean point and says how to resume", func(t *testing.T) {
		root := slowProject(t)
		cmd := exec.Command(bin, "run", "slow.yaml")
		// The Ctrl-C comes at a fixed point, right after step 3 is
		// committed (a real SIGINT the process sends itself: the crash
		// point NAME:N:INT), so that nothing depends on timing.
		cmd.Dir, cmd.Env = root, childEnv("journal-after-write:3:INT")
		var out, rest bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &rest
		err := cmd.Run()
		var ee *exec.ExitError
		require.True(t, errors.As(err, &ee) && ee.ExitCode() == exitInterrupted, "exit = %v, want %d\n%s%s", err, exitInterrupted, out.String(), rest.String())
		first, _, _ := strings.Cut(rest.String(), "\n")
		require.True(t, strings.HasPrefix(first, "run "), "first stderr line = %q, want the run ID", first)
		id := runIDIn(t, root)
		// 3 steps, or more if the process was descheduled for a whole tick
		// between the signal and its handling: the count is not the verdict.
		assert.Regexp(t, `(?m)^interrupted in tick after ([3-9]|1[0-9]) steps; continue with: lppctl resume `+id+`$`, rest.String(), "the resume hint")
		run, err := runstore.New(filepath.Join(root, runstore.DefaultDir)).Open(id)
		require.NoError(t, err)
		assert.Equal(t, machine.StatusInterrupted, run.Meta.Status)
		res := runChild(t, bin, root, "", "resume", "-q", id)
		require.Equal(t, 0, res.code, "resume:\n%s", res.out)
		got := finalState(t, root)
		assert.Equal(t, 20, got.vars["n"])
		assert.Equal(t, 21, got.steps)
	})
}

// slowProject returns a fresh project holding testdata/runs/slow.yaml.
func slowProject(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	spec, err := os.ReadFile("testdata/runs/slow.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "slow.yaml"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// buildLppctl returns the lppctl binary the tests run as a child process.
// Without the race detector it is the test binary itself, which TestMain
// (testscript.Main) puts on PATH as lppctl: nothing to build. Under -race
// (CI) it is built once per test binary, the first time a test asks for it,
// into a folder TestMain removes at the end (removeBuiltLppctl).
func buildLppctl(t testing.TB) string {
	t.Helper()
	if !raceEnabled {
		return lppctlExe(t)
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "lppctl-test-bin-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "lppctl")
		cmd := exec.Command("go", "build", "-o", built.bin, ".")
		cmd.Dir = testPkgDir // a test may have changed the working directory
		built.out, built.err = cmd.CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("cannot build lppctl: %v\n%s", built.err, built.out)
	}
	return built.bin
}

// testPkgDir is this package's folder, the tests' working directory when
// they start.
var testPkgDir, _ = os.Getwd()

// built is the lppctl binary buildLppctl builds once.
var built struct {
	once     sync.Once
	dir, bin string
	out      []byte
	err      error
}

// removeBuiltLppctl removes the binary buildLppctl built, if it did.
func removeBuiltLppctl() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

type childResult struct {
	code   int
	killed bool // by SIGKILL
	out    string
}

// childEnv is the environment of a child run: no provider, no inherited
// lppctl settings, a fixed clock and the crash point.
func childEnv(point string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "LPPCTL_") || strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "OLLAMA_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "LPPCTL_NOW=2025-01-02T03:04:05Z")
	if point != "" {
		env = append(env, runstore.EnvCrashPoint+"="+point)
	}
	return env
}

func runChild(t *testing.T, bin, root, point string, args ...string) childResult {
	return runChildKillAfter(t, bin, root, point, 0, args...)
}

// runChildKillAfter runs lppctl in root; with a delay, it SIGKILLs it then if it still runs.
func runChildKillAfter(t *testing.T, bin, root, point string, delay time.Duration, args ...string) childResult {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = root, childEnv(point)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if delay > 0 {
		timer := time.AfterFunc(delay, func() { _ = cmd.Process.Kill() })
		defer timer.Stop()
	}
	err := cmd.Wait()
	res := childResult{out: out.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			res.killed = true
		}
	default:
		t.Fatal(err)
	}
	return res
}

// hasRun reports whether the project has a run directory yet.
func hasRun(t *testing.T, root string) bool {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(root, runstore.DefaultDir))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return len(runDirs(ents)) > 0
}

// runDirs leaves out the hidden directories a run is built in before it is
// renamed into place (a kill can leave one behind; lppctl ignores them).
func runDirs(ents []os.DirEntry) []os.DirEntry {
	var out []os.DirEntry
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e)
		}
	}
	return out
}

// runIDIn returns the ID of the only run of the project.
func runIDIn(t *testing.T, root string) string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(root, runstore.DefaultDir))
	ents = runDirs(ents)
	if err != nil || len(ents) != 1 {
		t.Fatalf("want one run in %s: %v %v", root, ents, err)
	}
	return ents[0].Name()
}

type finalRun struct {
	steps    int
	l2       []string
	vars     map[string]any
	skillsMD string
	output   string
}

// finalState checks that the project's run completed with whole files (no
// torn journal line, every step once, run.json readable) and returns what it left.
func finalState(t *testing.T, root string) finalRun {
	t.Helper()
	id := runIDIn(t, root)
	run, err := runstore.New(filepath.Join(root, runstore.DefaultDir)).Open(id)
	if err != nil {
		t.Fatal(err)
	}
	if run.Meta.Status != machine.StatusCompleted {
		t.Errorf("run.json status = %q, want completed", run.Meta.Status)
	}
	l, err := run.ReadJournal() // fails on a step committed twice or a corrupt line
	if err != nil {
		t.Fatal(err)
	}
	if l.Torn != 0 {
		t.Errorf("the journal ends with a torn line: %s", l.TornNote())
	}
	if n := len(l.Records); n == 0 || !l.Records[n-1].End {
		t.Errorf("the journal's last step does not end the run")
	}
	snap, err := runstore.Fold(nil, run.Meta.Vars, l)
	if err != nil {
		t.Fatal(err)
	}
	f := finalRun{steps: l.Steps(), vars: snap.Vars}
	checkPromptsNamed(t, run)
	for _, it := range snap.Memory.Items(agent.MemL2) {
		f.l2 = append(f.l2, string(it))
	}
	if stale, _ := filepath.Glob(filepath.Join(root, "skills", "hello_skill", ".skills.md.tmp-*")); len(stale) > 0 {
		t.Errorf("temporary files of an interrupted skills.md write are left behind: %v", stale)
	}
	if b, err := os.ReadFile(filepath.Join(root, "skills", "hello_skill", "skills.md")); err == nil {
		f.skillsMD = strings.ReplaceAll(string(b), id, "RUN_ID")
	}
	if b, err := os.ReadFile(filepath.Join(root, "output", "hello_skill", "greeting.txt")); err == nil {
		f.output = string(b)
	}
	return f
}

// checkPromptsNamed checks that every message, tools and reply ID the run's
// llm.jsonl names is in its prompts.jsonl (a call's values are written
// before its line, whatever the kill cut).
func checkPromptsNamed(t *testing.T, run *runstore.Run) {
	t.Helper()
	vals, err := promptlog.Read(run.Path(runstore.PromptsFile), nil)
	require.NoError(t, err)
	b, err := os.ReadFile(run.Path(runstore.LLMFile))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] == "" {
		lines = nil
	}
	named := 0
	for _, line := range lines {
		var rec llm.CallRecord
		require.NoError(t, json.Unmarshal([]byte(line), &rec), "llm.jsonl line %q", line)
		for _, id := range append(rec.PromptIDs, rec.ToolsID, rec.ReplyID) {
			if id == "" {
				continue
			}
			named++
			assert.Contains(t, vals, id, "llm.jsonl names %s, which prompts.jsonl lacks", id)
		}
	}
	if len(lines) > 0 {
		assert.NotZero(t, named, "llm.jsonl names no messages")
	}
}
