package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exitedPID returns the pid of a process that has exited and been reaped.
func exitedPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	return cmd.Process.Pid
}

func TestEvalRemovesTheCopiesOfKilledEvals(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	dead := filepath.Join(tmp, fmt.Sprintf("%s%d-123", evalTempPrefix, exitedPID(t)))
	live := filepath.Join(tmp, fmt.Sprintf("%s%d-456", evalTempPrefix, os.Getppid()))
	older := filepath.Join(tmp, evalTempPrefix+"789") // an earlier version's: whose it is is unknown
	for _, d := range []string{dead, live, older} {
		require.NoError(t, os.MkdirAll(filepath.Join(d, "config"), 0o755))
	}
	mine, err := evalTempDir(tmp)
	require.NoError(t, err)

	sweepEvalTemps(tmp)
	assert.NoDirExists(t, dead)
	assert.DirExists(t, live)
	assert.DirExists(t, older)
	assert.DirExists(t, mine)
}
