//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package skills

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock (flock) on path, creating it if
// needed, and returns the function that releases it. flock locks belong to
// the open file description, so separate Library values in one process
// exclude each other just as separate processes do.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return flockFile(f)
}

// lockDir takes an exclusive advisory lock on a directory itself, so that a
// skill folder gets no lock file next to its skills.md.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	return flockFile(f)
}

func flockFile(f *os.File) (func(), error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err == nil {
			break
		}
		if err == syscall.EINTR {
			continue
		}
		f.Close()
		return nil, &os.PathError{Op: "flock", Path: f.Name(), Err: err}
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
