package runstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/lppctl/lppctl/machine/internal/grow"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Reading journal lines back: the decoder rebuilds the variables written as
// deltas (vars_append, vars_patch, vars_ref, vars_concat) from the lines
// before.

// decoder reads lines back, rebuilding the variables written as deltas.
type decoder struct {
	names interner // the strings lines repeat (fastStep)
	// heads reads steps without their context variables (Vars is nil), for
	// a reader that needs only their routing: the lines are checked (their
	// checksums, their JSON) but deltas are not rebuilt.
	heads bool
	// reuse reads every step line fastStep reads into the same entry and
	// record (one): for a scanner that hands each to a reader that keeps
	// nothing of it and copies what it keeps itself (scanner.owned).
	reuse bool
	// partial hands out a step that changed keys of a map with only the
	// keys it set (Record.MapKeys names those and the ones removed), for a
	// reader that keeps every record (ReadJournal): a copy of the whole map
	// per step would make reading the journal quadratic. Walker gives the
	// whole maps back.
	partial bool
	one     stepBuf
	sawCRC  bool
	lists   map[string][]any          // list var → its value, as of the last line that wrote it
	maps    map[string]map[string]any // map var → its value, likewise
	strs    map[string]string         // string var of refMin bytes or more → its value, likewise
	grown   map[string][]byte         // string var → the bytes vars_concat built its value in (see concat)
}

func newDecoder() *decoder {
	return &decoder{lists: map[string][]any{}, maps: map[string]map[string]any{}, strs: map[string]string{}, grown: map[string][]byte{}}
}

// decode reads one line (without its newline).
func (d *decoder) decode(text []byte) (*Entry, error) {
	has, err := checkLineCRC(text)
	if err != nil {
		return nil, err
	}
	if !has && d.sawCRC {
		// A line of an older version has none; but once lines have one,
		// every later line has it.
		if _, jerr := decodeJSON(text); jerr != nil {
			return nil, jerr
		}
		return nil, fmt.Errorf("%w: the line has no checksum but the lines before it have one: it was changed or inserted after it was written, and the run cannot be rebuilt from it", errDamaged)
	}
	d.sawCRC = d.sawCRC || has
	w, fast := (*wireEntry)(nil), false
	if bytes.HasPrefix(text, []byte(`{"type":"step",`)) {
		if d.reuse {
			d.one.reuse = true
			w, fast = fastStepInto(text, &d.names, d.heads, &d.one)
		} else {
			w, fast = fastStep(text, &d.names, d.heads)
		}
	}
	if !fast {
		if w, err = decodeJSON(text); err != nil {
			return nil, err
		}
	}
	e := w.Entry
	if e.Record == nil {
		if w.Append != nil || w.items != nil || w.Patch != nil || w.patched != nil || w.Refs != nil || w.Concat != nil {
			return nil, errors.New("variables without a step")
		}
		return e, nil
	}
	if d.heads {
		e.Record.Vars = nil
		return e, nil
	}
	if err := d.rebuild(w); err != nil {
		return nil, fmt.Errorf("step %d: %w", e.Seq, err)
	}
	return e, nil
}

func decodeJSON(text []byte) (*wireEntry, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	w := &wireEntry{Entry: &Entry{}}
	if err := dec.Decode(w); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadJSON, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: more than one value on the line", errBadJSON)
	}
	if w.Type == "" {
		return nil, fmt.Errorf("%w: no type", errBadJSON)
	}
	if bytes.Contains(text, []byte(`"vars_`)) {
		if name := unknownDelta(text); name != "" {
			return nil, fmt.Errorf("the line changes variables with %q, a kind of change this version of lppctl does not know: a later version wrote it; read and resume the run with that version or a later one", name)
		}
	}
	return w, nil
}

// knownDeltas are the members a step line may change variables with besides
// vars. A later version that adds a kind of delta names it "vars_...": a
// line with one this version does not know is refused (unknownDelta), not
// read as if the variable had not changed, as encoding/json would read it.
var knownDeltas = map[string]bool{"vars_append": true, "vars_patch": true, "vars_ref": true, "vars_concat": true}

