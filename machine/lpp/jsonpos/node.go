package jsonpos

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/lppctl/lppctl/machine/spec"
)

// Kind is the kind of a JSON value.
type Kind int

// The kinds of JSON values.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// String names the kind for messages: "null", "a bool", "an object".
func (k Kind) String() string {
	return [...]string{"null", "a bool", "a number", "a string", "an array", "an object"}[k]
}

// Node is a decoded JSON value with the position of its first character.
// Objects keep their members in file order (a blueprint's states are drawn
// and translated in the order they are written).
type Node struct {
	Kind    Kind
	Pos     spec.Pos
	Str     string // a string's decoded text; a number's source text
	Bool    bool   // a bool's value
	Items   []*Node
	Members []*Member
	// runeCols holds, for a string on one line, the file column of each
	// character of Str and one past its end (for positions inside a gate's
	// expression); nil when the string spans lines.
	runeCols []int
	// colBase and runes stand for runeCols when the string has no escape:
	// character i is at column colBase+i, for i < runes (a string of
	// 100 MB then costs its bytes, not 8 bytes a character).
	colBase, runes int
	Off, End       int // the value's text is src[Off:End]
	// Py, for a number lppctl cannot carry (NaN, Infinity, -Infinity, or
	// one beyond a 64-bit float), is what Python's json reads it as: lpp
	// loads it (see machine/lpp's nonfinite.go).
	Py string
}

// Member is one key of an object, with the position of the key.
type Member struct {
	Key    string
	KeyPos spec.Pos
	Val    *Node
}

// Get returns the value of key, or nil.
func (n *Node) Get(key string) *Node {
	if n == nil {
		return nil
	}
	for _, m := range n.Members {
		if m.Key == key {
			return m.Val
		}
	}
	return nil
}

// Member returns the member named key, or nil.
func (n *Node) Member(key string) *Member {
	if n == nil {
		return nil
	}
	for _, m := range n.Members {
		if m.Key == key {
			return m
		}
	}
	return nil
}

// Describe names a value's kind for messages: "a number", "the string \"x\"".
func (n *Node) Describe() string {
	if n.Py != "" {
		return n.Str
	}
	if n.Kind == String {
		s := n.Str
		if len(s) > 40 && utf8.RuneCountInString(s[:min(len(s), 4*41)]) > 40 {
			cut, i := 0, 0
			for cut = range s { // the first 37 characters, without decoding the rest
				if i == 37 {
					break
				}
				i++
			}
			s = s[:cut] + "..."
		}
		return fmt.Sprintf("the string %q", s)
	}
	return n.Kind.String()
}

// ColOf returns the file position of character i of a string value (i may be
// len: one past the end). A string that spans lines gives its own position.
func (n *Node) ColOf(i int) spec.Pos {
	if n.Kind == String && n.colBase > 0 {
		if i < 0 || i >= n.runes {
			return n.Pos
		}
		return spec.Pos{Line: n.Pos.Line, Col: n.colBase + i}
	}
	if n.Kind != String || n.runeCols == nil || i < 0 || i >= len(n.runeCols) {
		return n.Pos
	}
	return spec.Pos{Line: n.Pos.Line, Col: n.runeCols[i]}
}

// Value converts n to a plain Go value: nil, bool, int, float64, string,
// []any, map[string]any.
func (n *Node) Value() any {
	switch n.Kind {
	case Bool:
		return n.Bool
	case Number:
		if n.Py != "" {
			return nil // never a NaN or an infinity into a spec: see machine/lpp's nonfinite.go
		}
		if i, err := strconv.ParseInt(n.Str, 10, 64); err == nil {
			return int(i)
		}
		f, _ := strconv.ParseFloat(n.Str, 64)
		return f
	case String:
		return n.Str
	case Array:
		out := make([]any, len(n.Items))
		for i, it := range n.Items {
			out[i] = it.Value()
		}
		return out
	case Object:
		out := make(map[string]any, len(n.Members))
		for _, m := range n.Members {
			out[m.Key] = m.Val.Value()
		}
		return out
	}
	return nil
}
