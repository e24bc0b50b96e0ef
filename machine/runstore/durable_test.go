package runstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lppctl/lppctl/machine"
)

func TestLockExcludesASecondHolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no advisory locks")
	}
	s := New(t.TempDir())
	run, err := s.Create(Meta{Spec: "x.yaml"}, []byte("spec"))
	if err != nil {
		t.Fatal(err)
	}
	// Create locks the run for its maker.
	other, err := s.Open(run.Meta.ID)
	if err != nil {
		t.Fatal(err)
	}
	err = other.Lock("resume")
	want := fmt.Sprintf("run %s is still running in another process (pid %d)", run.Meta.ID, os.Getpid())
	var locked *LockedError
	if !errors.As(err, &locked) || err.Error() != want {
		t.Fatalf("Lock while the maker holds it = %v, want %q", err, want)
	}
	if pid, cmd, held, known := other.Holder(); !held || !known || pid != os.Getpid() || cmd != "run" {
		t.Errorf("Holder = %d %q held=%v known=%v", pid, cmd, held, known)
	}
	if !other.Working() {
		t.Error("Working = false while the lock is held")
	}
	// The lock file is only a note of who holds the lock: deleting it (as a
	// "stale lock") does not let a second process in.
	if err := os.Remove(run.Path(LockFile)); err != nil {
		t.Fatal(err)
	}
	err = other.Lock("resume")
	if want := fmt.Sprintf("run %s is being resumed by another process (pid unknown)", run.Meta.ID); err == nil || err.Error() != want {
		t.Errorf("Lock with the lock file deleted = %v, want %q", err, want)
	}
	run.Unlock()
	if other.Working() {
		t.Error("Working = true after Unlock")
	}
	if err := other.Lock("resume"); err != nil {
		t.Fatalf("Lock after Unlock: %v", err)
	}
	third, _ := s.Open(run.Meta.ID)
	want = fmt.Sprintf("run %s is being resumed by another process (pid %d)", run.Meta.ID, os.Getpid())
	if err := third.Lock("resume"); err == nil || err.Error() != want {
		t.Errorf("second resume's Lock = %v, want %q", err, want)
	}
	other.Unlock()
}

func TestWorkingIgnoresAReusedPID(t *testing.T) {
	s := New(t.TempDir())
	run, err := s.Create(Meta{Spec: "x.yaml", PID: os.Getppid()}, []byte("spec"))
	if err != nil {
		t.Fatal(err)
	}
	run.Unlock() // the process that ran it died; its pid now names another, live process
	got, _ := s.Open(run.Meta.ID)
	if got.Working() {
		t.Errorf("Working = true for a run whose lock is free (pid %d is alive but not running it)", got.Meta.PID)
	}
}

func TestCreateRemovesStaleHiddenDirectories(t *testing.T) {
	s := New(t.TempDir())
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old, fresh := filepath.Join(s.Dir, ".new-1"), filepath.Join(s.Dir, ".new-2")
	for _, d := range []string{old, fresh} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, SpecFile), []byte("x"), 0o644)
	}
	then := time.Now().Add(-2 * staleAge)
	if err := os.Chtimes(old, then, then); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(Meta{Spec: "x.yaml"}, []byte("spec")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("a stale %s is left: %v", old, err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a directory being made now was removed: %v", err)
	}
}

func TestJournalWriteErrorLeavesNoPartialLineAndStopsWriting(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	s := New(t.TempDir())
	run, err := s.Create(Meta{Spec: "x.yaml"}, []byte("spec"))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(run.Path(JournalFile))
	if err := os.Symlink("/dev/full", run.Path(JournalFile)); err != nil {
		t.Fatal(err)
	}
	j, err := run.OpenJournal(FsyncNever)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	j.SetCommitted(3, "b")
	err = j.OnStep(context.Background(), &machine.Record{Seq: 4, From: "b", To: "c"})
	want := "cannot write journal: write " + run.Path(JournalFile) + ": no space left on device"
	if err == nil || err.Error() != want {
		t.Fatalf("OnStep on a full disk = %v, want %q", err, want)
	}
	if seq, state := j.Committed(); seq != 3 || state != "b" {
		t.Errorf("Committed = %d, %q; want 3, b (the failed step is not committed)", seq, state)
	}
	err = j.Mark(&Entry{Type: EntryFail})
	if err == nil || !strings.HasPrefix(err.Error(), "cannot write journal: it is unusable after an earlier error: ") {
		t.Errorf("Mark after a write error = %v", err)
	}
}

