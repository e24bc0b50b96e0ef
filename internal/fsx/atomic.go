package fsx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Option configures WriteFileAtomic.
type Option func(*options)

type options struct {
	keepMode     bool
	beforeRename func(tmp string) error
}

// KeepMode keeps the permissions of the file being replaced (perm applies
// only when it does not exist yet).
func KeepMode() Option { return func(o *options) { o.keepMode = true } }

// BeforeRename calls fn after the temporary file is written and synced, just
// before it replaces the target (crash-safety tests kill the process there);
// an error from fn aborts the write and leaves the target untouched.
func BeforeRename(fn func(tmp string) error) Option {
	return func(o *options) { o.beforeRename = fn }
}

// TempPattern is the os.CreateTemp pattern of WriteFileAtomic's temporary
// files for path (in path's directory): ".NAME.tmp-*".
func TempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

// WriteFileAtomic replaces path with data: it writes a temporary file in the
// same directory, syncs it, renames it over path and syncs the directory, so
// that a crash leaves either the old content or the new one. On failure the
// temporary file is removed and path is left untouched.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode, opts ...Option) (err error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	dir := filepath.Dir(path)
	if o.keepMode {
		if fi, statErr := os.Stat(path); statErr == nil {
			perm = fi.Mode().Perm()
		}
	}
	tmp, err := os.CreateTemp(dir, TempPattern(path))
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
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
	if o.beforeRename != nil {
		if err = o.beforeRename(tmp.Name()); err != nil {
			return err
		}
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return SyncDir(dir)
}

// SyncDir fsyncs a directory so that a rename or a new file inside it is
// durable. A file system that cannot sync directories (EINVAL) is not an error.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, fs.ErrInvalid) {
		return fmt.Errorf("cannot sync directory %s: %w", dir, err)
	}
	return nil
}
