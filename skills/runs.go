package skills

import (
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"slices"
)

// maxRuns bounds the runs remembered in "<library>.runs.json": a run
// resumed after this many newer runs started gets a new iteration.
const maxRuns = 256

// runs is the content of "<library>.runs.json": the latest iteration and
// the iteration of each recent agent run.
type runs struct {
	Iteration int            `json:"iteration"`
	Runs      map[string]int `json:"runs"`
}

// readRuns reads the runs file; a missing or unreadable one is empty (the
// iteration then falls back to the highest in the library).
func readRuns(path string) (runs, error) {
	r := runs{Runs: map[string]int{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, err
	}
	if json.Unmarshal(data, &r) != nil || r.Runs == nil || r.Iteration < 0 {
		return runs{Runs: map[string]int{}}, nil
	}
	return r, nil
}

// startRun returns the iteration of run id, registering it as a new
// iteration (one past the latest) when it is new.
func (l *Library) startRun(id string) (int, error) {
	if r, err := readRuns(l.runsPath); err == nil { // most calls: a known run, no lock
		if it, ok := r.Runs[id]; ok {
			return it, nil
		}
	}
	var it int
	err := l.withLock(func(lk *os.File) error {
		r, err := readRuns(l.runsPath)
		if err != nil {
			return err
		}
		if known, ok := r.Runs[id]; ok {
			it = known
			return nil
		}
		s, err := l.loadHeld(lk)
		if err != nil {
			return err
		}
		it = max(r.Iteration, s.maxIt) + 1
		r.Iteration = it
		r.Runs[id] = it
		if len(r.Runs) > maxRuns { // forget the oldest runs
			ids := slices.SortedFunc(maps.Keys(r.Runs), func(a, b string) int { return r.Runs[a] - r.Runs[b] })
			for _, old := range ids[:len(ids)-maxRuns] {
				delete(r.Runs, old)
			}
		}
		data, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		return writeFileAtomic(l.runsPath, append(data, '\n'), 0o644)
	})
	return it, err
}
