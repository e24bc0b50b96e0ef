package validate

import (
	"regexp"
	"sort"
	"strings"

	mspec "github.com/lppctl/lppctl/machine/spec"
	"gopkg.in/yaml.v3"
)

// damage is what Parse's errors may have dropped from a partial spec, found
// by where they are: the graph checks must not report what the dropped parts
// may have said.
type damage struct {
	// states maps each state with a decode error in its text to the states
	// that text names: it may have lost transitions to them, or its final: true.
	states map[string][]string
	// roots are states named by text that was dropped whole (a state whose
	// name is not an identifier, an unknown top-level key, an event): it may
	// have led to them.
	roots []string
	// finals: a final state may have been dropped (a state or a top-level
	// key was), so "no final state" is not certain.
	finals bool
	// events: an event may have been dropped, so any state may have a way
	// to a final state.
	events bool
	// total: the errors could not be located; no graph check is certain.
	total bool
	// keys maps each state with a decode error in its text to the keys
	// (as written) whose text holds one: a misspelt key, or a value that
	// does not decode.
	keys map[string][]string
	// context: context: is not a mapping, so no variable was declared:
	// a name an expression reads, or a set writes, is not known to be unknown.
	context bool
}

// unknownVarsUncertain reports whether the spec's variables were lost to a
// decode error (context: is not a mapping): an unknown variable is then
// no error of its own.
func (v *validator) unknownVarsUncertain() bool {
	return v.damage != nil && v.damage.context
}

func (d *damage) hasState(name string) bool {
	_, ok := d.states[name]
	return ok
}

// damaged reports whether the state named has a decode error in its text,
// or Parse's errors could not be located: it may have lost its ways out.
func (v *validator) damaged(state string) bool {
	return v.damage != nil && (v.damage.total || v.damage.hasState(state))
}

// lostKey reports whether state's key may have been lost to a decode
// error of its text: the key's value did not decode, or a key that is not
// one of a state's is nearest to it (od for do, whit for with). What
// follows from the key's absence (with: without do:, a missing parameter,
// final_requires on a state that is not final) is then not reported: it is
// the same mistake.
func (v *validator) lostKey(state, key string) bool {
	if v.damage == nil {
		return false
	}
	for _, k := range v.damage.keys[state] {
		if k == key {
			return true
		}
		if !mspec.Contains(mspec.StateKeys, k) {
			if near, ok := mspec.DidYouMean(k, mspec.StateKeys); ok && near == key {
				return true
			}
		}
	}
	return false
}

// region is the text of one key of a mapping and its value: from the key to
// the next key of the same mapping (or end).
type region struct {
	name       string
	key, value *yaml.Node
	start, end mspec.Pos
}

func regionsOf(m *yaml.Node, end mspec.Pos) []region {
	var out []region
	for i := 0; i+1 < len(m.Content); i += 2 {
		r := region{name: m.Content[i].Value, key: m.Content[i], value: m.Content[i+1], start: mspec.NodePos(m.Content[i]), end: end}
		if i+2 < len(m.Content) {
			r.end = mspec.NodePos(m.Content[i+2])
		}
		out = append(out, r)
	}
	return out
}

func posBefore(a, b mspec.Pos) bool { return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col }

// regionAt returns the region holding p (regions are in text order: a
// binary search, so locating every error of a big spec stays n log n).
func regionAt(rs []region, p mspec.Pos) *region {
	i := sort.Search(len(rs), func(i int) bool { return posBefore(p, rs[i].start) }) - 1
	if i >= 0 && posBefore(p, rs[i].end) {
		return &rs[i]
	}
	return nil
}

