//go:build !unix

package gateway

import "os/exec"

const openNonblock = 0

// isNoDevice reports whether an open failed because the path is a socket or a
// device without a driver; only unix systems say so.
func isNoDevice(error) bool { return false }

func setProcessGroup(cmd *exec.Cmd) {}

// killProcessGroup kills the child; without process groups its children may survive.
func killProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
