package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

// The odd situations of durable runs: two resumes at once, a run.json or a
// journal that is damaged, a journal that cannot be written, Ctrl-C before
// the first step.

func TestResumeRefusesARunAnotherProcessHolds(t *testing.T) {
	_, dir, id := failedCountRun(t)
	other, err := runstore.New(dir).Open(id)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Lock("resume"); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := lppctlCLI(t, "resume", "--run-dir", dir, "--max-transitions", "10", id)
	want := fmt.Sprintf("lppctl: run %s is being resumed by another process (pid %d)\n", id, os.Getpid())
	if code != exitFailed || errOut != want {
		t.Errorf("resume while another holds the run: exit %d, %q; want %d, %q", code, errOut, exitFailed, want)
	}
	other.Unlock()
	if code, _, errOut := lppctlCLI(t, "resume", "-q", "--run-dir", dir, "--max-transitions", "10", id); code != exitOK {
		t.Errorf("resume once the other let go: exit %d\n%s", code, errOut)
	}
}

// TestTwoResumesAtOnce gives the same approval to a paused Skills Agent run
// twice at once (two processes): one resume continues the run, the other is
// refused (or, if it got the lock after the first finished, finds the run
// completed), and the journal holds every step once.
func TestTwoResumesAtOnce(t *testing.T) {
	t.Parallel() // child processes: independent of the other tests
	bin := buildLppctl(t)
	root := newProject(t, "hello_skill")
	if r := runChild(t, bin, root, "", "run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/hello_skill", "-q"); r.code != exitPaused {
		t.Fatalf("run: exit %d, want %d\n%s", r.code, exitPaused, r.out)
	}
	id := runIDIn(t, root)
	var wg sync.WaitGroup
	res := make([]childResult, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = runChild(t, bin, root, "", "resume", "-q", id, "--approve")
		}()
	}
	wg.Wait()
	refused := regexp.MustCompile(`(?m)^lppctl: run ` + id + ` is being resumed by another process \(pid \d+\)$`)
	completed := regexp.MustCompile(`(?m)^completed in done after 28 steps$`)
	already := regexp.MustCompile(`(?m)^run ` + id + ` has already completed in done after 28 steps; nothing left to run$`)
	ran := 0
	for i, r := range res {
		switch {
		case r.code == exitOK && completed.MatchString(r.out):
			ran++
		case r.code == exitFailed && refused.MatchString(r.out), r.code == exitOK && already.MatchString(r.out):
		default:
			t.Errorf("resume %d: exit %d\n%s", i, r.code, r.out)
		}
	}
	if ran != 1 {
		t.Errorf("%d resumes ran the run, want 1:\n%s\n---\n%s", ran, res[0].out, res[1].out)
	}
	if got := finalState(t, root); got.steps != 28 || len(got.l2) != 3 {
		t.Errorf("after the resumes: %d steps, L2 %q", got.steps, got.l2)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "skills", "hello_skill", "skills.md")); strings.Count(string(b), "<!-- lppctl:entry ") != 3 {
		t.Errorf("skills.md holds %d entries, want 3", strings.Count(string(b), "<!-- lppctl:entry "))
	}
}