// unknownDelta returns the first top-level member of the line (valid JSON,
// one object) named "vars_..." that is not a known delta, or "".
func unknownDelta(text []byte) string {
	dec := json.NewDecoder(bytes.NewReader(text))
	if _, err := dec.Token(); err != nil { // {
		return ""
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		name, _ := t.(string)
		if strings.HasPrefix(name, "vars_") && !knownDeltas[name] {
			return name
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return ""
		}
	}
	return ""
}

// rebuild completes a step's Vars from its deltas and references and
// remembers the lists and maps it holds.
func (d *decoder) rebuild(w *wireEntry) error {
	rec := w.Record
	if !w.scalars {
		rec.Vars = normalizeMap(rec.Vars)
	}
	if len(w.Refs)+len(w.Append)+len(w.items)+len(w.Patch)+len(w.patched)+len(w.Concat) > 0 {
		if err := w.givenOnce(); err != nil {
			return err
		}
	}
	set := func(name string, v any) {
		if rec.Vars == nil {
			rec.Vars = map[string]any{}
		}
		rec.Vars[name] = v
	}
	if w.scalars && len(d.lists) == 0 && len(d.maps) == 0 && len(d.strs) == 0 && (w.short || !hasLong(rec.Vars)) {
		// Nothing to forget, nothing to remember: no list, map or long string.
	} else {
		d.remember(rec.Vars)
	}
	for name, ref := range w.Refs {
		if ref == nil {
			return fmt.Errorf("variable %s refers to nothing", name)
		}
		if ref.Op < 0 || ref.Op >= len(rec.Memory) || ref.At < 0 || ref.Len < 0 || ref.At+ref.Len > len(rec.Memory[ref.Op].Value) {
			return fmt.Errorf("variable %s refers to bytes outside memory operation %d", name, ref.Op)
		}
		raw := rec.Memory[ref.Op].Value[ref.At : ref.At+ref.Len]
		var s string
		if err := json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s); err != nil {
			return fmt.Errorf("variable %s refers to bytes of memory operation %d that are not a string: %v", name, ref.Op, err)
		}
		set(name, s)
		delete(d.lists, name)
		delete(d.maps, name)
		delete(d.grown, name)
		d.strs[name] = s
	}
	for name, tail := range w.Concat {
		prev, ok := d.strs[name]
		if !ok {
			return fmt.Errorf("text appended to string %s, which no earlier line wrote", name)
		}
		s := d.concat(name, prev, tail)
		d.strs[name] = s
		set(name, s)
	}
	if w.items == nil && len(w.Append) > 0 {
		w.items = make(map[string][]any, len(w.Append))
		for name, tail := range w.Append {
			var items []any
			if err := decodeNumbers(tail, &items); err != nil {
				return fmt.Errorf("items appended to list %s: %v", name, err)
			}
			w.items[name] = items
		}
	}
	for name, items := range w.items {
		prev, ok := d.lists[name]
		if !ok {
			return fmt.Errorf("items appended to list %s, which no earlier line wrote", name)
		}
		// prev's spare capacity is this decoder's own: values handed out
		// are capped at their length, so appending here changes none of them.
		cur := append(prev, items...)
		d.lists[name] = cur
		set(name, cur[:len(cur):len(cur)])
		if rec.Appended == nil {
			rec.Appended = map[string]int{}
		}
		rec.Appended[name] = len(prev) // Replay checks only the items appended

	}
	if w.patched == nil && len(w.Patch) > 0 {
		w.patched = make(map[string]*keysPatch, len(w.Patch))
		for name, p := range w.Patch {
			if p == nil {
				return fmt.Errorf("keys changed in map %s, which no earlier line wrote", name)
			}
			kp := &keysPatch{del: p.Del, set: make(map[string]any, len(p.Set))}
			for k, raw := range p.Set {
				var v any
				if err := decodeNumbers(raw, &v); err != nil {
					return fmt.Errorf("key %q of map %s: %v", k, name, err)
				}
				kp.set[k] = v
			}
			w.patched[name] = kp
		}
	}
	for name, p := range w.patched {
		prev, ok := d.maps[name]
		if !ok || p == nil {
			return fmt.Errorf("keys changed in map %s, which no earlier line wrote", name)
		}
		keys := make([]string, 0, len(p.del)+len(p.set))
		if d.partial {
			set(name, setKeys(p))
			keys = append(append(keys, p.del...), slices.Collect(maps.Keys(p.set))...)
			if rec.MapKeys == nil {
				rec.MapKeys = map[string][]string{}
			}
			rec.MapKeys[name] = keys
			continue
		}
		cur := prev
		if !d.reuse {
			cur = maps.Clone(prev) // the records handed out keep their maps
		}
		// With reuse, the map is changed in place: the reader keeps nothing
		// of a record (Run.Replay copies the keys MapKeys names).
		for _, k := range p.del {
			delete(cur, k)
			keys = append(keys, k)
		}
		for k, v := range p.set {
			cur[k] = v
			keys = append(keys, k)
		}
		d.maps[name] = cur
		set(name, cur)
		if rec.MapKeys == nil {
			rec.MapKeys = map[string][]string{}
		}
		rec.MapKeys[name] = keys // Replay copies only these keys
	}
	return nil
}

