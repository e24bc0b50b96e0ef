package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheRunsTableKeepsASpecNamedWithALineBreakOnItsRow: a spec file whose
// name holds a line break or a tab is listed Go-quoted, so that each run
// stays one row of the table. The name broke the row in two, the second
// part shifting the columns of the row's rest.
func TestTheRunsTableKeepsASpecNamedWithALineBreakOnItsRow(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, name := range []string{"a\nb.yaml", "c\td.yaml"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("lpp: 1\nname: d\ninitial: a\nstates:\n  a: {do: noop, next: done}\n  done: {final: true}\n"), 0o644))
		code, out, errOut := lppctlCLI(t, "run", "-q", name)
		require.Equal(t, exitOK, code, out+errOut)
	}
	code, out, errOut := lppctlCLI(t, "runs")
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 3, out)
	rows := strings.Join(lines[1:], "\n") // the two runs, in either order (both started in the same second)
	assert.Regexp(t, `(?m)^\d{8}-\d{6}-[0-9a-f]{6} +completed +"a\\nb\.yaml" +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +\S+ +2 +0 +done$`, rows)
	assert.Regexp(t, `(?m)^\d{8}-\d{6}-[0-9a-f]{6} +completed +"c\\td\.yaml" +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +\S+ +2 +0 +done$`, rows)
}