func TestRunsShowsACrashedRunWhosePIDWasReused(t *testing.T) {
	_, dir, id := failedCountRun(t)
	metaPath := filepath.Join(dir, id, runstore.MetaFile)
	var m map[string]any
	b, _ := os.ReadFile(metaPath)
	json.Unmarshal(b, &m)
	// As if killed -9 while running, its pid since given to a live process.
	m["status"], m["pid"] = "running", os.Getppid()
	b, _ = json.Marshal(m)
	os.WriteFile(metaPath, b, 0o644)
	// Killed before its fail marker was written (a journal that says how the
	// run ended is listed so: TestRunsReadsHowARunEndedFromItsJournalWhenRunJSONLags).
	journal := filepath.Join(dir, id, runstore.JournalFile)
	b, _ = os.ReadFile(journal)
	os.WriteFile(journal, b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1], 0o644)
	os.Remove(filepath.Join(dir, id, runstore.CommitFile))
	code, out, _ := lppctlCLI(t, "runs", "--run-dir", dir)
	if code != 0 || !regexp.MustCompile(`(?m)^`+id+`\s+crashed\s`).MatchString(out) {
		t.Errorf("runs (exit %d):\n%s", code, out)
	}
	code, out, _ = lppctlCLI(t, "runs", "show", "--run-dir", dir, id)
	if code != 0 || !strings.Contains(out, "status:   crashed\n") || !strings.Contains(out, "continue: lppctl resume "+id+" --run-dir "+dir+"\n") {
		t.Errorf("runs show (exit %d):\n%s", code, out)
	}
	code, out, _ = lppctlCLI(t, "runs", "trace", "--run-dir", dir, id)
	if want := "--                         crashed: the process stopped without a word (killed?); continue with: lppctl resume " + id + " --run-dir " + dir + "\n"; code != 0 || !strings.HasSuffix(out, want) {
		t.Errorf("runs trace (exit %d) does not end with %q:\n%s", code, want, out)
	}
	if code, _, errOut := lppctlCLI(t, "resume", "-q", "--run-dir", dir, "--max-transitions", "10", id); code != exitOK {
		t.Errorf("resume: exit %d\n%s", code, errOut)
	}
}

func TestResumeRebuildsALostOrTornRunJSON(t *testing.T) {
	for name, damage := range map[string]func(string) error{
		"missing": os.Remove,
		"torn":    func(p string) error { return os.Truncate(p, 100) },
	} {
		t.Run(name, func(t *testing.T) {
			_, dir, id := failedCountRun(t)
			metaPath := filepath.Join(dir, id, runstore.MetaFile)
			if err := damage(metaPath); err != nil {
				t.Fatal(err)
			}
			code, out, _ := lppctlCLI(t, "runs", "--run-dir", dir)
			if code != 0 || !regexp.MustCompile(`(?m)^`+id+`\s+failed\s+\S+count.yaml\s.*\s2\s+0\s+start$`).MatchString(out) {
				t.Errorf("runs (exit %d):\n%s", code, out)
			}
			code, out, errOut := lppctlCLI(t, "resume", "-q", "--run-dir", dir, "--max-transitions", "10", id)
			if code != exitOK {
				t.Fatalf("resume: exit %d\n%s%s", code, out, errOut)
			}
			want := regexp.MustCompile(`^note: cannot read run metadata: .*; rebuilt it from the journal \(failed, 2 steps\)\n`)
			if !want.MatchString(errOut) {
				t.Errorf("stderr = %q, want a note matching %s", errOut, want)
			}
			run, err := runstore.New(dir).Open(id)
			if err != nil || run.Rebuilt != nil || run.Meta.Status != machine.StatusCompleted || run.Meta.Steps != 5 {
				t.Errorf("run.json after resume: %+v, %v (rebuilt %v)", run.Meta, err, run.Rebuilt)
			}
		})
	}
}

