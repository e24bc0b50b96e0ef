package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/runstore"
)

// prevRelease is where the runs written by the release before
// journal.commit are (see its README.md).
const prevRelease = "../../machine/runstore/testdata/prevrelease"

// copyPrevReleaseRun copies the run of prevRelease/KIND, and the spec it
// ran, into a new project; it returns the project and the run's ID.
func copyPrevReleaseRun(t *testing.T, kind string) (project, id string) {
	t.Helper()
	project = t.TempDir()
	src := filepath.Join(prevRelease, kind)
	ents, err := os.ReadDir(src)
	require.NoError(t, err)
	require.Len(t, ents, 1)
	id = ents[0].Name()
	dst := filepath.Join(project, runstore.DefaultDir, id)
	require.NoError(t, os.MkdirAll(dst, 0o755))
	files, err := os.ReadDir(filepath.Join(src, id))
	require.NoError(t, err)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(src, id, f.Name()))
		require.NoError(t, err)
		b = []byte(strings.ReplaceAll(string(b), "@PROJECT@", project))
		require.NoError(t, os.WriteFile(filepath.Join(dst, f.Name()), b, 0o644))
	}
	spec, err := os.ReadFile(filepath.Join(prevRelease, "loop.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(project, "loop.yaml"), spec, 0o644))
	return project, id
}

func TestResumeARunOfThePreviousRelease(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind, note string
	}{
		{kind: "failed"},
		{kind: "crashed", note: "ignored a torn last line"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			t.Parallel()
			project, id := copyPrevReleaseRun(t, tc.kind)
			dir := filepath.Join(project, runstore.DefaultDir)

			code, out, errOut := lppctlCLI(t, "runs", "--run-dir", dir)
			require.Equal(t, exitOK, code, errOut)
			assert.NotContains(t, out, "damaged")

			code, out, errOut = lppctlCLI(t, "resume", "-q", "--run-dir", dir, "--max-transitions", "100", id)
			require.Equal(t, exitOK, code, "resume:\n%s%s", out, errOut)
			assert.Equal(t, "completed in done after 6 steps\n", out)
			if tc.note != "" {
				assert.Contains(t, errOut, tc.note)
			}
			code, out, errOut = lppctlCLI(t, "runs", "show", "--run-dir", dir, id)
			require.Equal(t, exitOK, code, errOut)
			assert.Regexp(t, `(?m)^status: +completed$`, out)
		})
	}
}
