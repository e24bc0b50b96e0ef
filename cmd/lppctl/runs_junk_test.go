package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A folder of the run store whose name is not UTF-8 (junk copied in from
// another system) is listed quoted: its raw 0xff byte is text/tabwriter's
// escape character, which left every row after it unaligned, tabs and all.
func TestRunsListsAFolderNamedInNoUTF8Quoted(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad\xffname")
	require.NoError(t, os.Mkdir(bad, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bad, "journal.jsonl"), []byte("garbage\n"), 0o644))
	junk := filepath.Join(dir, "junk")
	require.NoError(t, os.Mkdir(junk, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(junk, "run.json"), []byte("{"), 0o644))

	code, out, _ := lppctlCLI(t, "runs", "--run-dir", dir)
	require.Equal(t, 0, code)
	require.NotContains(t, out, "\t", "every row is aligned with spaces")
	require.Contains(t, out, `"bad\xffname"`)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	require.Len(t, lines, 3)
	require.NotContains(t, out, "0001-01-01", "a run with no start time has none listed")
	col := strings.Index(lines[0], "STATUS")
	for _, l := range lines[1:] {
		require.Greater(t, len(l), col, "row %q", l)
		require.Equal(t, "  ", l[col-2:col], "row %q: its status starts under STATUS", l)
		require.NotEqual(t, byte(' '), l[col], "row %q: its status starts under STATUS", l)
	}
}