func TestResumeRefusesAJournalThatLostLines(t *testing.T) {
	tests := []struct {
		name   string
		legacy bool                    // a run of a version without journal.commit
		edit   func([]string) []string // the journal's lines
		want   string                  // after "lppctl: cannot resume run ID: "; JOURNAL is its path
	}{
		{
			name: "truncated to zero",
			edit: func([]string) []string { return nil },
			want: "cannot read journal: JOURNAL holds 0 complete lines (0 steps), but 4 lines (2 steps) were committed (journal.commit): lines 1–4 (steps 1–2) are lost (the file was cut short or lines were deleted), and the run cannot be rebuilt without them",
		},
		{
			name: "its beginning lost",
			edit: func(ls []string) []string { return ls[1:] },
			want: "cannot read journal: JOURNAL:1: journal lines are lost: the journal does not begin with the run's start marker: its beginning is lost (truncated or replaced), and the run cannot be rebuilt without it",
		},
		{
			name: "its last step lost",
			edit: func(ls []string) []string { return ls[:2] },
			want: "cannot read journal: JOURNAL holds 2 complete lines (1 step), but 4 lines (2 steps) were committed (journal.commit): lines 3–4 (step 2) are lost (the file was cut short or lines were deleted), and the run cannot be rebuilt without them",
		},
		{
			name: "cut in the middle of a line",
			edit: func(ls []string) []string { return []string{ls[0], ls[1][:len(ls[1])/2]} },
			want: "cannot read journal: JOURNAL holds 1 complete line (0 steps) and a line cut short, but 4 lines (2 steps) were committed (journal.commit): lines 2–4 (steps 1–2) are lost (the file was cut short or lines were deleted), and the run cannot be rebuilt without them",
		},
		{
			name: "a line replaced by one with a valid checksum",
			edit: func(ls []string) []string {
				return []string{ls[0], rechecksum(strings.Replace(ls[1], `"seq":1`, `"seq":1,"x":1`, 1)), ls[2], ls[3]}
			},
			want: "cannot read journal: JOURNAL: its first 1234 bytes are not the 4 lines that were committed (journal.commit): lines were changed, replaced or reordered, and the run cannot be rebuilt from them",
		},
		{
			name:   "another run's journal",
			legacy: true, // copied over without its own journal.commit
			edit: func(ls []string) []string {
				return append([]string{rechecksum(strings.Replace(ls[0], `"meta":{"id":"`, `"meta":{"id":"X`, 1))}, ls[1:]...)
			},
			want: "cannot read journal: JOURNAL:1: the journal is run XID's, not this run's (copied over?)",
		},
		{
			name: "another run's journal of as many lines, shorter",
			edit: func(ls []string) []string {
				fail := strings.Replace(ls[3], "transition budget exhausted", "budget", 1)
				return []string{rechecksum(strings.Replace(ls[0], `"meta":{"id":"`, `"meta":{"id":"X`, 1)), ls[1], ls[2], rechecksum(fail)}
			},
			want: "cannot read journal: JOURNAL:1: the journal is run XID's, not this run's (copied over?)",
		},
		{
			name: "as many lines as were committed, shorter",
			edit: func(ls []string) []string {
				return []string{ls[0], ls[1], ls[2], rechecksum(strings.Replace(ls[3], "transition budget exhausted", "budget", 1))}
			},
			want: "cannot read journal: JOURNAL: its first 1234 bytes are not the 4 lines that were committed (journal.commit): lines were changed, replaced or reordered, and the run cannot be rebuilt from them",
		},
		{
			name: "a flipped byte in the middle",
			edit: func(ls []string) []string {
				return []string{ls[0], strings.Replace(ls[1], `"from":"start"`, `"from":"starT"`, 1), ls[2], ls[3]}
			},
			want: "cannot read journal: JOURNAL:2: damaged line: the line's checksum is CRC but it was written with CRC: it was changed after it was written (a flipped byte, an edit), and the run cannot be rebuilt from it",
		},
		{
			name: "garbage in the middle",
			edit: func(ls []string) []string { return append([]string{ls[0], "\x00\x00garbage\n"}, ls[1:]...) },
			want: "cannot read journal: JOURNAL:2: invalid JSON: invalid character '\\x00' looking for beginning of value",
		},
		{
			name:   "without a commit record: truncated to zero",
			legacy: true,
			edit:   func([]string) []string { return nil },
			want:   "its journal JOURNAL is empty (run.json records 2 steps): it was truncated or replaced, and the run cannot be rebuilt without it",
		},
		{
			name:   "without a commit record: its beginning lost",
			legacy: true,
			edit:   func(ls []string) []string { return ls[1:] },
			want:   "JOURNAL:1: the journal does not begin with the run's start marker: its beginning is lost (truncated or replaced), and the run cannot be rebuilt without it",
		},
		{
			name:   "without a commit record: its last step lost",
			legacy: true,
			edit:   func(ls []string) []string { return ls[:2] },
			want:   "run.json records 2 committed steps, but its journal JOURNAL holds 1: lines are lost (truncated or replaced), and the run cannot be rebuilt without them",
		},
	}
	crc := regexp.MustCompile(`[0-9a-f]{8} but it was written with [0-9a-f]{8}`)
	size := regexp.MustCompile(`its first [0-9]+ bytes`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, dir, id := failedCountRun(t)
			journal := filepath.Join(dir, id, runstore.JournalFile)
			if tt.legacy {
				os.Remove(filepath.Join(dir, id, runstore.CommitFile))
			}
			b, _ := os.ReadFile(journal)
			lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
			lines[len(lines)-1] += "\n"
			if len(lines) != 4 { // start, 2 steps, fail
				t.Fatalf("journal of %d lines:\n%s", len(lines), b)
			}
			os.WriteFile(journal, []byte(strings.Join(tt.edit(lines), "")), 0o644)
			before, _ := os.ReadFile(journal)
			code, _, errOut := lppctlCLI(t, "resume", "--run-dir", dir, "--max-transitions", "10", id)
			errOut = size.ReplaceAllString(crc.ReplaceAllString(errOut, "CRC but it was written with CRC"), "its first 1234 bytes")
			want := "lppctl: cannot resume run " + id + ": " + strings.ReplaceAll(strings.ReplaceAll(tt.want, "JOURNAL", journal), "XID", "X"+id) + "\n"
			if code != exitFailed || errOut != want {
				t.Errorf("exit %d, stderr %q\nwant %d, %q", code, errOut, exitFailed, want)
			}
			if after, _ := os.ReadFile(journal); string(after) != string(before) {
				t.Errorf("the refused resume changed the journal")
			}
		})
	}
}

