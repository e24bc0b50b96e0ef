package jsonpos

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/lppctl/lppctl/machine/spec"
)

// maxColTable is the longest string with escapes whose characters' columns
// are kept (runeCols): a longer one is positioned at its start.
const maxColTable = 64 << 10

// MaxValues is the most JSON values (each string, number, literal, array
// and object) a blueprint may hold: a decoded value costs about 150 bytes,
// so 15 MB of `[],` would need 2 GB. The largest of lpp's own blueprints
// holds 827.
const MaxValues = 100_000

// maxDepth bounds the nesting of arrays and objects, so that a hostile
// file is an error rather than a stack overflow.
const maxDepth = 200

// Info is what Scan finds beside the value, kept when it fails too.
type Info struct {
	// TopSchema is the top-level object's "$schema" string, once read
	// (HasTopSchema): known even when the JSON holds more than MaxValues.
	TopSchema    string
	HasTopSchema bool
	// NonFinite are the numbers lppctl cannot carry (Node.Py), in file order.
	NonFinite []*Node
	// Dups are the keys an object repeats, where they repeat: the object
	// keeps the last value (as Python's json does, and so lpp) in the
	// place of the first.
	Dups []Member
}

// scanner reads JSON text, counting lines and columns as lppctl's
// diagnostics do (characters, not bytes; a line ends at LF, CRLF, CR, NEL,
// LS or PS).
type scanner struct {
	src    []byte
	off    int
	line   int
	col    int
	values int // values read so far (MaxValues bounds them)
	// lite: string values other than the top-level "$schema" are checked
	// but not kept (their Str is ""): enough to find "$schema".
	lite, noText bool
	schemaNext   bool // the value read next is the top-level "$schema"
	Info
}

// keyIndex finds an object's member by key while the object is read: a
// scan of its members while they are few, a map past that (an object of
// 50,000 keys would otherwise cost a billion comparisons).
type keyIndex map[string]*Member

const keyIndexFrom = 16

func (x *keyIndex) find(n *Node, key string) *Member {
	if *x == nil {
		for _, m := range n.Members {
			if m.Key == key {
				return m
			}
		}
		return nil
	}
	return (*x)[key]
}

// add indexes n's last member, and all of them once they are many.
func (x *keyIndex) add(n *Node) {
	switch {
	case *x != nil:
		m := n.Members[len(n.Members)-1]
		(*x)[m.Key] = m
	case len(n.Members) > keyIndexFrom:
		*x = make(keyIndex, 2*len(n.Members))
		for _, m := range n.Members {
			(*x)[m.Key] = m
		}
	}
}

// Scan decodes one JSON value from src (RFC 8259: no comments, no trailing
// commas, nothing after the value; Python's NaN and Infinity are read as
// its json reads them), never panicking; an error is an *Error. It also
// returns what it found beside the value (Info: its TopSchema even when the
// JSON holds more than MaxValues). lite keeps no string value but the
// top-level "$schema" (for finding it only).
func Scan(src []byte, lite bool) (*Node, *Info, error) {
	s := &scanner{src: src, line: 1, col: 1, lite: lite}
	n, err := s.document()
	return n, &s.Info, err
}

func (s *scanner) document() (*Node, error) {
	src := s.src
	if len(src) >= 3 && src[0] == 0xef && src[1] == 0xbb && src[2] == 0xbf {
		s.off = 3 // a UTF-8 byte order mark
	}
	s.space()
	if s.off >= len(s.src) {
		return nil, s.errf("the file is empty: a blueprint is a JSON object")
	}
	n, err := s.value(0)
	if err != nil {
		return nil, err
	}
	s.space()
	if s.off < len(s.src) {
		return nil, s.errf("unexpected %s after the JSON value", s.what())
	}
	return n, nil
}

func (s *scanner) pos() spec.Pos { return spec.Pos{Line: s.line, Col: s.col} }

func (s *scanner) errf(format string, args ...any) error {
	return &Error{Pos: s.pos(), Msg: fmt.Sprintf(format, args...)}
}

// what names the character at the current offset for messages.
func (s *scanner) what() string {
	if s.off >= len(s.src) {
		return "end of file"
	}
	r, _ := utf8.DecodeRune(s.src[s.off:])
	if r == utf8.RuneError {
		return fmt.Sprintf("byte 0x%02x", s.src[s.off])
	}
	if r < 0x20 || r == 0x7f {
		return fmt.Sprintf("control character U+%04X", r)
	}
	return fmt.Sprintf("%q", r)
}

// advance moves past one character, keeping line and column.
func (s *scanner) advance() rune {
	r, size := utf8.DecodeRune(s.src[s.off:])
	s.off += size
	switch {
	case r == '\r' && s.off < len(s.src) && s.src[s.off] == '\n':
		s.col++ // the LF ends the line
	case r == '\n' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029:
		s.line++
		s.col = 1
	default:
		s.col++
	}
	return r
}