// findDamage locates each of Parse's errors in the spec's text.
func findDamage(spec *mspec.Spec, parsed mspec.Diagnostics) *damage {
	d := &damage{states: map[string][]string{}, keys: map[string][]string{}}
	var doc yaml.Node
	if err := yaml.Unmarshal(spec.Source, &doc); err != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		d.total = true
		return d
	}
	eof := mspec.Pos{Line: mspec.LineCount(spec.Source) + 2, Col: 1}
	top := regionsOf(doc.Content[0], eof)
	names := func(r *region) []string { return stateNamesIn(spec, r.start, r.end) }
	// The regions of a mapping, split once (not once per error).
	split := map[*yaml.Node][]region{}
	regions := func(m *yaml.Node, end mspec.Pos) []region {
		rs, ok := split[m]
		if !ok {
			rs = regionsOf(m, end)
			split[m] = rs
		}
		return rs
	}
	dropped := func(r *region) {
		d.roots = append(d.roots, names(r)...)
		d.finals = true
	}
	for _, e := range parsed.Errors() {
		if strings.HasPrefix(e.Msg, "missing key ") {
			continue // reported at the spec's start; nothing was dropped
		}
		t := regionAt(top, e.Pos)
		if t == nil {
			if e.Pos.IsValid() {
				continue // before the first key
			}
			d.total = true
			return d
		}
		if e.Pos == t.start && !mspec.Contains(mspec.TopKeys, t.name) || t.name == "" {
			// An unknown (or duplicate) top-level key: its text is dropped.
			dropped(t)
			if _, near := mspec.DidYouMean(t.name, []string{"events"}); near || t.name == "events" {
				d.events = true
			}
			continue
		}
		switch t.name {
		case "context":
			if t.value.Kind != yaml.MappingNode && e.Pos == mspec.NodePos(t.value) {
				d.context = true
			}
		case "states":
			var sub *region
			if t.value.Kind == yaml.MappingNode {
				sub = regionAt(regions(t.value, t.end), e.Pos)
			}
			switch {
			case e.Pos == t.start:
				dropped(t) // a second states: key
			case sub == nil:
				// states is not a mapping: there are no states.
			case spec.State(sub.name) != nil:
				f := fieldAt(sub, e.Pos)
				if f != nil {
					d.keys[sub.name] = append(d.keys[sub.name], f.name)
				}
				if f != nil && e.Pos != f.start && mspec.Contains(stateDataKeys, f.name) {
					break // inside do, with, set or note: no transition or final is lost
				}
				d.states[sub.name] = append(d.states[sub.name], names(sub)...)
			default:
				dropped(sub) // a state whose name is not an identifier
			}
		case "events":
			var sub *region
			if t.value.Kind == yaml.MappingNode {
				sub = regionAt(regions(t.value, t.end), e.Pos)
			}
			if sub == nil {
				sub = t
			}
			d.roots = append(d.roots, names(sub)...)
			if ev := spec.Event(sub.name); ev == nil || ev.Pos != sub.start {
				d.events = true // the event was dropped
			}
			// A decoded event with an error keeps its from (or gets every
			// state) and, without its to, leads nowhere: graph counts it.
		}
		// Errors in lpp, name, description, context, initial and limits
		// change no edge: a bad initial is an undefined one.
	}
	return d
}

// stateDataKeys are the keys of a state that hold no transition and no final.
var stateDataKeys = []string{"do", "with", "set", "note"}

// fieldAt returns the key of the mapping r's value whose text holds p, or nil.
func fieldAt(r *region, p mspec.Pos) *region {
	if r.value.Kind != yaml.MappingNode {
		return nil
	}
	return regionAt(regionsOf(r.value, r.end), p)
}

var identWordRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// stateNamesIn returns the defined states whose names appear as words in the
// spec's text from start to end.
func stateNamesIn(spec *mspec.Spec, start, end mspec.Pos) []string {
	var out []string
	for l := start.Line; l <= end.Line; l++ {
		line := mspec.SourceLine(spec.Source, l)
		if l == end.Line {
			line = cutCol(line, end.Col)
		}
		if l == start.Line {
			line = line[len(cutCol(line, start.Col)):]
		}
		for _, w := range identWordRE.FindAllString(line, -1) {
			if spec.State(w) != nil {
				out = mspec.AppendUnique(out, w)
			}
		}
	}
	return out
}

// cutCol returns line up to (not including) the 1-based character column col.
func cutCol(line string, col int) string {
	n := 0
	for i := range line {
		if n == col-1 {
			return line[:i]
		}
		n++
	}
	return line
}
