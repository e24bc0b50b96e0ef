//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package fsx

import (
	"errors"
	"os"
	"syscall"
)

// HaveLocks reports whether advisory locks (flock) work on this platform.
const HaveLocks = true

// TryLock takes an exclusive (or shared) flock on f without waiting; busy
// reports that another open file description holds a conflicting one.
// flock locks belong to the open file description, so two opens in one
// process exclude each other just as two processes do, and the kernel
// releases them when the process dies, however it dies.
func TryLock(f *os.File, exclusive bool) (busy bool, err error) {
	err = flock(f, lockHow(exclusive)|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// Lock takes an exclusive flock on f, waiting for it.
func Lock(f *os.File) error { return flock(f, syscall.LOCK_EX) }

// Unlock releases f's flock.
func Unlock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

func lockHow(exclusive bool) int {
	if exclusive {
		return syscall.LOCK_EX
	}
	return syscall.LOCK_SH
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return err
		}
		return &os.PathError{Op: "flock", Path: f.Name(), Err: err}
	}
}

// LockFile takes an exclusive lock on path, creating it if needed, waiting
// for it, and returns the function that releases it.
func LockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return lockOpen(f)
}

// LockDir takes an exclusive lock on a directory itself (no lock file next
// to what it guards), waiting for it, and returns the function that releases it.
func LockDir(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	return lockOpen(f)
}

func lockOpen(f *os.File) (func(), error) {
	if err := Lock(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		Unlock(f)
		f.Close()
	}, nil
}
