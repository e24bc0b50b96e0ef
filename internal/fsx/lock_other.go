//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package fsx

import (
	"os"
	"sync"
)

// HaveLocks reports whether advisory locks (flock) work on this platform.
const HaveLocks = false

// TryLock: no advisory locks here; nothing is ever busy.
func TryLock(f *os.File, exclusive bool) (busy bool, err error) { return false, nil }

// Lock: no advisory locks here; it does nothing.
func Lock(f *os.File) error { return nil }

// Unlock: no advisory locks here; it does nothing.
func Unlock(f *os.File) {}

// Without flock, LockFile and LockDir only exclude goroutines of this
// process; concurrent processes may lose updates there.
var processLocks sync.Map // path → *sync.Mutex

// LockFile takes a lock on path that excludes this process's other holders.
func LockFile(path string) (func(), error) {
	m, _ := processLocks.LoadOrStore(path, new(sync.Mutex))
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock, nil
}

// LockDir takes a lock on dir that excludes this process's other holders.
func LockDir(dir string) (func(), error) { return LockFile(dir + "/") }
