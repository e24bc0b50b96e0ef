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