// setKeys returns the keys p sets, in a map of their own.
func setKeys(p *keysPatch) map[string]any {
	m := make(map[string]any, len(p.set))
	maps.Copy(m, p.set)
	return m
}

// remember forgets the lists and maps of the variables vars writes in
// full, and remembers the new ones.
func (d *decoder) remember(vars map[string]any) {
	for name, v := range vars {
		delete(d.lists, name)
		delete(d.maps, name)
		if len(d.strs) > 0 {
			delete(d.strs, name)
			delete(d.grown, name) // its bytes, let go
		}
		switch x := v.(type) {
		case []any:
			d.lists[name] = x[:len(x):len(x)]
		case map[string]any:
			d.maps[name] = x
		case string:
			if len(x) >= refMin {
				d.strs[name] = x
			}
		}
	}
}

// hasLong reports whether vars holds a string of refMin bytes or more (one
// a later line may append to).
func hasLong(vars map[string]any) bool {
	for _, v := range vars {
		if s, ok := v.(string); ok && len(s) >= refMin {
			return true
		}
	}
	return false
}

// concat returns prev followed by tail, string variable name's new value.
// It is built in place in the bytes the variable's last value was built in,
// when prev is that value, so that a string growing at every line costs its
// growth, not its length, per line (amortized): strings handed out are never
// changed, as the bytes are only ever written past the longest one.
func (d *decoder) concat(name, prev, tail string) string {
	buf := grow.Room(d.grown[name], prev, len(prev)+len(tail))
	buf = append(buf, tail...)
	d.grown[name] = buf
	return grow.String(buf)
}

func decodeNumbers(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	switch x := v.(type) {
	case *[]any:
		for i := range *x {
			(*x)[i] = mspec.NormalizeJSON((*x)[i])
		}
	case *any:
		*x = mspec.NormalizeJSON(*x)
	}
	return nil
}

// givenOnce refuses a line that gives a variable twice: in "vars" and as a
// delta, or as two deltas (the journal never writes one; its value would
// depend on the order they are read in). It allocates nothing.
func (w *wireEntry) givenOnce() error {
	vars := w.Record.Vars
	for name := range w.Refs {
		if has(vars, name) || has(w.Append, name) || has(w.items, name) || has(w.Patch, name) || has(w.patched, name) || has(w.Concat, name) {
			return givenTwice(name)
		}
	}
	for name := range w.Concat {
		if has(vars, name) || has(w.Append, name) || has(w.items, name) || has(w.Patch, name) || has(w.patched, name) {
			return givenTwice(name)
		}
	}
	if len(w.Append) > 0 {
		for name := range w.Append {
			if has(vars, name) || has(w.Patch, name) || has(w.patched, name) {
				return givenTwice(name)
			}
		}
	}
	if len(w.items) > 0 {
		for name := range w.items {
			if has(vars, name) || has(w.Patch, name) || has(w.patched, name) {
				return givenTwice(name)
			}
		}
	}
	if len(vars) > 0 && len(w.Patch) > 0 {
		for name := range w.Patch {
			if has(vars, name) {
				return givenTwice(name)
			}
		}
	}
	if len(vars) > 0 && len(w.patched) > 0 {
		for name := range w.patched {
			if has(vars, name) {
				return givenTwice(name)
			}
		}
	}
	return nil
}

func has[V any](m map[string]V, k string) bool {
	if len(m) == 0 {
		return false
	}
	_, ok := m[k]
	return ok
}

func givenTwice(name string) error {
	return fmt.Errorf("variable %s is given twice on the line", name)
}
