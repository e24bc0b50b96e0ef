package skills

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
	stale, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*"))
	for _, f := range stale {
		os.Remove(f)
	}
}

// writeFileAtomic replaces path with data: it writes a temporary file in the
// same directory, syncs it, renames it over path and syncs the directory.
// On failure the temporary file is removed and path is left untouched.
// The file keeps path's permissions when it exists, else gets perm.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	if fi, statErr := os.Stat(path); statErr == nil {
		perm = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmpName)
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if testHookBeforeRename != nil {
		if err = testHookBeforeRename(tmpName); err != nil {
			return err
		}
	}
	if BeforeReplace != nil {
		BeforeReplace(path)
	}
	if err = os.Rename(tmpName, path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir fsyncs a directory so that a rename inside it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
