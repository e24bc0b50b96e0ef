package temporal

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"
	"unsafe"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

// execRecords are the records of one workflow execution: every step the run
// made in it, as the workflow keeps them until it stores them (when it
// continues as new, or ends) and sends pages of them (the progress query).
//
// The workflow's observer borrows a step's values (recordObserver, a
// machine.ValueBorrower): it keeps a light copy of each record, so that the
// run changes a map variable's keys in place from step to step and a value
// that grows at every step costs what it grew by, in time and in memory:
//
//   - a list as the run's array (the run never changes an item a record can
//     see; a list it appended to says so: Record.Appended);
//   - a map the step changed keys of as those keys (Record.MapKeys), the
//     run's map being changed in place afterwards;
//   - any other map copied (the run may come to change it in place);
//   - a string as the run's string: one the run added to in place shares
//     its bytes with the one before (machine/concat.go), so it costs what
//     it grew by.
//
// A reader walks the records from the execution's first context
// (runstore.Walker) to have their maps whole.
type execRecords struct {
	// lines says that a record's size counts what it holds (runBounds.Lines);
	// appends, that it counts a list appended to as the items appended and
	// every other value whole (runBounds.Appends); neither, every value it
	// changed whole, as executions from before them did. texts says that
	// a string the run added to in place counts as the text added
	// (runBounds.Texts).
	lines, appends, texts bool
	limit                 int            // the blob limit: a value over it fails the run
	base                  map[string]any // the context when the execution began
	recs                  []*machine.Record
	sizes                 []int // the bytes each record holds (or, before lines, its values whole)
	bytes                 int   // their sum (Segment.Records)
	lists                 map[string]listSize
	maps                  map[string]*mapSize
	strs                  map[string]textSize
}

// textSize is a string variable's value and JSON size when last measured.
type textSize struct {
	s    string
	size int
}

// listSize is a list variable's length and JSON size when last measured.
type listSize struct{ n, size int }

// mapSize is a map variable's JSON size when last measured, with the size
// of each of its members ("key":value) and their sum.
type mapSize struct {
	lens map[string]int
	sum  int
}

func (s *mapSize) size() int { return 2 + s.sum + max(len(s.lens)-1, 0) }

// recordObserver is the workflow's observer: it keeps what it needs of a
// record while OnStep runs (execRecords.add), so it borrows the values.
type recordObserver struct{ w *wfRun }

func (o recordObserver) OnStep(_ context.Context, rec *machine.Record) error { return o.w.observe(rec) }

// BorrowsValues says that OnStep keeps none of the values it is given.
func (recordObserver) BorrowsValues() {}

// add checks rec against the blob limit, measures it and keeps a light copy
// of it.
func (x *execRecords) add(rec *machine.Record) error {
	light := *rec
	if len(rec.Vars) > 0 {
		light.Vars = make(map[string]any, len(rec.Vars))
	}
	held := 0
	for _, name := range slices.Sorted(maps.Keys(rec.Vars)) {
		v := rec.Vars[name]
		light.Vars[name] = v
		size, kept, err := x.measure(name, v, rec)
		if err != nil {
			return err
		}
		if size > x.limit {
			return &LimitError{What: fmt.Sprintf("context variable %s (set by step %d in state %s)", name, rec.Seq, rec.From), Size: size, Limit: x.limit}
		}
		if m, ok := v.(map[string]any); ok {
			if keys, changed := rec.MapKeys[name]; changed {
				part := make(map[string]any, len(keys))
				for _, k := range keys {
					if e, has := m[k]; has {
						part[k] = e
					}
				}
				light.Vars[name] = part
			} else {
				light.Vars[name] = maps.Clone(m)
			}
		}
		if !x.lines && !x.appends {
			kept = size
		}
		held += kept
	}
	for _, op := range rec.Memory {
		held += len(op.Value)
	}
	x.recs = append(x.recs, &light)
	x.sizes = append(x.sizes, held)
	x.bytes += held
	return nil
}

// measure returns the JSON size of variable name's new value v, and the
// bytes a light record keeps of it (0 for a number, a bool or null). A list
// appended to and a map changed in a few keys are measured by what changed,
// not marshalled whole (but as executions from before lines did).
func (x *execRecords) measure(name string, v any, rec *machine.Record) (size, kept int, err error) {
	switch val := v.(type) {
	case nil, bool, int, int64, float64:
		x.forget(name)
		return 0, 0, nil
	case string:
		if x.texts {
			size, kept = x.textSize(name, val)
			return size, kept, nil
		}
		x.forget(name)
		n := jsonStringLen(val)
		return n, n, nil
	case []any:
		if x.lines || x.appends {
			delete(x.maps, name)
			return x.listSize(name, val, rec.Appended)
		}
	case map[string]any:
		if x.lines {
			delete(x.lists, name)
			keys, changed := rec.MapKeys[name]
			return x.mapSize(name, val, keys, changed)
		}
	}
	x.forget(name)
	b, err := json.Marshal(v)
	if err != nil {
		return 0, 0, fmt.Errorf("cannot record context variable %s: %w", name, err)
	}
	return len(b), len(b), nil
}

func (x *execRecords) forget(name string) {
	delete(x.lists, name)
	delete(x.maps, name)
	delete(x.strs, name)
}

