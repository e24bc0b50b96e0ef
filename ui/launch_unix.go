//go:build unix

package ui

import (
	"os/exec"
	"syscall"
)

// detach starts the command in a session of its own.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
