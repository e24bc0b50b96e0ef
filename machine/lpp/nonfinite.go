package lpp

import (
	"fmt"
	"strings"
)

// Numbers lppctl cannot carry. Python's json, which lpp's loader reads
// blueprints with, reads NaN, Infinity and -Infinity (not JSON), a number
// beyond a 64-bit float (1e400: inf) and an integer of any size. lppctl's
// specs, expressions and run journals hold finite 64-bit numbers only. So
// such a number is accepted, with a warning, where lpp does not use the
// value (a property's default, an enum, description, display, unknown
// keys, a terminal contract) and refused, with its position, where it
// would matter (the value of a set action a transition runs).

// cannotCarry ends every message about such a number.
const cannotCarry = "lppctl cannot carry it (its specs, expressions and run journals hold finite 64-bit numbers only)"

// pyReads names the number and what Python's json reads it as.
func pyReads(n *node) string {
	return fmt.Sprintf("%s, which Python's json (lpp's loader) reads as %s", n.str, n.py)
}

// insteadHint says what to write in place of n.
func insteadHint(n *node) string {
	switch {
	case n.py == "the float nan":
		return "write null (None) instead"
	case strings.HasPrefix(n.py, "an integer"):
		return "write it as a string, or as a number within ±1.7976931348623157e308"
	}
	return "write a finite number (at most ±1.7976931348623157e308) or null instead"
}

// nonFiniteIn returns the numbers lppctl cannot carry inside v (v itself
// included) that no message has named yet, and marks them named.
func (d *decoder) nonFiniteIn(v *node) []*node {
	var out []*node
	for _, n := range d.nonFinite {
		if n.off >= v.off && n.end <= v.end && !d.nfNamed[n] {
			if d.nfNamed == nil {
				d.nfNamed = map[*node]bool{}
			}
			d.nfNamed[n] = true
			out = append(out, n)
		}
	}
	return out
}

// keptRaw returns v's JSON text, kept for export but not used by lpp
// (description, display, unknown keys, a terminal contract, a non-string
// id), with null in the place of each number lppctl cannot carry, and
// warns about each.
func (d *decoder) keptRaw(v *node, what string) string {
	nf := d.nonFiniteIn(v)
	if len(nf) == 0 {
		return string(d.src[v.off:v.end])
	}
	var b strings.Builder
	at := v.off
	for _, n := range nf {
		b.Write(d.src[at:n.off])
		b.WriteString("null")
		at = n.end
		d.warnf(n.pos, len(n.str), insteadHint(n),
			"%s holds %s: lpp does not use it, and %s: export writes null in its place", what, pyReads(n), cannotCarry)
	}
	b.Write(d.src[at:v.end])
	return b.String()
}

// unnamedNonFinite warns about each number lppctl cannot carry that no
// message has named: it is where neither lpp nor lppctl reads a value (a
// state's metadata, an unknown key), unless an error there already says
// what is wrong.
func (d *decoder) unnamedNonFinite() {
	for _, n := range d.nonFinite {
		if d.nfNamed[n] {
			continue
		}
		reported := false
		for _, g := range d.diags {
			reported = reported || g.Pos == n.pos
		}
		if !reported {
			d.warnf(n.pos, len(n.str), insteadHint(n), "%s: lppctl does not read this value, and %s", pyReads(n), cannotCarry)
		}
	}
}

// nonFiniteDefault warns about a default that holds a number lppctl cannot
// carry and reports whether it does: lpp ignores defaults (every property
// starts None), so the property is then given no default.
func (d *decoder) nonFiniteDefault(dv *node, what string) bool {
	nf := d.nonFiniteIn(dv)
	for _, n := range nf {
		d.warnf(n.pos, len(n.str), insteadHint(n),
			"default of %s holds %s: %s, so the property has no default and starts None, as every property does in lpp (lpp ignores defaults)", what, pyReads(n), cannotCarry)
	}
	return len(nf) > 0
}
