//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
)

func available() error {
	return fmt.Errorf("%w: it needs Linux (Landlock and user namespaces), and this is %s", ErrUnavailable, runtime.GOOS)
}

func command(context.Context, Options, string, []string) (*exec.Cmd, error) {
	return nil, available()
}

// KillGroup kills the sandboxed program and every process it started.
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
