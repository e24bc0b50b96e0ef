package runstore

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/lppctl/lppctl/internal/fsx"
)

// Leftovers of a process killed while it worked on a run: the temporary
// files of run.json's atomic writes and of Writable's probe, and in the run's folders of child runs
// (any subdirectory that holds runs, e.g. children/), the hidden directories
// of runs being created and the child runs' own temporary files. The next
// command that lists the run or resumes it removes them (sweep), when no
// process works on the run.

// sweep removes the run's leftovers when no other process works on it: it
// holds the run's lock already (Recover), or takes it for the instant the
// removal takes and gives up when another process holds it (listings).
func (r *Run) sweep() {
	if r.lock != nil {
		r.removeLeftovers()
		return
	}
	d, err := os.Open(r.Dir)
	if err != nil {
		return
	}
	defer d.Close()
	if busy, err := fsx.TryLock(d, true); err != nil || busy || !fsx.HaveLocks {
		return
	}
	defer fsx.Unlock(d)
	r.removeLeftovers()
}

// removeLeftovers removes the run's leftovers; the caller holds its lock.
func (r *Run) removeLeftovers() {
	ents, err := os.ReadDir(r.Dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		switch {
		case !e.IsDir() && (strings.HasPrefix(name, "."+MetaFile+".tmp-") || strings.HasPrefix(name, ".probe-")):
			_ = os.Remove(filepath.Join(r.Dir, name))
		case e.IsDir() && !strings.HasPrefix(name, "."):
			(&Store{Dir: filepath.Join(r.Dir, name)}).sweepChildren()
		}
	}
}

// sweepChildren removes, in a store of child runs, the hidden directories of
// runs being created that no process holds, and sweeps each run.
func (s *Store) sweepChildren() {
	ents, err := os.ReadDir(s.Dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		r := &Run{Dir: filepath.Join(s.Dir, e.Name())}
		switch {
		case strings.HasPrefix(e.Name(), ".new-"):
			if _, _, held, known := r.Holder(); known && !held {
				_ = os.RemoveAll(r.Dir)
			}
		case isRunDir(r.Dir):
			r.sweep()
		}
	}
}
