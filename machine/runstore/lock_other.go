//go:build !unix

package runstore

import "os"

// haveLocks: no advisory locks here (Holder knows nothing).
const haveLocks = false

// tryLock: no advisory locks here; a run's lock is never busy.
func tryLock(f *os.File, exclusive bool) (busy bool, err error) { return false, nil }

func unlockFile(f *os.File) {}
