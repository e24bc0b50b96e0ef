package runstore

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/lppctl/lppctl/machine"
)

// The journal's line format. Every line is one JSON object, an Entry, whose
// last member is "crc": the CRC-32C (Castagnoli) of the line as it would be
// without that member, in 8 hex digits:
//
//	{"type":"step","seq":3,...,"crc":"1a2b3c4d"}
//
// A step's changed context variables are in "vars", except three kinds that
// would make the journal grow faster than the run:
//
//   - "vars_append": a list variable that grew by appending, as the items
//     appended to its value in the last line that wrote it;
//   - "vars_patch": a map variable that changed in a few keys, as the keys
//     set ("set") and removed ("del") since the last line that wrote it;
//   - "vars_ref": a long string variable that a memory operation of the same
//     step holds too (the model's reply is both the reply variable and an
//     L3 message), as the place in that operation's value where its JSON
//     text is ("op": the index in "memory", "at" and "len": the bytes);
//   - "vars_concat": a long string variable (refMin bytes or more) that grew
//     at its end, as the text added to its value in the last line that
//     wrote it (a transcript that gains a line at every step).
//
// A list, map or string written in one process is written in full the first time,
// so a reader can always rebuild a value from the lines before it. Journals
// written before checksums existed have no "crc" members and still load.

// refMin is the length from which a string variable is looked for in the
// step's memory operations (shorter ones are cheaper to write again).
const refMin = 1024

// MapPatch is how a map variable changed since the line that last wrote it.
type MapPatch struct {
	Set map[string]json.RawMessage `json:"set,omitempty"`
	Del []string                   `json:"del,omitempty"`
}

// keysPatch is a MapPatch with its values decoded.
type keysPatch struct {
	set map[string]any
	del []string
}

// MemRef places a string variable's JSON text (without its quotes) in a
// memory operation's value of the same step.
type MemRef struct {
	Op  int `json:"op"`
	At  int `json:"at"`
	Len int `json:"len"`
}

// wireEntry is an Entry as written: the step's vars that are not in Vars.
type wireEntry struct {
	*Entry
	Append  map[string]json.RawMessage `json:"vars_append,omitempty"`
	Patch   map[string]*MapPatch       `json:"vars_patch,omitempty"`
	Refs    map[string]*MemRef         `json:"vars_ref,omitempty"`
	Concat  map[string]string          `json:"vars_concat,omitempty"`
	items   map[string][]any           // vars_append as read by fastStep (then Append is nil)
	raw     map[string][]byte          // vars already encoded (TraceEncoder), written as they are
	patched map[string]*keysPatch      // vars_patch as read by fastStep (then Patch is nil)
	// scalars says that fastStep read Vars and found no list or map in
	// it: its values are as NormalizeJSON leaves them.
	scalars bool
	// short says that fastStep read Vars from fewer than refMin bytes, so
	// that none of them is a string a later line may add text to.
	short bool
}

// encoder renders entries as lines. It remembers how it last wrote each list
// and map variable, to write the next change as a delta.
type encoder struct {
	buf   bytes.Buffer
	line  []byte // the last line encoded (reused: valid until the next encode)
	fast  []byte // appendFastStep's buffer (reused)
	enc   *json.Encoder
	lists map[string][]byte    // list var → its JSON as last written, without its closing "]" (appended to in place)
	maps  map[string]*mapState // map var → its keys as last written
	vals  map[string][]any     // list var → its items as last written (for grownBy)
	strs  map[string]string    // long string var → its value as last written, valid UTF-8 (for grewAtEnd)
	// visited counts the keys of maps the encoder looked at (compared or
	// encoded), for the tests that check a change costs what changed.
	visited int
}

// mapState is a map variable as the encoder last wrote it: enough to tell
// which keys a new value changes, and whether writing them is shorter than
// writing the map, without encoding the keys that did not change.
type mapState struct {
	vals map[string]any // key → its value: a scalar, or its JSON (json.RawMessage) when it is a list or a map
	lens map[string]int // key → the length of its value's JSON
	size int            // the map's JSON length (escapes in keys aside)
}

// mapChange is how a map variable's state changes once its line is written.
type mapChange struct {
	st   *mapState // nil: a new state, built in full
	set  map[string]any
	lens map[string]int
	del  []string
	size int
}