// rechecksum gives an edited journal line (with its newline) the checksum
// of its new content, as a line written so would have.
func rechecksum(line string) string {
	body := strings.TrimSuffix(line, "\n")
	i := strings.LastIndex(body, `,"crc":"`)
	body = body[:i] + "}"
	sum := crc32.Checksum([]byte(body), crc32.MakeTable(crc32.Castagnoli))
	return fmt.Sprintf(`%s,"crc":"%08x"}`+"\n", body[:len(body)-1], sum)
}

func TestResumeForceWithASpecTheJournalDoesNotFitKeepsTheCopy(t *testing.T) {
	spec, dir, id := failedCountRun(t)
	edited := strings.ReplaceAll(countSpec, "start", "begin")
	if err := os.WriteFile(spec, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := lppctlCLI(t, "resume", "-q", "--run-dir", dir, "--max-transitions", "10", "--force", id)
	want := "lppctl: cannot resume run " + id + ` with the new spec: cannot replay step 1: it starts in "start" but the run is in "begin"` + "\n"
	if code != exitFailed || !strings.HasSuffix(errOut, want) {
		t.Errorf("resume --force: exit %d, stderr %q; want it to end with %q", code, errOut, want)
	}
	cp, _ := os.ReadFile(filepath.Join(dir, id, runstore.SpecFile))
	if string(cp) != countSpec {
		t.Errorf("the run's copy of its spec was replaced by the spec it could not continue with:\n%s", cp)
	}
	os.WriteFile(spec, []byte(countSpec), 0o644) // restored
	if code, _, errOut := lppctlCLI(t, "resume", "-q", "--run-dir", dir, "--max-transitions", "10", id); code != exitOK {
		t.Errorf("resume with the spec restored: exit %d\n%s", code, errOut)
	}
}

// TestJournalWriteErrorStopsTheRun runs lppctl with a file size limit (as a
// full disk would): the journal write that fails stops the run, leaves no
// half line, run.json counts the steps the journal holds, and resume
// continues once the limit is gone.
func TestJournalWriteErrorStopsTheRun(t *testing.T) {
	t.Parallel() // child processes: independent of the other tests
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	bin := buildLppctl(t)
	root := t.TempDir()
	src := strings.Replace(countSpec, "default: 4", "default: 300", 1)
	if err := os.WriteFile(filepath.Join(root, "count.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `ulimit -f 16 && exec "$0" run -q --run-dir runs --fsync never count.yaml`, bin)
	cmd.Dir, cmd.Env = root, childEnv("")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitFailed {
		t.Fatalf("run under a file size limit: %v\n%s", err, out)
	}
	dir := filepath.Join(root, "runs")
	id := onlyRun(t, dir)
	journal := filepath.Join("runs", id, runstore.JournalFile)
	re := regexp.MustCompile(`lppctl: run ` + id + ` stopped: cannot record step (\d+): cannot write journal: write ` + regexp.QuoteMeta(journal) + `: file too large\n` +
		`the journal holds (\d+) steps \(the run stands in start\); once the cause is fixed, continue with: lppctl resume ` + id + ` --run-dir runs\n$`)
	sub := re.FindStringSubmatch(string(out))
	if sub == nil {
		t.Fatalf("output lacks the journal error:\n%s", out)
	}
	run, err := runstore.New(dir).Open(id)
	if err != nil {
		t.Fatal(err)
	}
	l, err := run.ReadJournal()
	if err != nil || l.Torn != 0 {
		t.Fatalf("journal after the failed write: %v, %s", err, l.TornNote())
	}
	if fmt.Sprint(l.Steps()) != sub[2] || fmt.Sprint(l.Steps()+1) != sub[1] || run.Meta.Steps != l.Steps() || run.Meta.Status != machine.StatusFailed {
		t.Errorf("journal holds %d steps; message says %s then %s; run.json: %d steps, %s", l.Steps(), sub[1], sub[2], run.Meta.Steps, run.Meta.Status)
	}
	if res := runChild(t, bin, root, "", "resume", "-q", "--run-dir", "runs", id); res.code != 0 {
		t.Fatalf("resume without the limit: exit %d\n%s", res.code, res.out)
	}
	got := finalStateIn(t, dir, id)
	if got.vars["n"] != 300 || got.steps != 301 {
		t.Errorf("after resume: n = %v after %d steps, want 300 after 301", got.vars["n"], got.steps)
	}
}

// finalStateIn reads a completed run's journal back: every step once, no torn line.
func finalStateIn(t *testing.T, dir, id string) finalRun {
	t.Helper()
	run, err := runstore.New(dir).Open(id)
	if err != nil {
		t.Fatal(err)
	}
	if run.Meta.Status != machine.StatusCompleted {
		t.Errorf("run.json status = %q, want completed", run.Meta.Status)
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
	return finalRun{steps: l.Steps(), vars: snap.Vars}
}

// TestCtrlCBeforeTheFirstStep interrupts lppctl run while it loads the spec
// (nothing is recorded), right after it made the run directory, and lppctl
// resume right after it marked the run running: all stop at a clean point
// (exit 130, the resume hint) and the run completes on resume.
func TestCtrlCBeforeTheFirstStep(t *testing.T) {
	t.Parallel() // child processes: independent of the other tests
	bin := buildLppctl(t)
	root := slowProject(t)
	res := runChild(t, bin, root, "run-loaded:1:INT", "run", "-q", "slow.yaml")
	if want := "lppctl: interrupted before the run started; nothing was recorded\n"; res.code != exitInterrupted || res.out != want || hasRun(t, root) {
		t.Fatalf("run interrupted while it loads the spec: exit %d (killed %v), %q; want %d, %q and no run", res.code, res.killed, res.out, exitInterrupted, want)
	}
	res = runChild(t, bin, root, "run-created:1:INT", "run", "-q", "slow.yaml")
	id := ""
	if ids := regexp.MustCompile(`continue with: lppctl resume (\S+)\n`).FindStringSubmatch(res.out); ids != nil {
		id = ids[1]
	}
	if res.code != exitInterrupted || id == "" || !strings.Contains(res.out, "interrupted in tick after 0 steps; continue with: lppctl resume "+id+"\n") {
		t.Fatalf("run interrupted after creating the run: exit %d (killed %v)\n%s", res.code, res.killed, res.out)
	}
	res = runChild(t, bin, root, "resume-started:1:INT", "resume", "-q", id)
	if res.code != exitInterrupted || !strings.Contains(res.out, "interrupted in tick after 0 steps; continue with: lppctl resume "+id+"\n") {
		t.Fatalf("resume interrupted before its first step: exit %d (killed %v)\n%s", res.code, res.killed, res.out)
	}
	if res := runChild(t, bin, root, "", "resume", "-q", id); res.code != 0 {
		t.Fatalf("resume: exit %d\n%s", res.code, res.out)
	}
	got := finalState(t, root)
	if got.vars["n"] != 20 || got.steps != 21 {
		t.Errorf("after resume: n = %v after %d steps, want 20 after 21", got.vars["n"], got.steps)
	}
}

// TestRunsTellsARunningRunFromACrashedOne runs a spec that holds (an hour's
// wait after 3 ticks) in a child process: while it holds, lppctl runs says
// running and resume is refused; once it is killed -9, runs says crashed,
// and resume --event GO completes it. Nothing depends on timing: the test
// acts once step 3 (into hold) is committed, and the run holds until killed.
func TestRunsTellsARunningRunFromACrashedOne(t *testing.T) {
	t.Parallel() // a child process; its in-process commands take turns (lppctlCLI)
	bin := buildLppctl(t)
	root := t.TempDir()
	spec, err := os.ReadFile("testdata/runs/hold.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "hold.yaml"), spec, 0o644))
	cmd := exec.Command(bin, "run", "hold.yaml")
	cmd.Dir, cmd.Env = root, childEnv("")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr syncBuffer // read while the process writes it
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()
	safety := time.AfterFunc(5*time.Minute, func() { _ = cmd.Process.Kill() }) // a hang fails, not a slow machine
	defer safety.Stop()
	sc := bufio.NewScanner(stdout)
	held := false
	for !held && sc.Scan() {
		held = strings.HasPrefix(sc.Text(), "[3] tick → hold") // committed before it is printed
	}
	require.True(t, held, "the run never reached hold (stderr: %s)", stderr.String())
	go io.Copy(io.Discard, stdout) //nolint:errcheck // keep the pipe drained
	id := runIDIn(t, root)
	dir := filepath.Join(root, runstore.DefaultDir)

	code, out, _ := lppctlCLI(t, "runs", "--run-dir", dir)
	assert.Equal(t, exitOK, code)
	assert.Regexp(t, `(?m)^`+id+`\s+running\s`, out, "runs while it runs")
	code, _, errOut := lppctlCLI(t, "resume", "--run-dir", dir, id)
	assert.Equal(t, exitFailed, code)
	assert.Equal(t, fmt.Sprintf("lppctl: run %s is still running in another process (pid %d)\n", id, cmd.Process.Pid), errOut, "resume while it runs")

	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	code, out, _ = lppctlCLI(t, "runs", "--run-dir", dir)
	assert.Equal(t, exitOK, code)
	assert.Regexp(t, `(?m)^`+id+`\s+crashed\s`, out, "runs after kill -9")
	// Its duration runs to its last committed step (3 ticks of 60 ms), not to its start.
	_, out, _ = lppctlCLI(t, "runs", "show", "--run-dir", dir, id)
	m := regexp.MustCompile(`(?m)^started:  \S+ \(([^)]+)\)$`).FindStringSubmatch(out)
	require.NotNil(t, m, "runs show:\n%s", out)
	d, err := time.ParseDuration(m[1])
	require.NoError(t, err)
	assert.GreaterOrEqual(t, d, 180*time.Millisecond, "a crashed run's duration: its time to the last committed step")

	res := runChild(t, bin, root, "", "resume", "-q", id, "--event", "GO")
	require.Equal(t, 0, res.code, "resume after kill -9:\n%s", res.out)
	got := finalState(t, root)
	assert.Equal(t, 3, got.vars["n"])
	assert.Equal(t, 5, got.steps)
}

func TestTraceOffsetWhenTheClockWentBack(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 15, 30, 12, 0, time.UTC)
	for _, tt := range []struct {
		t    time.Time
		want string
	}{
		{t0.Add(1500 * time.Millisecond), "+1.5s"},
		{t0.Add(-2 * time.Second), "-2s"},
		{time.Time{}, ""},
	} {
		if got := traceOffset(t0, tt.t); got != tt.want {
			t.Errorf("traceOffset(%v) = %q, want %q", tt.t, got, tt.want)
		}
	}
}

// TestResumeRefusesAReadOnlyRun makes a run's directory read-only: resume
// refuses it before it changes anything, naming the directory. (root writes
// anyway: the test needs another user.)
func TestResumeRefusesAReadOnlyRun(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root can write to a read-only directory")
	}
	_, dir, id := failedCountRun(t)
	runDir := filepath.Join(dir, id)
	if err := os.Chmod(runDir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(runDir, 0o755)
	code, _, errOut := lppctlCLI(t, "resume", "--run-dir", dir, "--max-transitions", "10", id)
	want := regexp.MustCompile(`^lppctl: cannot resume run ` + id + `: its directory ` + regexp.QuoteMeta(runDir) + ` is not writable: open .*: permission denied\n$`)
	if code != exitFailed || !want.MatchString(errOut) {
		t.Errorf("exit %d, stderr %q; want %s", code, errOut, want)
	}
}

// TestTheSameResumeCommandAgainAfterAKill repeats `resume ID --approve`
// after it was killed once the approval was committed, and repeats it again
// after the run completed: both finish with exit 0, nothing twice.
func TestTheSameResumeCommandAgainAfterAKill(t *testing.T) {
	t.Parallel() // child processes: independent of the other tests
	bin := buildLppctl(t)
	root := newProject(t, "hello_skill")
	if r := runChild(t, bin, root, "", "run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/hello_skill", "-q"); r.code != exitPaused {
		t.Fatalf("run: exit %d\n%s", r.code, r.out)
	}
	id := runIDIn(t, root)
	if r := runChild(t, bin, root, "journal-after-write:2", "resume", "-q", id, "--approve"); !r.killed {
		t.Fatalf("resume --approve was not killed after the approval was committed: exit %d\n%s", r.code, r.out)
	}
	r := runChild(t, bin, root, "", "resume", "-q", id, "--approve")
	if want := "note: run " + id + " already took this answer (step 2); continuing without it\n"; r.code != 0 || !strings.Contains(r.out, want) {
		t.Fatalf("the same resume --approve again: exit %d, want 0 and %q\n%s", r.code, want, r.out)
	}
	r = runChild(t, bin, root, "", "resume", "-q", id, "--approve")
	if want := "run " + id + " has already completed in done after 28 steps; nothing left to run\n"; r.code != 0 || !strings.Contains(r.out, want) {
		t.Fatalf("resume --approve of the completed run: exit %d, want 0 and %q\n%s", r.code, want, r.out)
	}
	if got := finalState(t, root); got.steps != 28 || len(got.l2) != 3 {
		t.Errorf("after resume: %d steps, L2 %q", got.steps, got.l2)
	}
}

func TestResumeHintNamesTheRunDirectory(t *testing.T) {
	for dir, want := range map[string]string{
		".lppctl/runs":   "lppctl resume ID",
		"./.lppctl/runs": "lppctl resume ID",
		"myruns":         "lppctl resume ID --run-dir myruns",
		"../x/runs":      "lppctl resume ID --run-dir ../x/runs",
		"/tmp/my runs":   "lppctl resume ID --run-dir '/tmp/my runs'",
		"it's":           `lppctl resume ID --run-dir 'it'\''s'`,
	} {
		if got := resumeHint(runstore.New(dir), "ID"); got != want {
			t.Errorf("resumeHint(%q) = %q, want %q", dir, got, want)
		}
	}
}
