package runstore

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// LockFile is the run's lock: the process that runs or resumes the run holds
// an exclusive advisory lock (flock) on it for as long as it works on the run,
// and writes its pid and command into it. The kernel releases the lock when
// the process dies, however it dies, so a held lock means a live process and
// a free one a run that nobody works on (whatever run.json says).
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
// process in the lock file. It fails with a *LockedError when another process
// holds it. The lock is held until Unlock or the process's end.
func (r *Run) Lock(cmd string) error {
	if r.lock != nil {
		return nil
	}
	f, err := os.OpenFile(r.Path(LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		// A read-only run can still be locked (flock needs no write
		// access), so that the caller's own check says what is wrong.
		var rerr error
		if f, rerr = os.Open(r.Path(LockFile)); rerr != nil {
			return fmt.Errorf("cannot take the run's lock: %w", err)
		}
	}
	deadline := time.Now().Add(lockWait)
	for {
		held, err := tryLock(f, true)
		if err != nil {
			f.Close()
			return fmt.Errorf("cannot take the run's lock: %w", err)
		}
		if !held {
			break
		}
		if now := time.Now(); now.After(deadline) {
			pid, who := readLockFile(f)
			// A process killed while it was starting a tool leaves the lock
			// with that child for the instant before the child's exec closes
			// it: wait for that while the holder named in the file is dead.
			if pid <= 0 || ProcessAlive(pid) || now.After(deadline.Add(remnantWait)) {
				f.Close()
				return &LockedError{ID: r.Meta.ID, PID: pid, Cmd: who}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	line := fmt.Sprintf("%d %s\n", os.Getpid(), cmd)
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(line), 0)
	}
	r.lock = f
	return nil
}

// Unlock releases the run's lock (if this process holds it).
func (r *Run) Unlock() {
	if r.lock != nil {
		unlockFile(r.lock)
		r.lock.Close()
		r.lock = nil
	}
}

// Holder reports whether a process works on the run: known is false when the
// run has no lock file (runs made before it existed); else held tells whether
// a process holds the lock, and pid and cmd which one.
func (r *Run) Holder() (pid int, cmd string, held, known bool) {
	if r.lock != nil {
		return os.Getpid(), "", true, true
	}
	if !haveLocks {
		return 0, "", false, false
	}
	f, err := os.Open(r.Path(LockFile))
	if err != nil {
		return 0, "", false, false
	}
	defer f.Close()
	busy, err := tryLock(f, false)
	if err != nil {
		return 0, "", false, false
	}
	if !busy {
		unlockFile(f)
		return 0, "", false, true
	}
	pid, cmd = readLockFile(f)
	return pid, cmd, true, true
}

// Working reports whether a process works on the run now: the lock is held
// by the live process named in the lock file (a killed process's lock may
// outlive it for an instant, held by a child it was starting), or, for runs
// without a lock file, the pid recorded in run.json is alive.
func (r *Run) Working() bool {
	if pid, _, held, known := r.Holder(); known {
		return held && (pid <= 0 || ProcessAlive(pid))
	}
	return r.Meta.PID > 0 && ProcessAlive(r.Meta.PID)
}

func readLockFile(f *os.File) (int, string) {
	b := make([]byte, 64)
	n, _ := f.ReadAt(b, 0)
	fields := strings.Fields(string(b[:n]))
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
