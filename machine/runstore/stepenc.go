package runstore

import (
	"fmt"

	"github.com/lppctl/lppctl/machine"
)

// StepEncoder renders a run's steps as the journal writes them, without the
// checksum: a list that only grew as the items appended (vars_append), a map
// with a few keys changed as those keys (vars_patch), a long string that
// grew at its end as the text added (vars_concat), a reply a memory
// operation of the same step holds as a reference to it (vars_ref). Each
// variable is written whole the first time, so a reader that starts at the
// first line has what it needs. A step's line costs what the step changed,
// where a record written whole costs the size of every list and map it
// touched: lppctl run --json of a run whose list grows at every step is
// linear in the run this way, quadratic the other.
type StepEncoder struct {
	c *encoder
}

// NewStepEncoder returns an encoder that has written no step yet.
func NewStepEncoder() *StepEncoder { return &StepEncoder{c: newEncoder()} }

// Encode renders rec as one JSON line ending in a newline, valid until the
// next call. The encoder keeps what it needs of rec's values (their JSON),
// not the values.
func (s *StepEncoder) Encode(rec *machine.Record) ([]byte, error) {
	c := s.c
	w, commit, err := c.deltas(&Entry{Type: EntryStep, Record: rec})
	if err != nil {
		if ferr := checkFinite(rec); ferr != nil {
			return nil, ferr
		}
		return nil, err
	}
	if fb, ok := appendFastStep(c.fast[:0], w); ok {
		c.fast = append(fb, '\n')
		commit()
		return c.fast, nil
	}
	c.buf.Reset()
	if err := c.enc.Encode(w); err != nil {
		if ferr := checkFinite(rec); ferr != nil {
			return nil, ferr
		}
		return nil, fmt.Errorf("cannot encode step %d: %w", rec.Seq, err)
	}
	commit()
	return c.buf.Bytes(), nil
}
