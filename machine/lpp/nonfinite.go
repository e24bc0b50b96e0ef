package lpp

import (
	"fmt"
	"strings"

	"github.com/lppctl/lppctl/machine/lpp/jsonpos"
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
func pyReads(n *jsonpos.Node) string {
	return fmt.Sprintf("%s, which Python's json (lpp's loader) reads as %s", n.Str, n.Py)
}

// insteadHint says what to write in place of n.
func insteadHint(n *jsonpos.Node) string {
	switch {
	case n.Py == "the float nan":
		return "write null (None) instead"
	case strings.HasPrefix(n.Py, "an integer"):
		return "write it as a string, or as a number within ±1.7976931348623157e308"
	}
	return "write a finite number (at most ±1.7976931348623157e308) or null instead"
}

// nonFiniteIn returns the numbers lppctl cannot carry inside v (v itself
// included) that no message has named yet, and marks them named.
func (d *decoder) nonFiniteIn(v *jsonpos.Node) []*jsonpos.Node {
	var out []*jsonpos.Node
	for _, n := range d.nonFinite {
		if n.Off >= v.Off && n.End <= v.End && !d.nfNamed[n] {
			if d.nfNamed == nil {
				d.nfNamed = map[*jsonpos.Node]bool{}
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
func (d *decoder) keptRaw(v *jsonpos.Node, what string) string {
	nf := d.nonFiniteIn(v)
	if len(nf) == 0 {
		return string(d.src[v.Off:v.End])
	}
	var b strings.Builder
	at := v.Off
	for _, n := range nf {
		b.Write(d.src[at:n.Off])
		b.WriteString("null")
		at = n.End
		d.warnf(n.Pos, len(n.Str), insteadHint(n),
			"%s holds %s: lpp does not use it, and %s: export writes null in its place", what, pyReads(n), cannotCarry)
	}
	b.Write(d.src[at:v.End])
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
			reported = reported || g.Pos == n.Pos
		}
		if !reported {
			d.warnf(n.Pos, len(n.Str), insteadHint(n), "%s: lppctl does not read this value, and %s", pyReads(n), cannotCarry)
		}
	}
}

// nonFiniteDefault warns about a default that holds a number lppctl cannot
// carry and reports whether it does: lpp ignores defaults (every property
// starts None), so the property is then given no default.
func (d *decoder) nonFiniteDefault(dv *jsonpos.Node, what string) bool {
	nf := d.nonFiniteIn(dv)
	for _, n := range nf {
		d.warnf(n.Pos, len(n.Str), insteadHint(n),
			"default of %s holds %s: %s, so the property has no default and starts None, as every property does in lpp (lpp ignores defaults)", what, pyReads(n), cannotCarry)
	}
	return len(nf) > 0
}