func newEncoder() *encoder {
	e := &encoder{lists: map[string][]byte{}, maps: map[string]*mapState{}, vals: map[string][]any{}, strs: map[string]string{}}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}

// encode renders entry as one line with its checksum and newline. Nothing
// changes in the encoder until commit is called (once the line is written).
// The line is valid until the next call.
func (c *encoder) encode(e *Entry) (line []byte, commit func(), err error) {
	w := &wireEntry{Entry: e}
	commit = noCommit
	if e.Record != nil {
		if w, commit, err = c.deltas(e); err != nil {
			return nil, nil, cmp.Or(checkFinite(e.Record), err)
		}
	}
	if fb, ok := appendFastStep(c.fast[:0], w); ok {
		c.fast = append(fb, '\n')
		c.line = appendCRC(c.line[:0], c.fast)
		return c.line, commit, nil
	}
	c.buf.Reset()
	if err := c.enc.Encode(w); err != nil {
		if e.Record != nil {
			// Walked only on failure: a walk per step costs O(size of the vars).
			if ferr := checkFinite(e.Record); ferr != nil {
				return nil, nil, ferr
			}
		}
		return nil, nil, fmt.Errorf("cannot write journal: %w", err)
	}
	c.line = appendCRC(c.line[:0], c.buf.Bytes())
	return c.line, commit, nil
}

// checkFinite refuses a record holding a NaN or an infinity, which JSON
// cannot hold: the step is then not written at all.
func checkFinite(rec *machine.Record) error {
	for _, name := range slices.Sorted(maps.Keys(rec.Vars)) {
		if where, f, ok := nonFinite(name, rec.Vars[name]); ok {
			return fmt.Errorf("%w: step %d sets %s to %v, which the journal (JSON) cannot hold; the step is not recorded (was it a division by zero?)", ErrUnencodable, rec.Seq, where, f)
		}
	}
	return nil
}

// ErrUnencodable is wrapped by the error Append returns for an entry that
// cannot be written as JSON (a NaN or an infinity): nothing was written.
var ErrUnencodable = errors.New("cannot write journal")

func nonFinite(path string, v any) (string, float64, bool) {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return path, x, true
		}
	case float32:
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			return path, f, true
		}
	case []any:
		for i, it := range x {
			if p, f, ok := nonFinite(fmt.Sprintf("%s[%d]", path, i), it); ok {
				return p, f, true
			}
		}
	case []float64:
		for i, it := range x {
			if math.IsNaN(it) || math.IsInf(it, 0) {
				return fmt.Sprintf("%s[%d]", path, i), it, true
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if p, f, ok := nonFinite(path+"."+k, x[k]); ok {
				return p, f, true
			}
		}
	}
	return "", 0, false
}