func TestJournalWriteErrorCutsThePartialLine(t *testing.T) {
	s := New(t.TempDir())
	run, err := s.Create(Meta{Spec: "x.yaml"}, []byte("spec"))
	if err != nil {
		t.Fatal(err)
	}
	j, err := run.OpenJournal(FsyncAlways)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.OnStep(context.Background(), &machine.Record{Seq: 1, From: "a", To: "b"}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(run.Path(JournalFile))
	// A write that fails half-way, as on a full disk: simulated by closing
	// the file under the journal after writing half a line to it.
	f, _ := os.OpenFile(run.Path(JournalFile), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"type":"step","seq":2,"fr`)
	f.Close()
	j.f.Close()
	if err := j.OnStep(context.Background(), &machine.Record{Seq: 2, From: "b", To: "c"}); err == nil {
		t.Fatal("OnStep on a closed file succeeded")
	}
	j.f, _ = os.OpenFile(run.Path(JournalFile), os.O_WRONLY|os.O_APPEND, 0)
	_ = j.fail(errors.New("again")) // fail cuts back to the last whole line
	after, _ := os.ReadFile(run.Path(JournalFile))
	if string(after) != string(before) {
		t.Errorf("journal after a failed write:\n%s\nwant:\n%s", after, before)
	}
}

func TestRebuildMetaFromJournal(t *testing.T) {
	s := New(t.TempDir())
	start := time.Date(2026, 11, 22, 15, 30, 12, 0, time.UTC)
	run, err := s.Create(Meta{Spec: "x.yaml", State: "a", Start: start, Vars: map[string]any{"n": 2}, MaxTransitions: 7, Agent: []byte(`{"skill":"s"}`)}, []byte("spec"))
	if err != nil {
		t.Fatal(err)
	}
	j, _ := run.OpenJournal(FsyncNever)
	j.OnStep(context.Background(), &machine.Record{Seq: 1, From: "a", To: "b"})
	j.Mark(&Entry{Type: EntryPause, State: "b", Pause: &machine.PauseError{State: "b", Kind: "approval", Prompt: "ok?"}})
	j.Close()
	for name, damage := range map[string]func(string) error{
		"missing": os.Remove,
		"torn":    func(p string) error { return os.Truncate(p, 40) },
		"empty":   func(p string) error { return os.Truncate(p, 0) },
	} {
		t.Run(name, func(t *testing.T) {
			if err := run.SaveMeta(); err != nil {
				t.Fatal(err)
			}
			if err := damage(run.Path(MetaFile)); err != nil {
				t.Fatal(err)
			}
			got, err := s.Open(run.Meta.ID)
			if err != nil {
				t.Fatal(err)
			}
			m := got.Meta
			if got.Rebuilt == nil || !strings.HasPrefix(got.Rebuilt.Error(), "cannot read run metadata: ") {
				t.Errorf("Rebuilt = %v", got.Rebuilt)
			}
			if m.ID != run.Meta.ID || m.Status != machine.StatusPaused || m.State != "b" || m.Steps != 1 || m.Pause == nil || m.Pause.Kind != "approval" ||
				m.MaxTransitions != 7 || m.Vars["n"] != 2 || string(m.Agent) != `{"skill":"s"}` || !m.Start.Equal(start) {
				t.Errorf("rebuilt meta = %+v", m)
			}
			runs, _ := s.List()
			if len(runs) != 1 || runs[0].Meta.Status != machine.StatusPaused {
				t.Errorf("List = %+v", runs[0].Meta)
			}
		})
	}
	os.Remove(run.Path(MetaFile))
	os.Truncate(run.Path(JournalFile), 0)
	_, err = s.Open(run.Meta.ID)
	if err == nil || !errors.Is(err, ErrLost) || !strings.HasSuffix(err.Error(), "journal.jsonl holds 0 complete lines (0 steps), but 3 lines (1 step) were committed (journal.commit): lines 1–3 (step 1) are lost (the file was cut short or lines were deleted), and the run cannot be rebuilt without them") {
		t.Errorf("Open with neither run.json nor journal = %v", err)
	}
	os.Remove(run.Path(CommitFile)) // a run of a version without commit records
	_, err = s.Open(run.Meta.ID)
	if err == nil || !strings.HasSuffix(err.Error(), "; the journal holds no copy of it to rebuild it from") {
		t.Errorf("Open with neither run.json nor journal nor commit record = %v", err)
	}
}

func TestOpenLogCutsATornLastLine(t *testing.T) {
	s := New(t.TempDir())
	run, err := s.Create(Meta{Spec: "x.yaml"}, []byte("spec"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ before, want string }{
		{"", "{\"n\":9}\n"},
		{"{\"n\":1}\n", "{\"n\":1}\n{\"n\":9}\n"},
		{"{\"n\":1}\n{\"n\":2,\"to", "{\"n\":1}\n{\"n\":9}\n"},
		{"{\"n\":2,\"to", "{\"n\":9}\n"},
		{strings.Repeat("x", 5000) + "\n" + strings.Repeat("y", 9000), strings.Repeat("x", 5000) + "\n{\"n\":9}\n"},
	} {
		os.WriteFile(run.Path(AuditFile), []byte(tt.before), 0o644)
		f, err := run.OpenLog(AuditFile)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("{\"n\":9}\n"))
		f.Close()
		if got, _ := os.ReadFile(run.Path(AuditFile)); string(got) != tt.want {
			t.Errorf("after %.20q: %.40q, want %.40q", tt.before, got, tt.want)
		}
	}
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	return cmd.Process.Pid
}

// TestLockWaitsForARemnantOfADeadHolder: a process killed while it starts a
// tool leaves its lock with the child for the instant before the child's
// exec. The run is not listed as running, and resume waits for the lock.
func TestLockWaitsForARemnantOfADeadHolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no advisory locks")
	}
	s := New(t.TempDir())
	run, err := s.Create(Meta{Spec: "x.yaml"}, []byte("spec"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(run.Path(LockFile), []byte(fmt.Sprintf("%d run\n", deadPID(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	other, _ := s.Open(run.Meta.ID)
	if other.Working() {
		t.Error("Working = true while the process named in the lock is dead")
	}
	go func() {
		time.Sleep(2 * lockWait)
		run.Unlock()
	}()
	if err := other.Lock("resume"); err != nil {
		t.Errorf("Lock = %v, want it to wait for the remnant to let go", err)
	}
	other.Unlock()
}

func TestProcessAliveIsFalseForAZombie(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer cmd.Wait()
	for i := 0; i < 200; i++ { // until it has exited (unreaped: a zombie)
		if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid)); strings.Contains(string(b), ") Z") {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if ProcessAlive(cmd.Process.Pid) {
		t.Error("ProcessAlive = true for a zombie")
	}
	if !ProcessAlive(os.Getpid()) {
		t.Error("ProcessAlive = false for this process")
	}
}
