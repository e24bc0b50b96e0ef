package runstore

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// TraceEncoder renders a journal's entries with every step's variables
// whole, as encoding/json writes an Entry (without HTML escapes): the
// format of lppctl runs trace --json. It keeps each list variable's JSON as
// last written, so a list that only grew (Record.Appended, as the journal's
// reader sets it) costs the items appended to encode, then a copy: the
// output of a run whose list grows at every step is still quadratic in the
// run (each line holds the list whole: that is the format), but the work
// per byte is a copy, not an encoding (10,000 steps: 5.9 s -> see
// docs/performance.md).
type TraceEncoder struct {
	walk  Walker
	lists map[string]*listJSON
	line  []byte
	buf   bytes.Buffer
	enc   *json.Encoder
	// Items counts the list items encoded, for the tests that check a
	// grown list costs its new items.
	Items int
}

// listJSON is a list variable's JSON as last written and how many items
// it holds.
type listJSON struct {
	b []byte
	n int
}

// NewTraceEncoder returns an encoder that has written no entry yet.
func NewTraceEncoder() *TraceEncoder {
	t := &TraceEncoder{lists: map[string]*listJSON{}}
	t.enc = json.NewEncoder(&t.buf)
	t.enc.SetEscapeHTML(false)
	return t
}

// Encode renders e as one line ending in a newline, valid until the next
// call. Entries must come in the journal's order.
func (t *TraceEncoder) Encode(e *Entry) ([]byte, error) {
	if e.Type != EntryStep || e.Record == nil {
		return t.encodeJSON(e)
	}
	rec := t.walk.Next(e.Record)
	step := *e
	step.Record = rec
	w := &wireEntry{Entry: &step}
	for name, v := range rec.Vars {
		xs, ok := v.([]any)
		if !ok || xs == nil {
			delete(t.lists, name)
			continue
		}
		raw, err := t.list(name, xs, rec.Appended)
		if err != nil {
			return nil, fmt.Errorf("cannot encode step %d: %w", rec.Seq, err)
		}
		if w.raw == nil {
			w.raw = map[string][]byte{}
		}
		w.raw[name] = raw
	}
	if b, ok := appendFastStep(t.line[:0], w); ok {
		t.line = append(b, '\n')
		return t.line, nil
	}
	return t.encodeJSON(&step)
}

// list returns the JSON of list variable name, whose value is xs: the
// items past the length it had when last written appended to that JSON
// when the step only appended to it, else xs encoded whole.
func (t *TraceEncoder) list(name string, xs []any, appended map[string]int) ([]byte, error) {
	prev := t.lists[name]
	from, grew := appended[name]
	if prev == nil || !grew || from != prev.n || len(xs) < from {
		prev = &listJSON{b: []byte{'['}}
		from = 0
		t.lists[name] = prev
	} else {
		prev.b = prev.b[:len(prev.b)-1] // its "]"
	}
	for i := from; i < len(xs); i++ {
		if len(prev.b) > 1 {
			prev.b = append(prev.b, ',')
		}
		b, err := appendValue(prev.b, xs[i])
		if err != nil {
			delete(t.lists, name)
			return nil, err
		}
		prev.b = b
		t.Items++
	}
	prev.n = len(xs)
	// With its "]", which the next append cuts off: the line copies it
	// before then.
	prev.b = append(prev.b, ']')
	return prev.b, nil
}

func (t *TraceEncoder) encodeJSON(e *Entry) ([]byte, error) {
	t.buf.Reset()
	if err := t.enc.Encode(e); err != nil {
		return nil, err
	}
	return t.buf.Bytes(), nil
}