// deltas splits a step's vars into those written in full and those written
// as deltas or references; commit records what was written.
func (c *encoder) deltas(e *Entry) (*wireEntry, func(), error) {
	if !c.needsDeltas(e.Record.Vars) { // the common case: nothing to copy
		return &wireEntry{Entry: e}, noCommit, nil
	}
	rec := *e.Record
	out := *e
	out.Record = &rec
	w := &wireEntry{Entry: &out}
	if len(rec.Vars) == 0 {
		return w, noCommit, nil
	}
	rec.Vars = make(map[string]any, len(e.Record.Vars))
	var (
		newLists map[string][]byte
		newMaps  map[string]*mapChange
		newVals  map[string][]any
		newStrs  map[string]string
		drop     []string
	)
	for name, v := range e.Record.Vars {
		switch x := v.(type) {
		case nil, bool, int, int64, float64: // the common case, written as is
			rec.Vars[name] = v
			if c.tracked(name) {
				drop = append(drop, name)
			}
			continue
		case string:
			if len(x) < refMin {
				rec.Vars[name] = v
				if c.tracked(name) {
					drop = append(drop, name)
				}
				continue
			}
			if tail, ok := c.grewAtEnd(name, x); ok {
				w.Concat = setKey(w.Concat, name, tail)
				newStrs = setKey(newStrs, name, x)
				continue
			}
			if ref := findRef(x, rec.Memory); ref != nil {
				w.Refs = setKey(w.Refs, name, ref)
				newStrs = keepString(newStrs, name, x, &drop)
				continue
			}
			rec.Vars[name] = v
			newStrs = keepString(newStrs, name, x, &drop)
			continue
		}
		if xs, ok := v.([]any); ok {
			prev, appended := c.vals[name], false
			tail := xs
			if n, ok := e.Record.Appended[name]; ok && n > 0 && n == len(prev) && n < len(xs) && len(c.lists[name]) > 1 {
				// The machine appended xs[n:] to the value we wrote last:
				// its items are not compared, and xs is kept as it is
				// (the machine never changes the items of a list value).
				tail, appended = xs[n:], true
				newVals = setKey(newVals, name, xs)
			} else {
				newVals = setKey(newVals, name, slices.Clone(xs)) // an action may change the array of xs
				tail, appended = grownBy(prev, xs)
			}
			if appended {
				b, err := marshal(tail)
				if err != nil {
					return nil, nil, fmt.Errorf("cannot write journal: step %d: variable %s: %w", rec.Seq, name, err)
				}
				w.Append = setKey(w.Append, name, json.RawMessage(b))
				// In place past the head's length: until commit, c.lists
				// still holds the head as it was.
				head := append(c.lists[name], ',')
				newLists = setKey(newLists, name, append(head, b[1:len(b)-1]...))
				continue
			}
		}
		if m, ok := v.(map[string]any); ok && m != nil {
			var ch *mapChange
			var p *MapPatch
			var err error
			if keys, ok := e.Record.MapKeys[name]; ok && c.maps[name] != nil {
				// The machine changed these keys of the value we wrote
				// last: the others are not looked at.
				ch, p, err = c.mapKeysDelta(c.maps[name], m, keys)
			} else {
				ch, p, err = c.mapDelta(c.maps[name], m)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("cannot write journal: step %d: variable %s: %w", rec.Seq, name, err)
			}
			newMaps = setKey(newMaps, name, ch)
			if p != nil {
				w.Patch = setKey(w.Patch, name, p)
				continue
			}
			rec.Vars[name] = v
			continue
		}
		full, err := marshal(v)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot write journal: step %d: variable %s: %w", rec.Seq, name, err)
		}
		switch {
		case len(full) > 0 && full[0] == '[':
			newLists = setKey(newLists, name, full[:len(full)-1])
			if tail := appended(c.lists[name], full); tail != nil {
				w.Append = setKey(w.Append, name, json.RawMessage(tail))
				continue
			}
		default:
			drop = append(drop, name)
		}
		rec.Vars[name] = v
	}
	commit := func() {
		for name, s := range newStrs {
			c.strs[name] = s
			delete(c.lists, name)
			delete(c.maps, name)
			delete(c.vals, name)
		}
		for name, b := range newLists {
			c.lists[name] = b
			delete(c.strs, name)
			delete(c.maps, name)
			if xs, ok := newVals[name]; ok {
				c.vals[name] = xs
			} else {
				delete(c.vals, name)
			}
		}
		for name, ch := range newMaps {
			c.maps[name] = ch.apply()
			delete(c.lists, name)
			delete(c.vals, name)
			delete(c.strs, name)
		}
		for _, name := range drop { // no longer a list, a map or a long string as far as deltas go
			delete(c.lists, name)
			delete(c.maps, name)
			delete(c.vals, name)
			delete(c.strs, name)
		}
	}
	return w, commit, nil
}

func noCommit() {}

// needsDeltas reports whether any of vars may be written otherwise than as
// is: a list, a map, a long string, or a name last written as one of them.
func (c *encoder) needsDeltas(vars map[string]any) bool {
	for name, v := range vars {
		switch x := v.(type) {
		case nil, bool, int, int64, float64:
		case string:
			if len(x) >= refMin {
				return true
			}
		default:
			return true
		}
		if c.tracked(name) {
			return true
		}
	}
	return false
}

// tracked reports whether name's last value was written as a list, a map
// or a long string.
func (c *encoder) tracked(name string) bool {
	_, l := c.lists[name]
	_, m := c.maps[name]
	_, s := c.strs[name]
	return l || m || s
}

