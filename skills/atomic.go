package skills

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lppctl/lppctl/internal/fsx"
)

// testHookBeforeRename, when set by tests, runs after the temporary file is
// written and synced and before it replaces the target; an error aborts the write.
var testHookBeforeRename func(tmp string) error

// BeforeReplace, when set, is called after the temporary file of an atomic
// write of path is written and synced, and before it replaces path. It is
// for crash-safety tests (lppctl arms a crash point here); set it once, at
// start-up.
var BeforeReplace func(path string)

// removeStaleTemps removes the temporary files an interrupted atomic write
// of path left behind. Call it only while holding the lock that serialises
// writers of path: then no other writer's temporary file can exist.
func removeStaleTemps(path string) {
	stale, _ := filepath.Glob(filepath.Join(filepath.Dir(path), fsx.TempPattern(path)))
	for _, f := range stale {
		os.Remove(f)
	}
}

// writeFileAtomic replaces path with data (fsx.WriteFileAtomic). The file
// keeps path's permissions when it exists, else gets perm.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) error {
	return fsx.WriteFileAtomic(path, data, perm, fsx.KeepMode(), fsx.BeforeRename(func(tmp string) error {
		if testHookBeforeRename != nil {
			if err := testHookBeforeRename(tmp); err != nil {
				return err
			}
		}
		if BeforeReplace != nil {
			BeforeReplace(path)
		}
		return nil
	}))
}

// lockFileHeld takes an exclusive advisory lock on path (fsx.LockFile) and
// returns the lock file opened once more, for the save token, and the
// function that closes it and releases the lock.
func lockFileHeld(path string) (lk *os.File, unlock func(), err error) {
	release, err := fsx.LockFile(path)
	if err != nil {
		return nil, nil, err
	}
	lk, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		release()
		return nil, nil, err
	}
	return lk, func() {
		lk.Close()
		release()
	}, nil
}

// lockDir takes an exclusive advisory lock on a directory itself, so that a
// skill folder gets no lock file next to its skills.md (fsx.LockDir).
func lockDir(dir string) (unlock func(), err error) { return fsx.LockDir(dir) }
