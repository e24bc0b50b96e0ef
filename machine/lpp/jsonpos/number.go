package jsonpos

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// number reads a JSON number; one lppctl cannot carry (beyond a 64-bit
// float) is marked (Node.Py) and listed in NonFinite.
func (s *scanner) number() (*Node, error) {
	n := &Node{Kind: Number, Pos: s.pos()}
	start := s.off
	digits := func() int {
		k := 0
		for s.off < len(s.src) && s.src[s.off] >= '0' && s.src[s.off] <= '9' {
			s.advance()
			k++
		}
		return k
	}
	if s.src[s.off] == '-' {
		s.advance()
	}
	first := s.off
	if digits() == 0 {
		return nil, s.errf("invalid number: a digit must follow '-'")
	}
	if s.src[first] == '0' && s.off-first > 1 {
		return nil, &Error{Pos: n.Pos, Msg: "invalid number: JSON numbers have no leading zeros"}
	}
	if s.off < len(s.src) && s.src[s.off] == '.' {
		s.advance()
		if digits() == 0 {
			return nil, s.errf("invalid number: a digit must follow '.'")
		}
	}
	if s.off < len(s.src) && (s.src[s.off] == 'e' || s.src[s.off] == 'E') {
		s.advance()
		if s.off < len(s.src) && (s.src[s.off] == '+' || s.src[s.off] == '-') {
			s.advance()
		}
		if digits() == 0 {
			return nil, s.errf("invalid number: a digit must follow the exponent")
		}
	}
	n.Str = string(s.src[start:s.off])
	if f, err := strconv.ParseFloat(n.Str, 64); err != nil && math.IsInf(f, 0) {
		// Python's json reads an integer as an int of any size, and a
		// number with a fraction or an exponent as a float: inf here.
		switch {
		case IsIntegerText(n.Str):
			n.Py = fmt.Sprintf("an integer of %d digits", len(strings.TrimPrefix(n.Str, "-")))
		case f < 0:
			n.Py = "the float -inf"
		default:
			n.Py = "the float inf"
		}
		s.NonFinite = append(s.NonFinite, n)
	}
	return n, nil
}

// pyConstants are the words Python's json reads as floats beyond JSON.
var pyConstants = []struct{ text, py string }{
	{"NaN", "the float nan"}, {"Infinity", "the float inf"}, {"-Infinity", "the float -inf"},
}

// pyConstant reads NaN, Infinity or -Infinity, which Python's json (and so
// lpp's loader) reads though JSON has no such value; nil, reading
// nothing, for any other text.
func (s *scanner) pyConstant() *Node {
	for _, c := range pyConstants {
		if bytes.HasPrefix(s.src[s.off:], []byte(c.text)) {
			n := &Node{Kind: Number, Pos: s.pos(), Str: c.text, Py: c.py}
			for range c.text {
				s.advance()
			}
			s.NonFinite = append(s.NonFinite, n)
			return n
		}
	}
	return nil
}

// IsIntegerText reports whether a JSON number's text is an integer (no
// fraction, no exponent).
func IsIntegerText(s string) bool {
	return !strings.ContainsAny(s, ".eE")
}