func (s *scanner) space() {
	for s.off < len(s.src) {
		switch s.src[s.off] {
		case ' ', '\t', '\n', '\r':
			s.advance()
		default:
			return
		}
	}
}

// value reads one value and records where its text starts and ends.
func (s *scanner) value(depth int) (*Node, error) {
	if s.values++; s.values > MaxValues {
		return nil, &Error{Pos: s.pos(), Limit: true,
			Msg: fmt.Sprintf("the blueprint holds more than %d JSON values, more than lppctl reads", MaxValues)}
	}
	start := s.off
	n, err := s.value1(depth)
	if n != nil {
		n.Off, n.End = start, s.off
	}
	return n, err
}

func (s *scanner) value1(depth int) (*Node, error) {
	if depth > maxDepth {
		return nil, s.errf("the JSON nests deeper than %d levels", maxDepth)
	}
	if s.off >= len(s.src) {
		return nil, s.errf("unexpected end of file: a value is missing")
	}
	p := s.pos()
	switch c := s.src[s.off]; {
	case c == '{':
		return s.object(depth)
	case c == '[':
		return s.array(depth)
	case c == '"':
		s.noText = s.lite && !(depth == 1 && s.schemaNext)
		n, err := s.string()
		s.noText = false
		return n, err
	case c == '-' || c >= '0' && c <= '9' || c == 'N' || c == 'I':
		if n := s.pyConstant(); n != nil {
			return n, nil
		}
		if c == '-' || c >= '0' && c <= '9' {
			return s.number()
		}
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if strings.HasPrefix(string(s.src[s.off:min(len(s.src), s.off+len(lit))]), lit) {
				for range lit {
					s.advance()
				}
				switch lit {
				case "null":
					return &Node{Kind: Null, Pos: p}, nil
				default:
					return &Node{Kind: Bool, Pos: p, Bool: lit == "true"}, nil
				}
			}
		}
	case c == '\'':
		return nil, s.errf("JSON strings use double quotes, not single quotes")
	}
	return nil, s.errf("unexpected %s: expected a JSON value", s.what())
}

func (s *scanner) object(depth int) (*Node, error) {
	n := &Node{Kind: Object, Pos: s.pos()}
	var seen keyIndex
	s.advance() // {
	s.space()
	if s.off < len(s.src) && s.src[s.off] == '}' {
		s.advance()
		return n, nil
	}
	for {
		s.space()
		if s.off >= len(s.src) {
			return nil, s.errf("unexpected end of file: the object opened at %d:%d is not closed", n.Pos.Line, n.Pos.Col)
		}
		if s.src[s.off] != '"' {
			if s.src[s.off] == '}' {
				return nil, s.errf("a trailing comma before } is not allowed in JSON")
			}
			return nil, s.errf("unexpected %s: expected a key in double quotes", s.what())
		}
		kp := s.pos()
		k, err := s.string()
		if err != nil {
			return nil, err
		}
		s.space()
		if s.off >= len(s.src) || s.src[s.off] != ':' {
			return nil, s.errf("unexpected %s: expected ':' after the key %q", s.what(), k.Str)
		}
		s.advance()
		s.space()
		s.schemaNext = depth == 0 && k.Str == "$schema"
		v, err := s.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if m := seen.find(n, k.Str); m != nil { // Python's json: the last value, in the first's place
			s.Dups = append(s.Dups, Member{Key: k.Str, KeyPos: kp})
			m.KeyPos, m.Val = kp, v
		} else {
			n.Members = append(n.Members, &Member{Key: k.Str, KeyPos: kp, Val: v})
			seen.add(n)
		}
		if depth == 0 && k.Str == "$schema" {
			s.TopSchema, s.HasTopSchema = v.Str, v.Kind == String
		}
		s.space()
		if s.off >= len(s.src) {
			return nil, s.errf("unexpected end of file: the object opened at %d:%d is not closed", n.Pos.Line, n.Pos.Col)
		}
		switch s.src[s.off] {
		case ',':
			s.advance()
		case '}':
			s.advance()
			return n, nil
		default:
			return nil, s.errf("unexpected %s: expected ',' or '}' after an object member", s.what())
		}
	}
}

func (s *scanner) array(depth int) (*Node, error) {
	n := &Node{Kind: Array, Pos: s.pos()}
	s.advance() // [
	s.space()
	if s.off < len(s.src) && s.src[s.off] == ']' {
		s.advance()
		return n, nil
	}
	for {
		s.space()
		if s.off < len(s.src) && s.src[s.off] == ']' {
			return nil, s.errf("a trailing comma before ] is not allowed in JSON")
		}
		v, err := s.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.Items = append(n.Items, v)
		s.space()
		if s.off >= len(s.src) {
			return nil, s.errf("unexpected end of file: the array opened at %d:%d is not closed", n.Pos.Line, n.Pos.Col)
		}
		switch s.src[s.off] {
		case ',':
			s.advance()
		case ']':
			s.advance()
			return n, nil
		default:
			return nil, s.errf("unexpected %s: expected ',' or ']' after an array item", s.what())
		}
	}
}
