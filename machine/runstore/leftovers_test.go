package runstore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// leftovers makes, in run's directory, what a process killed while it
// worked on the run leaves behind, and returns their paths.
func leftovers(t *testing.T, run *Run) []string {
	t.Helper()
	child := filepath.Join(run.Dir, "children", "step-3")
	newChild := filepath.Join(run.Dir, "children", ".new-1234")
	for _, d := range []string{child, newChild} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(child, MetaFile), []byte("{}\n"), 0o644))
	files := []string{
		filepath.Join(run.Dir, ".run.json.tmp-123"),
		filepath.Join(child, ".run.json.tmp-456"),
		filepath.Join(newChild, JournalFile),
	}
	for _, f := range files {
		require.NoError(t, os.WriteFile(f, []byte("half"), 0o644))
	}
	return append(files, newChild)
}

func TestTheNextCommandRemovesTheLeftoversOfAKilledProcess(t *testing.T) {
	for _, next := range []struct {
		name string
		do   func(s *Store, id string) error
	}{
		{"runs (List)", func(s *Store, _ string) error { _, err := s.List(); return err }},
		{"resume (Recover)", func(s *Store, id string) error {
			rc, err := s.Recover(id)
			if err == nil {
				rc.Release()
			}
			return err
		}},
	} {
		t.Run(next.name, func(t *testing.T) {
			s := New(t.TempDir())
			run, err := s.Create(Meta{Spec: "x.yaml"}, []byte("spec"))
			require.NoError(t, err)
			run.Unlock() // killed: its lock is gone
			left := leftovers(t, run)

			require.NoError(t, next.do(s, run.Meta.ID))
			for _, f := range left {
				assert.NoFileExists(t, f)
				assert.NoDirExists(t, f)
			}
			assert.FileExists(t, filepath.Join(run.Dir, "children", "step-3", MetaFile), "a child's run stays")
			assert.FileExists(t, run.Path(MetaFile))
		})
	}
	t.Run("a run a process works on is left alone", func(t *testing.T) {
		s := New(t.TempDir())
		run, err := s.Create(Meta{Spec: "x.yaml"}, []byte("spec")) // locked by its maker
		require.NoError(t, err)
		defer run.Unlock()
		left := leftovers(t, run)
		_, err = s.List()
		require.NoError(t, err)
		for _, f := range left {
			_, err := os.Stat(f)
			assert.NoError(t, err, "%s is still there", f)
		}
	})
}

// TestListReadsHowARunEndedFromItsJournal: a run whose journal records its
// end while run.json still says running (its process could not save
// run.json, e.g. on a full disk) is listed as the journal says, in every
// listing (lppctl runs, the UI's runs page), not as crashed.
func TestListReadsHowARunEndedFromItsJournal(t *testing.T) {
	s := New(t.TempDir())
	run, err := s.Create(Meta{Spec: "x.yaml", State: "a"}, []byte("spec"))
	require.NoError(t, err)
	j, err := run.OpenJournal(FsyncAlways)
	require.NoError(t, err)
	require.NoError(t, j.OnStep(context.Background(), &machine.Record{Seq: 1, From: "a", To: "done"}))
	require.NoError(t, j.OnStep(context.Background(), &machine.Record{Seq: 2, From: "done", End: true}))
	require.NoError(t, j.Close())
	run.Unlock() // the process is gone; run.json still says running

	runs, err := s.List()
	require.NoError(t, err)
	require.Len(t, runs, 1)
	m := runs[0].Meta
	assert.Equal(t, machine.StatusCompleted, m.Status)
	assert.Equal(t, "done", m.State)
	assert.Equal(t, 2, m.Steps)
}

// TestTheNextListingRemovesTheHiddenDirectoryOfAKilledCreate: the hidden
// directory a process killed while creating a run left (.new-PID-*) goes at
// the next listing, however young, once its process is gone; one of a live
// process stays.
func TestTheNextListingRemovesTheHiddenDirectoryOfAKilledCreate(t *testing.T) {
	s := New(t.TempDir())
	require.NoError(t, os.MkdirAll(s.Dir, 0o755))
	dead := filepath.Join(s.Dir, fmt.Sprintf(".new-%d-123", exitedPID(t)))
	live := filepath.Join(s.Dir, fmt.Sprintf(".new-%d-456", os.Getppid()))
	for _, d := range []string{dead, live} {
		require.NoError(t, os.MkdirAll(d, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, SpecFile), []byte("x"), 0o644))
	}
	_, err := s.List()
	require.NoError(t, err)
	assert.NoDirExists(t, dead)
	assert.DirExists(t, live)
}

// exitedPID returns the pid of a process that has exited and been reaped.
func exitedPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	return cmd.Process.Pid
}
