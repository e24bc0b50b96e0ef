//go:build unix

package gateway

import (
	"errors"
	"os/exec"
	"syscall"
)

// openNonblock keeps read_file from hanging on a FIFO swapped in after the check.
const openNonblock = syscall.O_NONBLOCK

// isNoDevice reports whether an open failed with ENXIO: the path is a socket
// (or a device without a driver), which cannot be opened as a file.
func isNoDevice(err error) bool { return errors.Is(err, syscall.ENXIO) }

// setProcessGroup puts the child in its own process group so a timeout can kill
// the script and every process it started.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr)
}

// killProcessGroup kills the child's whole process group.
func killProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err == syscall.ESRCH {
		return nil
	}
	return err
}
