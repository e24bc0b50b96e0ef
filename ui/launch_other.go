//go:build !unix

package ui

import "os/exec"

func detach(cmd *exec.Cmd) {}
