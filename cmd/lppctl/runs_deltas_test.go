package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/runstore"
)

// growingSpec appends n to xs and sets key "k<n>" of m at every step, until n
// reaches limit: a run whose list and map grow by one at each step.
const growingSpec = `lpp: 1
name: grow
context:
  n: {type: int, default: 0}
  limit: {type: int, default: 100}
  xs: {type: list, default: []}
  m: {type: map, default: {}}
initial: work
states:
  work:
    set: {n: n + 1, xs: 'concat(xs, [n])', m: 'merge(m, {("k" + string(n)): n})'}
    next:
      - {to: done, when: n >= limit}
      - to: work
  done: {final: true}
`

// TestRunsTraceDeltasPrintsTheJournalAsWritten: runs trace --deltas prints
// the journal's lines as they are in the file, so its output grows with the
// run, where --json's, each step's list and map whole, grows with the
// square of a run whose list and map grow at every step. A torn last line
// is left out, and a Temporal run, which has no journal, is refused.
func TestRunsTraceDeltasPrintsTheJournalAsWritten(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "grow.yaml"), []byte(growingSpec), 0o644))
	t.Chdir(root)
	t.Setenv(runstore.EnvDir, "")
	// grow runs the spec to limit and returns the run and its trace, with
	// --deltas and with --json.
	grow := func(limit string) (run *runstore.Run, deltas, whole string) {
		t.Helper()
		code, _, stderr := runCLI(t, "run", "grow.yaml", "-q", "--var", "limit="+limit)
		require.Equal(t, exitOK, code, stderr)
		runs, err := runstore.New(runstore.DefaultDir).List()
		require.NoError(t, err)
		for _, r := range runs {
			if fmt.Sprint(r.Meta.Vars["limit"]) == limit {
				run = r
			}
		}
		require.NotNil(t, run, "the run with limit %s", limit)
		code, deltas, stderr = runCLI(t, "runs", "trace", "--deltas", run.Meta.ID)
		require.Equal(t, exitOK, code, stderr)
		code, whole, stderr = runCLI(t, "runs", "trace", "--json", run.Meta.ID)
		require.Equal(t, exitOK, code, stderr)
		return run, deltas, whole
	}
	small, smallDeltas, smallWhole := grow("100")
	_, bigDeltas, bigWhole := grow("400")

	journal, err := os.ReadFile(small.Path(runstore.JournalFile))
	require.NoError(t, err)
	assert.Equal(t, string(journal), smallDeltas, "--deltas prints the journal's bytes")
	assert.Contains(t, smallDeltas, `"vars_append":{"xs":[99]}`, "the last steps' appends")
	assert.Contains(t, smallDeltas, `"vars_patch":{"m":{"set":{"k99":99}}}`, "the last steps' keys")
	assert.Contains(t, smallWhole, `"xs":[0,1,2,`, "--json gives the list whole")

	// 4x the steps: 4x the bytes with --deltas (plus the markers' lines),
	// more than 8x with --json (each step prints its list and map whole).
	assert.Less(t, float64(len(bigDeltas))/float64(len(smallDeltas)), 4.5, "--deltas grows with the run")
	assert.Greater(t, float64(len(bigWhole))/float64(len(smallWhole)), 8.0, "--json grows with the square of this run")

	t.Run("a torn last line is left out", func(t *testing.T) {
		f, err := os.OpenFile(small.Path(runstore.JournalFile), os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.WriteString(`{"type":"step","seq":10`)
		require.NoError(t, err)
		require.NoError(t, f.Close())
		code, out, stderr := runCLI(t, "runs", "trace", "--deltas", small.Meta.ID)
		require.Equal(t, exitOK, code, stderr)
		assert.Equal(t, string(journal), out)
		assert.Contains(t, stderr, "ignored a torn last line (23 bytes)")
	})
	t.Run("a Temporal run has no journal", func(t *testing.T) {
		code, out, stderr := runCLI(t, "runs", "trace", "--deltas", "--temporal", "127.0.0.1:1", small.Meta.ID)
		assert.Equal(t, exitUsage, code)
		assert.Empty(t, out)
		assert.Equal(t, "lppctl: --deltas prints a local run's journal; a Temporal run has none (its trace comes from the workflow's history): drop --deltas\n", firstLine(stderr))
	})
}

// firstLine returns s's first line with its newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line + "\n"
}