// grewAtEnd returns what s has after the value of string variable name as
// last written, when that value is a prefix of s. The comparison costs
// nothing when s shares its bytes with that value (a run that appends to a
// string builds it in place), and a memory comparison otherwise. The text
// added must be valid UTF-8 too: the value as last written is, so s is, and
// its JSON text is that of the value followed by that of the text added.
func (c *encoder) grewAtEnd(name, s string) (string, bool) {
	prev, ok := c.strs[name]
	if !ok || len(s) <= len(prev) || s[:len(prev)] != prev {
		return "", false
	}
	tail := s[len(prev):]
	if !utf8.ValidString(tail) {
		return "", false
	}
	return tail, true
}

// keepString records that string variable name is written in full as s, so
// that the next line may write what grows at its end (not when s is not
// valid UTF-8: its JSON text holds replacement characters instead).
func keepString(strs map[string]string, name, s string, drop *[]string) map[string]string {
	if !utf8.ValidString(s) {
		*drop = append(*drop, name)
		return strs
	}
	return setKey(strs, name, s)
}

func setKey[V any](m map[string]V, k string, v V) map[string]V {
	if m == nil {
		m = map[string]V{}
	}
	m[k] = v
	return m
}

// marshal encodes v as encoding/json does (no HTML escapes): scalars, lists
// and maps of them directly (appendValue), anything else through
// encoding/json.
func marshal(v any) ([]byte, error) { return appendValue(nil, v) }

// Marshal encodes v as the journal writes values: as encoding/json does,
// without its HTML escapes (what a person reads shows "<b>", not
// "\u003cb\u003e").
func Marshal(v any) ([]byte, error) { return marshal(v) }

// jsonMarshal is marshal through encoding/json.
func jsonMarshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// appended returns the items cur has after those of the list whose JSON
// without its closing "]" is head, as a JSON array, when cur is that list
// with items appended (and it was not empty); else nil. The list's last item
// is a complete JSON value, so head followed by a comma is an item boundary
// in cur.
func appended(head, cur []byte) []byte {
	if len(head) < 2 || len(cur) <= len(head)+1 { // "[" or nothing
		return nil
	}
	if !bytes.HasPrefix(cur, head) || cur[len(head)] != ',' {
		return nil
	}
	tail := make([]byte, 0, len(cur)-len(head))
	tail = append(tail, '[')
	return append(tail, cur[len(head)+1:]...)
}

// grownBy returns the items xs has after those of prev, when prev (the list
// as last written, not empty) is a prefix of xs item for item, compared as
// scalars: a check in nanoseconds per item that spares marshalling a long
// list at every step. Anything else (a nested item, a change) says false,
// and appended decides on the list's JSON.
func grownBy(prev, xs []any) ([]any, bool) {
	if len(prev) == 0 || len(xs) <= len(prev) {
		return nil, false
	}
	for i, p := range prev {
		if !sameScalar(p, xs[i]) {
			return nil, false
		}
	}
	return xs[len(prev):], true
}

// sameScalar reports whether a and b are the same string, bool or number of
// the same type (floats bit for bit: 0 and -0 are written differently).
func sameScalar(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case int:
		y, ok := b.(int)
		return ok && x == y
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	}
	return false
}

// mapDelta compares m with the map as last written (st; nil when none): it
// returns how the state changes once m is written and, when writing the
// changed keys is shorter than writing m, those keys. A key whose value is
// a scalar costs a comparison; only changed keys and nested values are
// encoded.
func (c *encoder) mapDelta(st *mapState, m map[string]any) (*mapChange, *MapPatch, error) {
	ch := &mapChange{st: st, set: make(map[string]any), lens: make(map[string]int)}
	if st == nil {
		ch.size = 2
		for k, v := range m {
			b, err := marshal(v)
			if err != nil {
				return nil, nil, err
			}
			ch.set[k], ch.lens[k] = keptValue(v, b), len(b)
			ch.size += len(k) + len(b) + 4
		}
		return ch, nil, nil
	}
	p := &MapPatch{}
	size, kept := 0, 0
	ch.size = st.size
	for k, v := range m {
		c.visited++
		old, ok := st.vals[k]
		if ok {
			kept++
			if sameScalar(old, v) {
				continue
			}
		}
		b, err := marshal(v)
		if err != nil {
			return nil, nil, err
		}
		if raw, nested := old.(json.RawMessage); ok && nested && bytes.Equal(raw, b) {
			continue
		}
		p.Set = setKey(p.Set, k, json.RawMessage(b))
		ch.set[k], ch.lens[k] = keptValue(v, b), len(b)
		size += len(k) + len(b) + 4
		if ok {
			ch.size += len(b) - st.lens[k]
		} else {
			ch.size += len(k) + len(b) + 4
		}
	}
	if kept < len(st.vals) { // keys were removed
		for k := range st.vals {
			if _, ok := m[k]; !ok {
				p.Del = append(p.Del, k)
				size += len(k) + 3
				ch.size -= len(k) + st.lens[k] + 4
			}
		}
		sort.Strings(p.Del)
		ch.del = p.Del
	}
	if size+20 >= ch.size {
		return ch, nil, nil
	}
	return ch, p, nil
}

