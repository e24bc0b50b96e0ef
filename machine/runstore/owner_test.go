package runstore

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// journaledRun creates a run of testMachine in s and journals its first
// steps steps.
func journaledRun(t *testing.T, s *Store, steps int) *Run {
	t.Helper()
	m := testMachine(t)
	start := map[string]any{"limit": 6}
	run, err := s.Create(Meta{Spec: "counter.yaml", Vars: start}, []byte("spec"))
	require.NoError(t, err)
	j, err := run.OpenJournal(FsyncNever)
	require.NoError(t, err)
	r, err := m.NewRun(start, machine.WithObserver(j))
	require.NoError(t, err)
	for i := 0; i < steps; i++ {
		_, err := r.Step(context.Background())
		require.NoError(t, err)
	}
	require.NoError(t, j.Close())
	require.NoError(t, run.SaveMeta())
	run.Unlock()
	return run
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, b, 0o644))
}

// A run's directory is named after its ID. Files copied over from another
// run's directory are that run's: its journal is refused (resuming it would
// continue the other run under this one's name, and list it under an ID no
// command finds), and its run.json is rebuilt from this run's journal.
func TestFilesCopiedFromAnotherRunsDirectoryAreRefused(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(a, b *Run)
		err    string // "": the run opens, its run.json rebuilt
	}{
		{name: "the other run's journal, commit record and run.json", damage: func(a, b *Run) {
			for _, f := range []string{JournalFile, CommitFile, MetaFile} {
				copyFile(t, b.Path(f), a.Path(f))
			}
		}, err: "A/run.json is run B's, not this run's (copied over?); it cannot be rebuilt from the journal either: cannot read journal: A/journal.jsonl:1: the journal is run B's, not this run's (copied over?)"},
		{name: "the other run's journal, this run's run.json lost", damage: func(a, b *Run) {
			copyFile(t, b.Path(JournalFile), a.Path(JournalFile))
			require.NoError(t, os.Remove(a.Path(CommitFile)))
			require.NoError(t, os.Remove(a.Path(MetaFile)))
		}, err: "cannot read run metadata: open A/run.json: no such file or directory; it cannot be rebuilt from the journal either: cannot read journal: A/journal.jsonl:1: the journal is run B's, not this run's (copied over?)"},
		{name: "the other run's run.json", damage: func(a, b *Run) {
			copyFile(t, b.Path(MetaFile), a.Path(MetaFile))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := New(t.TempDir())
			a, b := journaledRun(t, s, 3), journaledRun(t, s, 5)
			c.damage(a, b)
			expand := func(msg string) string {
				return strings.NewReplacer("A/", a.Dir+"/", "run B's", "run "+b.Meta.ID+"'s").Replace(msg)
			}
			got, err := s.Open(a.Meta.ID)
			runs, lerr := s.List()
			require.NoError(t, lerr)
			require.Len(t, runs, 2)
			listed := runs[0]
			if listed.Dir != a.Dir {
				listed = runs[1]
			}
			_, rerr := s.Recover(a.Meta.ID)
			if c.err == "" {
				require.NoError(t, err)
				assert.Equal(t, a.Meta.ID, got.Meta.ID)
				assert.Equal(t, 3, got.Meta.Steps)
				assert.EqualError(t, got.Rebuilt, expand("A/run.json is run B's, not this run's (copied over?)"))
				assert.Equal(t, a.Meta.ID, listed.Meta.ID)
				assert.NoError(t, rerr)
				return
			}
			assert.EqualError(t, err, expand(c.err))
			assert.Equal(t, Meta{ID: a.Meta.ID, Status: "unreadable", Error: expand(c.err)}, listed.Meta)
			assert.EqualError(t, rerr, expand(c.err)) // Open refuses it
		})
	}
}
