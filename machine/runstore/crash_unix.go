//go:build unix

package runstore

import (
	"os"
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

// ProcessAlive reports whether a process with this id exists.
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
