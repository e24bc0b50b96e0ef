package runstore

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/lppctl/lppctl/internal/fsx"
)

// The run's lock: the process that runs or resumes a run holds an exclusive
// advisory lock (flock) on the run's directory for as long as it works on
// the run, and writes its pid and command into the file LockFile. The kernel
// releases the lock when the process dies, however it dies, so a held lock
// means a live process and a free one a run that nobody works on (whatever
// run.json says). The lock is on the directory, not on LockFile, so that
// deleting LockFile (taking it for a stale lock) changes nothing.

// LockFile names the process that holds the run's lock: "PID COMMAND".
const LockFile = "lock"

// LockedError is returned by Lock when another process holds the run's lock.
type LockedError struct {
	ID  string // the run
	PID int    // the process holding the lock (0: unknown)
	Cmd string // its command: run or resume ("" when unknown)
}

func (e *LockedError) Error() string {
	pid := "pid unknown"
	if e.PID > 0 {
		pid = "pid " + strconv.Itoa(e.PID)
	}
	if e.Cmd == "run" {
		return fmt.Sprintf("run %s is still running in another process (%s)", e.ID, pid)
	}
	return fmt.Sprintf("run %s is being resumed by another process (%s)", e.ID, pid)
}

// lockWait is how long Lock retries a held lock before it gives up: a
// listing (Holder) holds a shared lock for an instant.
const lockWait = 300 * time.Millisecond

// remnantWait is how much longer Lock waits when the process named in the
// lock file is gone but the lock is still held (see Lock).
const remnantWait = 3 * time.Second

// Lock takes the run's lock for cmd ("run" or "resume") and records the
// process in LockFile. It fails with a *LockedError when another process
// holds it. The lock is held until Unlock or the process's end.
func (r *Run) Lock(cmd string) error {
	if r.lock != nil {
		return nil
	}
	d, err := os.Open(r.Dir)
	if err != nil {
		return fmt.Errorf("cannot take the run's lock: %w", err)
	}
	deadline := time.Now().Add(lockWait)
	for {
		held, err := fsx.TryLock(d, true)
		if err != nil {
			d.Close()
			return fmt.Errorf("cannot take the run's lock: %w", err)
		}
		if !held {
			break
		}
		if now := time.Now(); now.After(deadline) {
			pid, who := r.readLockFile()
			// A process killed while it was starting a tool leaves the lock
			// with that child for the instant before the child's exec closes
			// it: wait for that while the holder named in the file is dead.
			if pid <= 0 || ProcessAlive(pid) || now.After(deadline.Add(remnantWait)) {
				d.Close()
				return &LockedError{ID: r.Meta.ID, PID: pid, Cmd: who}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Best effort: a read-only run is locked all the same, so that the
	// caller's own check says what is wrong.
	_ = os.WriteFile(r.Path(LockFile), fmt.Appendf(nil, "%d %s\n", os.Getpid(), cmd), 0o644)
	r.lock = d
	return nil
}

// Unlock releases the run's lock (if this process holds it).
func (r *Run) Unlock() {
	if r.lock != nil {
		fsx.Unlock(r.lock)
		r.lock.Close()
		r.lock = nil
	}
}

// Holder reports whether a process works on the run: known is false where
// advisory locks are not available; else held tells whether a process holds
// the lock, and pid and cmd which one (from LockFile).
func (r *Run) Holder() (pid int, cmd string, held, known bool) {
	if r.lock != nil {
		return os.Getpid(), "", true, true
	}
	if !fsx.HaveLocks {
		return 0, "", false, false
	}
	d, err := os.Open(r.Dir)
	if err != nil {
		return 0, "", false, false
	}
	defer d.Close()
	busy, err := fsx.TryLock(d, false)
	if err != nil {
		return 0, "", false, false
	}
	if !busy {
		fsx.Unlock(d)
		return 0, "", false, true
	}
	pid, cmd = r.readLockFile()
	return pid, cmd, true, true
}

// Working reports whether a process works on the run now: the lock is held
// by the live process named in the lock file (a killed process's lock may
// outlive it for an instant, held by a child it was starting), or, where
// locks are not available, the pid recorded in run.json is alive.
func (r *Run) Working() bool {
	if pid, _, held, known := r.Holder(); known {
		return held && (pid <= 0 || ProcessAlive(pid))
	}
	return r.Meta.PID > 0 && ProcessAlive(r.Meta.PID)
}

func (r *Run) readLockFile() (int, string) {
	b, err := os.ReadFile(r.Path(LockFile))
	if err != nil {
		return 0, ""
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return 0, ""
	}
	pid, _ := strconv.Atoi(fields[0])
	cmd := ""
	if len(fields) > 1 {
		cmd = fields[1]
	}
	return pid, cmd
}
