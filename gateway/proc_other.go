//go:build !unix

package gateway

import "os/exec"

const openNonblock = 0

func setProcessGroup(cmd *exec.Cmd) {}

// killProcessGroup kills the child; without process groups its children may survive.
func killProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
