package runstore

import (
	"bytes"
	"fmt"

	"github.com/lppctl/lppctl/machine"
)

// Steps writes records as the journal writes its step lines, for a store
// of steps that is not a run's journal file (the Temporal engine's
// segments and progress pages): a list variable that grew by appending is
// written as its new items (vars_append), a map variable changed in a few
// keys as those keys (vars_patch), so that a value that grows at every step
// costs what it grew by, not its whole size again. The first line that
// holds a list or map variable holds it whole, so the lines read alone
// (ReadSteps), from the first.
type Steps struct {
	enc *encoder
	b   []byte
}

// NewSteps returns an empty Steps.
func NewSteps() *Steps { return &Steps{enc: newEncoder()} }

// Add writes rec's line. rec's maps are whole, as a running machine gives
// them (a record read back, which holds a map's changed keys only, goes
// through a Walker first): a step that changed keys of a map is written as
// those keys, or as the map whole when that is shorter. A record that JSON
// cannot hold (a NaN, an infinity) is an error that wraps ErrUnencodable,
// and nothing is written.
func (s *Steps) Add(rec *machine.Record) error {
	line, commit, err := s.enc.encode(&Entry{Type: "step", Record: rec})
	if err != nil {
		return err
	}
	commit()
	s.b = append(s.b, line...)
	return nil
}

// Bytes returns the lines written, each ending with a newline.
func (s *Steps) Bytes() []byte { return s.b }

// Len returns the number of bytes written.
func (s *Steps) Len() int { return len(s.b) }

// EncodeSteps writes recs as step lines (Steps).
func EncodeSteps(recs []*machine.Record) ([]byte, error) {
	s := NewSteps()
	for _, rec := range recs {
		if err := s.Add(rec); err != nil {
			return nil, err
		}
	}
	return s.Bytes(), nil
}

// ReadSteps reads the records of lines Steps wrote, as ReadJournal reads a
// journal's steps, in space linear in the lines: a list's items are shared
// with the records before it, and a step that changed keys of a map holds
// only the keys it set (Record.MapKeys names those and the ones removed;
// a Walker gives the maps whole). Record.Appended says which items a step
// appended. Every line must be a complete step line: a torn or damaged one
// is an error naming it, never left out.
func ReadSteps(b []byte) ([]*machine.Record, error) {
	dec := newDecoder()
	dec.partial = true
	var out []*machine.Record
	for n := 1; len(b) > 0; n++ {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return nil, fmt.Errorf("cannot read steps: line %d has no end (the lines were cut)", n)
		}
		e, err := dec.decode(b[:i])
		if err != nil {
			return nil, fmt.Errorf("cannot read steps: line %d: %w", n, err)
		}
		if e.Type != "step" || e.Record == nil {
			return nil, fmt.Errorf("cannot read steps: line %d is a %q entry, not a step", n, e.Type)
		}
		out = append(out, e.Record)
		b = b[i+1:]
	}
	return out, nil
}