// mapKeysDelta is mapDelta for a map m that is the map as last written (st)
// with only keys set or removed (Record.MapKeys; a key m lacks was
// removed): only those keys are compared and encoded.
func (c *encoder) mapKeysDelta(st *mapState, m map[string]any, keys []string) (*mapChange, *MapPatch, error) {
	ch := &mapChange{st: st, set: make(map[string]any, len(keys)), lens: make(map[string]int, len(keys)), size: st.size}
	p := &MapPatch{}
	size := 0
	for _, k := range keys {
		c.visited++
		v, has := m[k]
		old, had := st.vals[k]
		if !has {
			if had && !slices.Contains(p.Del, k) {
				p.Del = append(p.Del, k)
				size += len(k) + 3
				ch.size -= len(k) + st.lens[k] + 4
			}
			continue
		}
		if _, done := ch.set[k]; done {
			continue // named twice
		}
		if had && sameScalar(old, v) {
			continue
		}
		b, err := marshal(v)
		if err != nil {
			return nil, nil, err
		}
		if raw, nested := old.(json.RawMessage); had && nested && bytes.Equal(raw, b) {
			continue
		}
		p.Set = setKey(p.Set, k, json.RawMessage(b))
		ch.set[k], ch.lens[k] = keptValue(v, b), len(b)
		size += len(k) + len(b) + 4
		if had {
			ch.size += len(b) - st.lens[k]
		} else {
			ch.size += len(k) + len(b) + 4
		}
	}
	sort.Strings(p.Del)
	ch.del = p.Del
	if size+20 >= ch.size {
		return ch, nil, nil
	}
	return ch, p, nil
}

// keptValue is what a map's state keeps of a key's value v (encoded as b):
// v when it is a scalar, else its JSON.
func keptValue(v any, b []byte) any {
	switch v.(type) {
	case string, bool, int, int64, float64:
		return v
	}
	return json.RawMessage(b)
}

// apply changes the map's state in place (a new one when there was none)
// and returns it.
func (ch *mapChange) apply() *mapState {
	st := ch.st
	if st == nil {
		return &mapState{vals: ch.set, lens: ch.lens, size: ch.size}
	}
	for k, v := range ch.set {
		st.vals[k], st.lens[k] = v, ch.lens[k]
	}
	for _, k := range ch.del {
		delete(st.vals, k)
		delete(st.lens, k)
	}
	st.size = ch.size
	return st
}

// findRef looks for s's JSON text in the values of ops.
func findRef(s string, ops []machine.MemOp) *MemRef {
	if len(ops) == 0 {
		return nil
	}
	var bodies [][]byte
	for _, html := range []bool{false, true} { // values may come from json.Marshal, which escapes <, > and &
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(s) != nil {
			return nil
		}
		body := bytes.TrimRight(b.Bytes(), "\n")
		bodies = append(bodies, body[1:len(body)-1])
	}
	for i, op := range ops {
		for _, body := range bodies {
			if at := bytes.Index(op.Value, body); at >= 0 && isCompact(op.Value) {
				return &MemRef{Op: i, At: at, Len: len(body)}
			}
		}
	}
	return nil
}

// isCompact reports whether a raw value is written as it is (encoding/json
// compacts a RawMessage, which would move the bytes a MemRef points at).
func isCompact(raw []byte) bool {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return false
	}
	return bytes.Equal(b.Bytes(), raw)
}
