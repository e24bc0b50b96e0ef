package runstore

import (
	"errors"
	"fmt"
	"strings"
)

// OpenNested opens a run kept inside another run's directory (a child run)
// by its address: the top run's ID (or a unique prefix of it), then pairs of
// a folder of runs and a run's name in it (or a unique prefix), e.g.
// 20261122-153012-ab12cd/children/work-3 or 2026/children/work-3/children/sub-1.
func (s *Store) OpenNested(addr string) (*Run, error) {
	parts := strings.Split(strings.TrimSuffix(addr, "/"), "/")
	if len(parts)%2 == 0 {
		return nil, fmt.Errorf("cannot open run %q: %w (a child run's address is RUN/children/NAME)", addr, ErrNotFound)
	}
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.Contains(p, "\\") {
			return nil, fmt.Errorf("cannot open run %q: %w (a child run's address is RUN/children/NAME)", addr, ErrNotFound)
		}
	}
	r, err := s.Open(parts[0])
	if err != nil {
		return nil, err
	}
	for i := 1; i < len(parts); i += 2 {
		dir := r.Path(parts[i])
		child, err := (&Store{Dir: dir}).Open(parts[i+1])
		if errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("cannot open run %q: %w in %s", addr, ErrNotFound, dir)
		}
		if err != nil {
			return nil, err
		}
		r = child
	}
	return r, nil
}
