//go:build unix

package runstore

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

func killSelf() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	time.Sleep(time.Minute) // the signal is on its way
	os.Exit(137)
}

// interruptSelf sends the process SIGINT and gives its handler time to act.
func interruptSelf() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
	time.Sleep(200 * time.Millisecond)
}

// ProcessAlive reports whether a process with this id exists and is not a
// zombie (dead, not yet reaped by its parent).
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	if err != nil && err != syscall.EPERM {
		return false
	}
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// pid (comm) S ...: the state follows the last ')'.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return false
		}
	}
	return true
}
