package main

import (
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/lppctl/lppctl/machine/runstore"
)

// traceValues renders the variables of the steps of one run, in order, as
// lppctl runs trace prints them: shorten(compactJSON(v), n). Only n
// characters of a value are shown, so a list or map is encoded item by item
// (in encoding/json's order: a map's keys sorted) and no further than they
// take; a map variable's sorted keys are kept from step to step and changed
// by the keys a step changed (Record.MapKeys). Tracing a run whose map or
// list grows at every step so costs what the steps changed, not the value's
// size at each step.
type traceValues struct {
	sorted map[string][]string // map variable → its keys, sorted
}

// show renders variable name's new value v; keys are the keys of a map the
// step changed (patched: the step holds them, Record.MapKeys).
func (tv *traceValues) show(name string, v any, keys []string, patched bool, n int) string {
	var s string
	var ok bool
	switch x := v.(type) {
	case map[string]any:
		s, ok = tv.mapPrefix(name, x, keys, patched, n)
	case []any:
		delete(tv.sorted, name)
		s, ok = listPrefix(x, n)
	case string:
		delete(tv.sorted, name)
		s, ok = stringPrefix(x, n), true
	default:
		delete(tv.sorted, name)
	}
	if !ok {
		return shorten(compactJSON(v), n)
	}
	return shorten(s, n)
}

// mapPrefix encodes m as runstore.Marshal does, stopping past n characters.
func (tv *traceValues) mapPrefix(name string, m map[string]any, keys []string, patched bool, n int) (string, bool) {
	ks, known := tv.sorted[name]
	if patched && known {
		for _, k := range keys {
			i, has := slices.BinarySearch(ks, k)
			_, in := m[k]
			switch {
			case in && !has:
				ks = slices.Insert(ks, i, k)
			case !in && has:
				ks = slices.Delete(ks, i, i+1)
			}
		}
	} else {
		ks = make([]string, 0, len(m))
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
	}
	if tv.sorted == nil {
		tv.sorted = map[string][]string{}
	}
	tv.sorted[name] = ks
	w := prefixWriter{limit: n}
	w.write("{")
	for i, k := range ks {
		if w.full() {
			return w.String(), true
		}
		if i > 0 {
			w.write(",")
		}
		if !w.value(k) {
			return "", false
		}
		w.write(":")
		if !w.value(m[k]) {
			return "", false
		}
	}
	w.write("}")
	return w.String(), true
}

// listPrefix encodes xs as runstore.Marshal does, stopping past n characters.
func listPrefix(xs []any, n int) (string, bool) {
	w := prefixWriter{limit: n}
	w.write("[")
	for i, x := range xs {
		if w.full() {
			return w.String(), true
		}
		if i > 0 {
			w.write(",")
		}
		if !w.value(x) {
			return "", false
		}
	}
	w.write("]")
	return w.String(), true
}

// stringPrefix encodes the beginning of s as runstore.Marshal does, past n
// characters when s is longer: each character of s is one or more of its
// encoding, so its first n+1 characters are enough (a transcript that grows
// at every step was encoded whole, then cut, at every step).
func stringPrefix(s string, n int) string {
	cut, runes := len(s), 0
	for i := range s { // invalid bytes one by one, as json.Marshal reads them
		if runes == n+1 {
			cut = i
			break
		}
		runes++
	}
	b, err := runstore.Marshal(s[:cut])
	if err != nil { // a string always encodes
		return compactJSON(s)
	}
	if cut < len(s) {
		b = b[:len(b)-1] // more follows: no closing quote
	}
	return string(b)
}

// prefixWriter collects the beginning of an encoding, counting characters.
type prefixWriter struct {
	b            []byte
	runes, limit int
}

func (w *prefixWriter) full() bool { return w.runes > w.limit }

func (w *prefixWriter) write(s string) {
	w.b = append(w.b, s...)
	w.runes += utf8.RuneCountInString(s)
}

// value writes v as runstore.Marshal encodes it; false when it cannot.
func (w *prefixWriter) value(v any) bool {
	b, err := runstore.Marshal(v)
	if err != nil {
		return false
	}
	w.b = append(w.b, b...)
	w.runes += utf8.RuneCount(b)
	return true
}

func (w *prefixWriter) String() string { return string(w.b) }
