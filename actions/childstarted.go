package actions

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/lppctl/lppctl/internal/fsx"
	"github.com/lppctl/lppctl/machine/runstore"
)

// startedFile lists, in a run's children folder, one line per child run a
// step of the run started, written and synced once the child's folder is
// made, before the child's first step. When the step runs again (the run resumes) and the child's folder
// is gone, the list tells a child that never started from one that was
// deleted, whose committed steps must not run again without a word.
const startedFile = "started"

// childStarted reports whether the child run in runDir was started before.
func childStarted(runDir string) (bool, error) {
	f, err := os.Open(filepath.Join(filepath.Dir(runDir), startedFile))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("cannot read the list of child runs: %w", err)
	}
	defer f.Close()
	id := filepath.Base(runDir)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == id {
			return true, nil
		}
	}
	return false, sc.Err()
}

// recordChildStart appends the child run in runDir to its folder's list of
// started children and syncs it (and, when the list is new, its folder).
func recordChildStart(runDir string) error {
	dir := filepath.Dir(runDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot record the child run's start: %w", err)
	}
	path := filepath.Join(dir, startedFile)
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("cannot record the child run's start: %w", err)
	}
	if _, err := f.WriteString(filepath.Base(runDir) + "\n"); err != nil {
		f.Close()
		return fmt.Errorf("cannot record the child run's start: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("cannot record the child run's start: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("cannot record the child run's start: %w", err)
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		if err := fsx.SyncDir(dir); err != nil {
			return fmt.Errorf("cannot record the child run's start: %w", err)
		}
	}
	return nil
}

// errChildGone says that a child run this step started before is gone.
func errChildGone(runDir string) error {
	return fmt.Errorf("its run %s, which this step started before, is gone (deleted?): running the child again would repeat its committed steps; restore the folder, or to run the child again from its start, remove the line %s from %s", runDir, filepath.Base(runDir), filepath.Join(filepath.Dir(runDir), startedFile))
}

// checkChildCommit refuses to resume a child run whose journal has no commit
// record: every child run is made with one, so it was deleted, and whether
// lines were lost from the journal's end cannot be told.
func checkChildCommit(dir *runstore.Run) error {
	has, err := dir.HasCommit()
	if err != nil || has {
		return err
	}
	return fmt.Errorf("the journal of its run %s has no %s (deleted?): whether lines were lost from it is unknown, and resuming could repeat the child's committed steps; restore it, or to run the child again from its start, delete %s and remove the line %s from %s", dir.Dir, runstore.CommitFile, dir.Dir, filepath.Base(dir.Dir), filepath.Join(filepath.Dir(dir.Dir), startedFile))
}
