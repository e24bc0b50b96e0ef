package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine/runstore"
)

// nanSpec divides by a zero that validation cannot see: the run produces a
// float the journal (JSON) cannot hold, unless machine refuses it first.
const nanSpec = `lpp: 1
name: nan
context:
  f: {type: float, default: 1.0}
  z: {type: float, default: 0.0}
  n: {type: int, default: 0}
initial: a
states:
  a:
    set: {n: n + 1}
    next: [{to: b}]
  b:
    set: {f: f / z}
    next: [{to: done}]
  done: {final: true}
`

func TestANonFiniteFloatLeavesAConsistentResumableRun(t *testing.T) {
	tmp := t.TempDir()
	spec, dir := filepath.Join(tmp, "nan.yaml"), filepath.Join(tmp, "runs")
	if err := os.WriteFile(spec, []byte(nanSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := lppctlCLI(t, "run", "-q", "--run-dir", dir, spec)
	if code != exitFailed || !strings.Contains(errOut, "Inf") {
		t.Fatalf("run: exit %d, want %d and an error naming the infinity:\n%s", code, exitFailed, errOut)
	}
	id := onlyRun(t, dir)
	run, err := runstore.New(dir).Open(id)
	if err != nil {
		t.Fatal(err)
	}
	l, err := run.ReadJournal()
	if err != nil {
		t.Fatalf("the journal cannot be read: %v", err)
	}
	// runs, runs show and the journal agree on where the run stands.
	code, out, _ := lppctlCLI(t, "runs", "--run-dir", dir, "--json")
	var listed runstore.Meta
	if code != exitOK || json.Unmarshal([]byte(out), &listed) != nil {
		t.Fatalf("runs --json: exit %d\n%s", code, out)
	}
	code, out, _ = lppctlCLI(t, "runs", "show", "--run-dir", dir, "--json", id)
	var shown struct {
		Status string `json:"status"`
		State  string `json:"state"`
		Steps  int    `json:"steps"`
	}
	if code != exitOK || json.Unmarshal([]byte(out), &shown) != nil {
		t.Fatalf("runs show --json: exit %d\n%s", code, out)
	}
	if listed.Status != "failed" || shown.Status != "failed" || listed.Steps != l.Steps() || shown.Steps != l.Steps() || listed.State != "b" || shown.State != "b" {
		t.Errorf("runs says %s in %s after %d steps, runs show %s in %s after %d, the journal holds %d steps; want failed in b after %d",
			listed.Status, listed.State, listed.Steps, shown.Status, shown.State, shown.Steps, l.Steps(), l.Steps())
	}
	// Once the cause is fixed, the run continues.
	if err := os.WriteFile(spec, []byte(strings.Replace(nanSpec, "f / z", "f / 2", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = lppctlCLI(t, "resume", "-q", "--force", "--run-dir", dir, id)
	if code != exitOK || !strings.Contains(out, "completed in done") {
		t.Errorf("resume after the fix: exit %d\n%s%s", code, out, errOut)
	}
}

func TestRunsAndRunsShowSayAJournalIsDamaged(t *testing.T) {
	_, dir, id := failedCountRun(t)
	journal := filepath.Join(dir, id, runstore.JournalFile)
	b, _ := os.ReadFile(journal)
	if err := os.WriteFile(journal, b[:len(b)*2/3], 0o644); err != nil { // cut short
		t.Fatal(err)
	}
	code, out, errOut := lppctlCLI(t, "runs", "--run-dir", dir)
	if code != exitOK || !strings.Contains(out, id+"  damaged") {
		t.Errorf("runs: exit %d, want the run listed as damaged:\n%s", code, out)
	}
	if want := "warning: the journal of run " + id + ": journal lines are lost: " + journal + " is "; !strings.HasPrefix(errOut, want) {
		t.Errorf("runs: stderr %q, want it to begin %q", errOut, want)
	}
	code, out, errOut = lppctlCLI(t, "runs", "show", "--run-dir", dir, id)
	wantOut := "run:      " + id + "\nstatus:   damaged (run.json says failed, in start after 2 steps)\n"
	wantErr := "lppctl: run " + id + "'s journal is damaged, and resume refuses it: cannot read journal: " + journal + " holds "
	if code != exitFailed || !strings.HasPrefix(out, wantOut) || !strings.HasPrefix(errOut, wantErr) || !strings.Contains(errOut, "are lost") {
		t.Errorf("runs show: exit %d\nstdout %q\nstderr %q\nwant %d, stdout beginning %q, stderr beginning %q", code, out, errOut, exitFailed, wantOut, wantErr)
	}
}

// TestResumeRefusesACrashedRunThatLostLines is the case of the issue: a run
// killed (-9) after step 20, then its journal cut short (8 lines deleted, or
// cut in the middle of line 6). Nothing but the journal recorded how many
// steps were committed, so resume dropped "a torn last line" and ran
// committed steps again. Now it refuses, saying what was lost, changes
// nothing, and runs / runs show list the run as damaged.
func TestResumeRefusesACrashedRunThatLostLines(t *testing.T) {
	t.Parallel() // child processes: independent of the other tests
	bin := buildLppctl(t)
	tests := []struct {
		name string
		cut  func(lines []string) []string
		want string // after "cannot read journal: JOURNAL "
	}{
		{
			name: "8 lines deleted",
			cut:  func(ls []string) []string { return ls[:len(ls)-8] },
			want: "holds 13 complete lines (12 steps), but 21 lines (20 steps) were committed (journal.commit): lines 14–21 (steps 13–20) are lost (the file was cut short or lines were deleted), and the run cannot be rebuilt without them",
		},
		{
			name: "cut in the middle of line 6",
			cut:  func(ls []string) []string { return append(ls[:5:5], ls[5][:len(ls[5])/2]) },
			want: "holds 5 complete lines (4 steps) and a line cut short, but 21 lines (20 steps) were committed (journal.commit): lines 6–21 (steps 5–20) are lost (the file was cut short or lines were deleted), and the run cannot be rebuilt without them",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := newProject(t, "hello_skill")
			if r := runChildKillAfter(t, bin, root, "journal-after-write:20", 0, "run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/hello_skill", "--yes", "-q"); !r.killed {
				t.Fatalf("the run was not killed after step 20: exit %d\n%s", r.code, r.out)
			}
			id := runIDIn(t, root)
			journal := filepath.Join(root, runstore.DefaultDir, id, runstore.JournalFile)
			b, err := os.ReadFile(journal)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
			lines[len(lines)-1] += "\n"
			if len(lines) != 21 {
				t.Fatalf("the killed run's journal holds %d lines, want 21 (start and steps 1–20)", len(lines))
			}
			if err := os.WriteFile(journal, []byte(strings.Join(tt.cut(lines), "")), 0o644); err != nil {
				t.Fatal(err)
			}
			skillsMD, _ := os.ReadFile(filepath.Join(root, "skills/hello_skill/skills.md"))
			before, _ := os.ReadFile(journal)

			r := runChild(t, bin, root, "", "resume", "-q", id)
			want := "lppctl: cannot resume run " + id + ": cannot read journal: " + filepath.Join(runstore.DefaultDir, id, runstore.JournalFile) + " " + tt.want + "\n"
			if r.code != exitFailed || r.out != want {
				t.Errorf("resume: exit %d, output %q\nwant %d, %q", r.code, r.out, exitFailed, want)
			}
			if after, _ := os.ReadFile(journal); string(after) != string(before) {
				t.Error("resume changed the journal it refused")
			}
			if after, _ := os.ReadFile(filepath.Join(root, "skills/hello_skill/skills.md")); string(after) != string(skillsMD) {
				t.Error("resume ran committed steps again: skills.md changed")
			}
			if r := runChild(t, bin, root, "", "runs", "show", id); r.code != exitFailed || !strings.Contains(r.out, "status:   damaged (run.json says crashed") {
				t.Errorf("runs show: exit %d, want %d and the run shown as damaged\n%s", r.code, exitFailed, r.out)
			}
		})
	}
}
