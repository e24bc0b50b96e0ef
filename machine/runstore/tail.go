package runstore

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// A Tail reads a run's journal as ReadJournal does, once, and afterwards
// only the lines appended since: for a reader that reads the same journal
// again and again while the run goes on (the web UI's run page refreshes at
// every step of a live run, and read a 100,000-step journal whole each
// time). Each Read gives the journal as ReadJournal would give it then.
//
// Lines already read are taken to be as they were: a journal that was
// replaced (another file), or is shorter than what was read, is read again
// from its start; one that was rewritten in place to the same length or
// longer is not noticed (ReadJournal, which resume uses, compares the whole
// of it with the commit record).
type Tail struct {
	mu   sync.Mutex
	run  *Run
	s    *scanner    // nil: read the journal from its start
	seen os.FileInfo // the journal as last read
	read int64       // its size then
}

// Tail returns a Tail of the run's journal.
func (r *Run) Tail() *Tail {
	return &Tail{run: r}
}

// Read returns the journal as ReadJournal would read it now. The Log is
// the caller's: a later Read appends to a Log of its own.
func (t *Tail) Read() (*Log, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l, err := t.update()
	if err != nil {
		t.s = nil // read it from its start next time
		return nil, err
	}
	cp := *l
	cp.Records = l.Records[:len(l.Records):len(l.Records)]
	cp.Entries = l.Entries[:len(l.Entries):len(l.Entries)]
	return &cp, nil
}

func (t *Tail) update() (*Log, error) {
	path := t.run.Path(JournalFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read journal: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot read journal: %w", err)
	}
	c, hasCommit, err := t.run.readCommit()
	if err != nil {
		return nil, fmt.Errorf("cannot read journal: %w", err)
	}
	s := t.s
	if s != nil && (!os.SameFile(t.seen, fi) || fi.Size() < t.read || fi.Size() < s.log.good) {
		s = nil // replaced, or cut: what was read may not be there
	}
	if s != nil && fi.Size() == t.read && fi.ModTime().Equal(t.seen.ModTime()) {
		// Nothing appended since.
		if hasCommit {
			if err := s.checkRead(c); err != nil {
				return nil, fmt.Errorf("cannot read journal: %w", err)
			}
		}
		return s.log, nil
	}
	verify := true // the committed lines' chain is compared (their end is in what is read now)
	if s == nil {
		dec := newDecoder()
		dec.partial = true
		s = &scanner{log: &Log{name: path}, dec: dec, keep: true, at: -1}
	} else {
		if _, err := f.Seek(s.log.good, io.SeekStart); err != nil {
			return nil, fmt.Errorf("cannot read journal: %w", err)
		}
		s.log.Torn, s.log.TornLine = 0, 0 // read again, now perhaps whole
		verify = hasCommit && c.Size > s.log.good
	}
	s.at, s.atOK = -1, false
	if hasCommit && verify {
		s.at = c.Size
	}
	t.s, t.seen, t.read = s, fi, fi.Size()
	if err := s.read(f); err != nil {
		return nil, err
	}
	if err := s.checkOwner(t.run.Meta.ID); err != nil {
		return nil, fmt.Errorf("cannot read journal: %w", err)
	}
	if hasCommit {
		check := s.checkRead
		if verify {
			check = s.check
		}
		if err := check(c); err != nil {
			return nil, fmt.Errorf("cannot read journal: %w", err)
		}
	}
	return s.log, nil
}

// checkRead is check without the chain of the committed lines, for lines
// read and compared before: the journal holds what was committed.
func (s *scanner) checkRead(c commit) error {
	l := s.log
	if l.good < c.Size && s.lines < c.Lines {
		return &LostError{Path: l.name, Lines: s.lines, Steps: l.steps, Cut: l.Torn > 0, Committed: c}
	}
	return nil
}
