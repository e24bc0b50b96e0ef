package fsx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteOutput writes data to a file the user named (a command's -o FILE).
// A regular file, or a missing one, is replaced atomically (WriteFileAtomic,
// keeping the mode of the file it replaces), so that a full disk or a kill
// in the middle leaves the old content, never a cut file. A link is followed
// and its target replaced, so the link stays. What is not a regular file
// (-o /dev/stdout, a FIFO, a device) is written in place, as is an existing
// file in a folder where no temporary file can be made.
func WriteOutput(path string, data []byte, perm fs.FileMode) error {
	target := path
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if resolved, rerr := filepath.EvalSymlinks(path); rerr == nil {
			target = resolved
			fi, err = os.Lstat(target)
		} else {
			// a dangling link: write through it, as os.WriteFile does
			return writeInPlace(path, data, perm)
		}
	}
	if err == nil && !fi.Mode().IsRegular() {
		return writeInPlace(target, data, perm)
	}
	err = WriteFileAtomic(target, data, perm, KeepMode())
	if err != nil && fi != nil && errors.Is(err, fs.ErrPermission) {
		// a writable file in a folder one may not create files in
		return writeInPlace(target, data, perm)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.HasPrefix(filepath.Base(pe.Path), "."+filepath.Base(target)+".tmp-") {
		pe.Path = path // the file the user named, not the temporary one
	}
	return err
}

func writeInPlace(path string, data []byte, perm fs.FileMode) error {
	return os.WriteFile(path, data, perm)
}
