//go:build unix

package runstore

import (
	"errors"
	"os"
	"syscall"
)

// haveLocks: advisory locks work here.
const haveLocks = true

// tryLock takes an exclusive (or shared) flock on f without waiting; busy
// reports that another open file description holds a conflicting one.
func tryLock(f *os.File, exclusive bool) (busy bool, err error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	if err != nil {
		return false, &os.PathError{Op: "flock", Path: f.Name(), Err: err}
	}
	return false, nil
}

func unlockFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
