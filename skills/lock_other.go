//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package skills

import "sync"

// On platforms without flock the lock only excludes goroutines of this
// process; concurrent lppctl processes may lose updates there.
var processLocks sync.Map // path → *sync.Mutex

func lockFile(path string) (func(), error) {
	m, _ := processLocks.LoadOrStore(path, new(sync.Mutex))
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock, nil
}

func lockDir(dir string) (func(), error) { return lockFile(dir + "/") }
