package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/runstore"
)

// TestRunsFlagsAFlippedByteInACompletedRun: damage that keeps the file's
// size (a flipped byte) is listed as such, as a truncation is.
func TestRunsFlagsAFlippedByteInACompletedRun(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	spec, dir := filepath.Join(tmp, "count.yaml"), filepath.Join(tmp, "runs")
	require.NoError(t, os.WriteFile(spec, []byte(countSpec), 0o644))
	code, _, errOut := lppctlCLI(t, "run", "-q", "--run-dir", dir, spec)
	require.Equal(t, exitOK, code, errOut)
	id := onlyRun(t, dir)
	journal := filepath.Join(dir, id, runstore.JournalFile)
	b, err := os.ReadFile(journal)
	require.NoError(t, err)
	b[len(b)/2] ^= 0x02
	require.NoError(t, os.WriteFile(journal, b, 0o644))

	code, out, errOut := lppctlCLI(t, "runs", "--run-dir", dir)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, id+"  damaged")
	assert.Contains(t, errOut, "warning: the journal of run "+id+": cannot read journal: "+journal+":")

	code, out, _ = lppctlCLI(t, "runs", "show", "--run-dir", dir, id)
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, out, "status:   damaged (run.json says completed")
}

// TestRunsReadsHowARunEndedFromItsJournalWhenRunJSONLags: a process that
// recorded the run's end in its journal but could not save run.json (a full
// disk) leaves run.json saying running; runs reads the end from the journal
// instead of calling the run crashed.
func TestRunsReadsHowARunEndedFromItsJournalWhenRunJSONLags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, max, status, state string
	}{
		{name: "completed", status: "completed", state: "done"},
		{name: "failed", max: "2", status: "failed", state: "start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			spec, dir := filepath.Join(tmp, "count.yaml"), filepath.Join(tmp, "runs")
			require.NoError(t, os.WriteFile(spec, []byte(countSpec), 0o644))
			args := []string{"run", "-q", "--run-dir", dir, spec}
			if tc.max != "" {
				args = append(args, "--max-transitions", tc.max)
			}
			lppctlCLI(t, args...)
			id := onlyRun(t, dir)
			run, err := runstore.New(dir).Open(id)
			require.NoError(t, err)
			run.Meta.Status, run.Meta.End, run.Meta.Error, run.Meta.Steps = "running", nil, "", 0 // as saved when it started
			require.NoError(t, run.SaveMeta())

			code, out, errOut := lppctlCLI(t, "runs", "--run-dir", dir)
			require.Equal(t, exitOK, code, errOut)
			assert.Regexp(t, id+`  `+tc.status+` .* `+tc.state+`\n`, out)
			assert.NotContains(t, out, "crashed")
		})
	}
}
