package runstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// copyPrevRelease copies the run of testdata/prevrelease/KIND (written by
// the release before journal.commit) into a new store, with project as the
// project path it recorded, and returns the store and the run's ID.
func copyPrevRelease(t *testing.T, kind, project string) (*Store, string) {
	t.Helper()
	src := filepath.Join("testdata", "prevrelease", kind)
	ents, err := os.ReadDir(src)
	require.NoError(t, err)
	require.Len(t, ents, 1, "one run in %s", src)
	id := ents[0].Name()
	store := New(filepath.Join(project, DefaultDir))
	dst := filepath.Join(store.Dir, id)
	require.NoError(t, os.MkdirAll(dst, 0o755))
	files, err := os.ReadDir(filepath.Join(src, id))
	require.NoError(t, err)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(src, id, f.Name()))
		require.NoError(t, err)
		b = []byte(strings.ReplaceAll(string(b), "@PROJECT@", project))
		require.NoError(t, os.WriteFile(filepath.Join(dst, f.Name()), b, 0o644))
	}
	return store, id
}

func TestARunOfThePreviousReleaseResumes(t *testing.T) {
	for _, tc := range []struct {
		kind  string
		steps int
		torn  bool
	}{
		{kind: "failed", steps: 3},
		{kind: "crashed", steps: 2, torn: true},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			store, id := copyPrevRelease(t, tc.kind, t.TempDir())
			rc, err := store.Recover(id)
			require.NoError(t, err, "a journal without %s is read as before", CommitFile)
			defer rc.Release()
			assert.Equal(t, tc.steps, rc.Log.Steps())
			assert.Equal(t, tc.torn, rc.Log.Torn > 0, "torn last line")
			assert.NoFileExists(t, rc.Run.Path(CommitFile), "reading makes no commit record")

			// resume opens the journal before it replays it: the replay
			// reads it as before, and the commit record made for the new
			// lines holds the old ones.
			j, err := rc.Run.OpenJournal(FsyncAlways)
			require.NoError(t, err)
			n := 0
			_, err = rc.Run.ScanJournal(func(*machine.Record) error { n++; return nil })
			require.NoError(t, err, "replay after the journal was opened")
			assert.Equal(t, tc.steps, n)
			require.NoError(t, j.OnStep(context.Background(), &machine.Record{Seq: tc.steps + 1, From: "tick", To: "tick", Action: "log"}))
			require.NoError(t, j.Close())

			l, err := rc.Run.ReadJournal()
			require.NoError(t, err)
			assert.Equal(t, tc.steps+1, l.Steps())
			c, ok, err := rc.Run.readCommit()
			require.NoError(t, err)
			require.True(t, ok, "the resumed run has a commit record")
			assert.Equal(t, tc.steps+1, c.Steps)
			assert.NoError(t, rc.Run.CheckJournal())
		})
	}
}

func TestAMissingOrEmptyCommitRecordIsReadAsNone(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(path string) error
	}{
		{"deleted", os.Remove},
		{"empty (left by a resume that failed before it wrote one)", func(p string) error { return os.WriteFile(p, nil, 0o644) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run, j := newTestRun(t, FsyncAlways)
			for i := 1; i <= 3; i++ {
				require.NoError(t, j.OnStep(context.Background(), &machine.Record{Seq: i, From: "a", To: "a"}))
			}
			require.NoError(t, j.Close())
			run.Unlock()
			require.NoError(t, tc.damage(run.Path(CommitFile)))

			require.NoError(t, run.CheckJournal())
			l, err := run.ReadJournal()
			require.NoError(t, err)
			assert.Equal(t, 3, l.Steps())
		})
	}
}
