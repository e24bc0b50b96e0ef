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
