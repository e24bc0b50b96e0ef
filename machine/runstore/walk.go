package runstore

import (
	"maps"

	"github.com/lppctl/lppctl/machine"
)

// Walker gives the records of a journal, in order, with their variables
// whole. ReadJournal hands out a step that changed keys of a map (Record.
// MapKeys) with only the keys it set in that map (a copy of the whole map
// per step would make reading a journal quadratic); Next gives the step with
// the map as it was after it, kept by the Walker and changed in place from
// one step to the next. Records with whole values (a running machine's, or
// any step without MapKeys) are given as they are.
//
// A map Next gives is valid until the next call: a reader that keeps one
// past it copies it (maps.Clone). Walking n records costs O(what they
// changed), plus one copy of a map per whole value written before a key
// change.
type Walker struct {
	whole map[string]map[string]any // map var → its last value written whole
	live  map[string]map[string]any // map var → the Walker's own copy, keys applied
}

// Next returns rec with its variables whole (rec itself when they are).
func (w *Walker) Next(rec *machine.Record) *machine.Record {
	out := rec
	for name, v := range rec.Vars {
		m, isMap := v.(map[string]any)
		keys, patched := rec.MapKeys[name]
		if isMap && patched && w.whole[name] != nil {
			live := w.live[name]
			if live == nil {
				live = maps.Clone(w.whole[name])
				if w.live == nil {
					w.live = map[string]map[string]any{}
				}
				w.live[name] = live
			}
			for _, k := range keys {
				if nv, has := m[k]; has {
					live[k] = nv
				} else {
					delete(live, k)
				}
			}
			if out == rec {
				c := *rec
				c.Vars = maps.Clone(rec.Vars)
				out = &c
			}
			out.Vars[name] = live
			continue
		}
		delete(w.live, name)
		if !isMap {
			delete(w.whole, name)
			continue
		}
		if w.whole == nil {
			w.whole = map[string]map[string]any{}
		}
		w.whole[name] = m // a whole value (or MapKeys with none before: whole)
	}
	return out
}

// Clone returns a Walker that goes on from where w stands, independently:
// walking either changes nothing the other gives. It costs a copy of each
// map w changed by keys (not of the records walked).
func (w *Walker) Clone() *Walker {
	c := &Walker{whole: maps.Clone(w.whole)}
	if w.live != nil {
		c.live = make(map[string]map[string]any, len(w.live))
		for name, m := range w.live {
			c.live[name] = maps.Clone(m)
		}
	}
	return c
}