// textSize returns the JSON size of string variable name's new value s and
// the bytes a light record keeps of it: the text added, when s shares its
// bytes with the value last measured and is longer (the run added to it in
// place: the records hold the bytes once), else s whole; and remembers it.
// Which values share their bytes depends only on their lengths
// (Run.addText), so a replay counts as the run did. The text added must be
// valid UTF-8 for the JSON sizes to add up (jsonStringLen).
func (x *execRecords) textSize(name, s string) (size, kept int) {
	delete(x.lists, name)
	delete(x.maps, name)
	last, ok := x.strs[name]
	if ok && len(s) > len(last.s) && len(last.s) > 0 && unsafe.StringData(s) == unsafe.StringData(last.s) && utf8.ValidString(s[len(last.s):]) {
		kept = jsonStringLen(s[len(last.s):])
		size = last.size + kept - 2 // "ab" and "c" make "abc"
	} else {
		size = jsonStringLen(s)
		kept = size
	}
	if x.strs == nil {
		x.strs = map[string]textSize{}
	}
	x.strs[name] = textSize{s: s, size: size}
	return size, kept
}

// listSize returns the JSON size of list variable name's new value xs and
// the size of the items the step appended to the value last measured
// (appended), or its whole size; and remembers it.
func (x *execRecords) listSize(name string, xs []any, appended map[string]int) (size, kept int, err error) {
	last, ok := x.lists[name]
	if n, grew := appended[name]; grew && ok && n > 0 && n == last.n && n < len(xs) {
		b, err := json.Marshal(xs[n:])
		if err != nil {
			return 0, 0, fmt.Errorf("cannot record context variable %s: %w", name, err)
		}
		// "[a,b]" with "[c]" appended is "[a,b,c]": one byte less than both.
		size, kept = last.size+len(b)-1, len(b)
	} else {
		b, err := json.Marshal(xs)
		if err != nil {
			return 0, 0, fmt.Errorf("cannot record context variable %s: %w", name, err)
		}
		size, kept = len(b), len(b)
	}
	if x.lists == nil {
		x.lists = map[string]listSize{}
	}
	x.lists[name] = listSize{n: len(xs), size: size}
	return size, kept, nil
}

// mapSize returns the JSON size of map variable name's new value m and the
// size of the members a light record keeps of it: the keys the step changed
// (changed) when the map's members were measured before, else all; and
// remembers them.
func (x *execRecords) mapSize(name string, m map[string]any, keys []string, changed bool) (size, kept int, err error) {
	st := x.maps[name]
	if !changed || st == nil { // measured whole
		st = &mapSize{lens: make(map[string]int, len(m))}
		for k, v := range m {
			n, err := memberLen(k, v)
			if err != nil {
				return 0, 0, fmt.Errorf("cannot record context variable %s: %w", name, err)
			}
			st.lens[k] = n
			st.sum += n
		}
		if x.maps == nil {
			x.maps = map[string]*mapSize{}
		}
		x.maps[name] = st
		return st.size(), st.size(), nil
	}
	for _, k := range keys {
		if old, had := st.lens[k]; had {
			st.sum -= old
			delete(st.lens, k)
		}
		if v, has := m[k]; has {
			n, err := memberLen(k, v)
			if err != nil {
				return 0, 0, fmt.Errorf("cannot record context variable %s: %w", name, err)
			}
			st.lens[k] = n
			st.sum += n
			kept += n
		}
	}
	return st.size(), kept, nil
}

// memberLen is the length of "k":v in a JSON object (json.Marshal's).
func memberLen(k string, v any) (int, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return 0, err
	}
	return jsonStringLen(k) + 1 + len(b), nil
}

// walk calls fn with each of the first to records, its maps whole (valid
// until the next call).
func (x *execRecords) walk(to int, fn func(i int, rec *machine.Record) error) error {
	var w runstore.Walker
	w.Next(&machine.Record{Vars: x.base})
	for i, rec := range x.recs[:to] {
		if err := fn(i, w.Next(rec)); err != nil {
			return err
		}
	}
	return nil
}

// steps returns the step lines of records from on, until they hold max
// bytes (but one record), and where they end.
func (x *execRecords) steps(from, max int) ([]byte, int, error) {
	lines, end := runstore.NewSteps(), len(x.recs)
	err := x.walk(len(x.recs), func(i int, rec *machine.Record) error {
		if i < from || end < len(x.recs) {
			return nil
		}
		if i > from && lines.Len() >= max {
			end = i
			return nil
		}
		return lines.Add(rec)
	})
	return lines.Bytes(), end, err
}

// segment is the records as a segment (stepLines) for a codec whose blob
// limit is limit.
func (x *execRecords) segment(limit int) (json.RawMessage, error) {
	lines, _, err := x.steps(0, int(^uint(0)>>1))
	if err != nil {
		return nil, err
	}
	return json.Marshal(stepLines{Lines: pieces(lines, limit)})
}

// whole returns records from on, their maps whole and their own (as a
// client from before step lines reads them), until their values hold
// PageBytes (but one record), and where they end.
func (x *execRecords) whole(from int) ([]*machine.Record, int, error) {
	var out []*machine.Record
	end, size := min(len(x.recs), from+PageRecords), 0
	err := x.walk(end, func(i int, rec *machine.Record) error {
		if i < from || i >= end {
			return nil
		}
		if size += x.sizes[i]; size > PageBytes && i > from {
			end = i
			return nil
		}
		c := *rec
		c.Vars = maps.Clone(rec.Vars)
		for name, v := range c.Vars {
			if m, ok := v.(map[string]any); ok {
				c.Vars[name] = maps.Clone(m)
			}
		}
		out = append(out, &c)
		return nil
	})
	return out, end, err
}

// jsonStringLen is the length of s as JSON (json.Marshal's escapes), without
// making it.
func jsonStringLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += w
		}
		i += w
	}
	return n
}
