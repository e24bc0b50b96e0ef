package lpp

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// kind is the kind of a JSON value.
type kind int

const (
	kNull kind = iota
	kBool
	kNumber
	kString
	kArray
	kObject
)

func (k kind) String() string {
	return [...]string{"null", "a bool", "a number", "a string", "an array", "an object"}[k]
}

// node is a decoded JSON value with the position of its first character.
// Objects keep their members in file order (a blueprint's states are drawn
// and translated in the order they are written).
type node struct {
	kind    kind
	pos     mspec.Pos
	str     string // a string's decoded text; a number's source text
	b       bool
	items   []*node
	members []*member
	// runeCols holds, for a string on one line, the file column of each
	// character of str and one past its end (for positions inside a gate's
	// expression); nil when the string spans lines.
	runeCols []int
	// colBase and runes stand for runeCols when the string has no escape:
	// character i is at column colBase+i, for i < runes (a string of
	// 100 MB then costs its bytes, not 8 bytes a character).
	colBase, runes int
	off, end       int // the value's text is src[off:end]
	// py, for a number lppctl cannot carry (NaN, Infinity, -Infinity, or
	// one beyond a 64-bit float), is what Python's json reads it as: lpp
	// loads it (see nonfinite.go).
	py string
}

// member is one key of an object.
type member struct {
	key    string
	keyPos mspec.Pos
	val    *node
}

// get returns the value of key, or nil.
func (n *node) get(key string) *node {
	if n == nil {
		return nil
	}
	for _, m := range n.members {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// member returns the member named key, or nil.
func (n *node) member(key string) *member {
	if n == nil {
		return nil
	}
	for _, m := range n.members {
		if m.key == key {
			return m
		}
	}
	return nil
}

// describe names a value's kind for messages: "a number", "the string \"x\"".
func (n *node) describe() string {
	if n.py != "" {
		return n.str
	}
	if n.kind == kString {
		s := n.str
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
	return n.kind.String()
}

// colOf returns the file position of character i of a string value (i may be
// len: one past the end). A string that spans lines gives its own position.
func (n *node) colOf(i int) mspec.Pos {
	if n.kind == kString && n.colBase > 0 {
		if i < 0 || i >= n.runes {
			return n.pos
		}
		return mspec.Pos{Line: n.pos.Line, Col: n.colBase + i}
	}
	if n.kind != kString || n.runeCols == nil || i < 0 || i >= len(n.runeCols) {
		return n.pos
	}
	return mspec.Pos{Line: n.pos.Line, Col: n.runeCols[i]}
}

// value converts n to a plain Go value: nil, bool, int, float64, string,
// []any, map[string]any.
func (n *node) value() any {
	switch n.kind {
	case kBool:
		return n.b
	case kNumber:
		if n.py != "" {
			return nil // never a NaN or an infinity into a spec: see nonfinite.go
		}
		if i, err := strconv.ParseInt(n.str, 10, 64); err == nil {
			return int(i)
		}
		f, _ := strconv.ParseFloat(n.str, 64)
		return f
	case kString:
		return n.str
	case kArray:
		out := make([]any, len(n.items))
		for i, it := range n.items {
			out[i] = it.value()
		}
		return out
	case kObject:
		out := make(map[string]any, len(n.members))
		for _, m := range n.members {
			out[m.key] = m.val.value()
		}
		return out
	}
	return nil
}

// jsonError is a JSON syntax error at a position.
type jsonError struct {
	pos mspec.Pos
	msg string
	// limit: the JSON is well formed as far as read, but holds more values
	// than MaxValues.
	limit bool
}

func (e *jsonError) Error() string { return fmt.Sprintf("%d:%d: %s", e.pos.Line, e.pos.Col, e.msg) }

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

// scanner reads JSON text, counting lines and columns as lppctl's
// diagnostics do (characters, not bytes; a line ends at LF, CRLF, CR, NEL,
// LS or PS).
type scanner struct {
	src    []byte
	off    int
	line   int
	col    int
	values int // values read so far (MaxValues bounds them)
	// topSchema is the top-level object's "$schema" string, once read.
	topSchema    string
	hasTopSchema bool
	// lite: string values other than the top-level "$schema" are checked
	// but not kept (their str is ""): enough to find "$schema".
	lite, noText bool
	schemaNext   bool // the value read next is the top-level "$schema"
	// nonFinite are the numbers lppctl cannot carry (node.py), in file order.
	nonFinite []*node
	// dups are the keys an object repeats, where they repeat: the object
	// keeps the last value (as Python's json does, and so lpp) in the
	// place of the first.
	dups []member
}

// keyIndex finds an object's member by key while the object is read: a
// scan of its members while they are few, a map past that (an object of
// 50,000 keys would otherwise cost a billion comparisons).
type keyIndex map[string]*member

const keyIndexFrom = 16

func (x *keyIndex) find(n *node, key string) *member {
	if *x == nil {
		for _, m := range n.members {
			if m.key == key {
				return m
			}
		}
		return nil
	}
	return (*x)[key]
}

// add indexes n's last member, and all of them once they are many.
func (x *keyIndex) add(n *node) {
	switch {
	case *x != nil:
		m := n.members[len(n.members)-1]
		(*x)[m.key] = m
	case len(n.members) > keyIndexFrom:
		*x = make(keyIndex, 2*len(n.members))
		for _, m := range n.members {
			(*x)[m.key] = m
		}
	}
}

// scanJSON decodes one JSON value from src (RFC 8259: no comments, no
// trailing commas, nothing after the value; Python's NaN and Infinity are
// read as its json reads them), never panicking. It also returns the
// scanner (for its topSchema when the JSON holds more than MaxValues); lite
// keeps no string value but the top-level "$schema" (for finding it only).
func scanJSON(src []byte, lite bool) (*node, *scanner, error) {
	s := &scanner{src: src, line: 1, col: 1, lite: lite}
	n, err := s.document()
	return n, s, err
}

func (s *scanner) document() (*node, error) {
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

func (s *scanner) pos() mspec.Pos { return mspec.Pos{Line: s.line, Col: s.col} }

func (s *scanner) errf(format string, args ...any) error {
	return &jsonError{pos: s.pos(), msg: fmt.Sprintf(format, args...)}
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
func (s *scanner) value(depth int) (*node, error) {
	if s.values++; s.values > MaxValues {
		return nil, &jsonError{pos: s.pos(), limit: true,
			msg: fmt.Sprintf("the blueprint holds more than %d JSON values, more than lppctl reads", MaxValues)}
	}
	start := s.off
	n, err := s.value1(depth)
	if n != nil {
		n.off, n.end = start, s.off
	}
	return n, err
}

func (s *scanner) value1(depth int) (*node, error) {
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
					return &node{kind: kNull, pos: p}, nil
				default:
					return &node{kind: kBool, pos: p, b: lit == "true"}, nil
				}
			}
		}
	case c == '\'':
		return nil, s.errf("JSON strings use double quotes, not single quotes")
	}
	return nil, s.errf("unexpected %s: expected a JSON value", s.what())
}

func (s *scanner) object(depth int) (*node, error) {
	n := &node{kind: kObject, pos: s.pos()}
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
			return nil, s.errf("unexpected end of file: the object opened at %d:%d is not closed", n.pos.Line, n.pos.Col)
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
			return nil, s.errf("unexpected %s: expected ':' after the key %q", s.what(), k.str)
		}
		s.advance()
		s.space()
		s.schemaNext = depth == 0 && k.str == "$schema"
		v, err := s.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if m := seen.find(n, k.str); m != nil { // Python's json: the last value, in the first's place
			s.dups = append(s.dups, member{key: k.str, keyPos: kp})
			m.keyPos, m.val = kp, v
		} else {
			n.members = append(n.members, &member{key: k.str, keyPos: kp, val: v})
			seen.add(n)
		}
		if depth == 0 && k.str == "$schema" {
			s.topSchema, s.hasTopSchema = v.str, v.kind == kString
		}
		s.space()
		if s.off >= len(s.src) {
			return nil, s.errf("unexpected end of file: the object opened at %d:%d is not closed", n.pos.Line, n.pos.Col)
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

func (s *scanner) array(depth int) (*node, error) {
	n := &node{kind: kArray, pos: s.pos()}
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
		n.items = append(n.items, v)
		s.space()
		if s.off >= len(s.src) {
			return nil, s.errf("unexpected end of file: the array opened at %d:%d is not closed", n.pos.Line, n.pos.Col)
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

func (s *scanner) string() (*node, error) {
	n := &node{kind: kString, pos: s.pos()}
	if s.plainString(n) {
		return n, nil
	}
	s.advance() // "
	// The decoded text is at most as long as the source text up to the
	// closing quote: one allocation, not a doubling one.
	span := s.off
	for span < len(s.src) && s.src[span] != '"' {
		if s.src[span] == '\\' {
			span++
		}
		span++
	}
	var b strings.Builder
	var cols []int // 8 bytes a character: kept for strings as short as gate expressions are
	if !s.noText {
		b.Grow(min(span, len(s.src)) - s.off)
		if span-s.off <= maxColTable {
			cols = []int{}
		}
	}
	startLine := s.line
	for {
		if s.off >= len(s.src) {
			return nil, &jsonError{pos: n.pos, msg: "unexpected end of file: the string is not closed"}
		}
		c := s.src[s.off]
		switch {
		case c == '"':
			if cols != nil {
				cols = append(cols, s.col)
			}
			s.advance()
			n.str = b.String()
			if s.line == startLine && cols != nil {
				n.runeCols = cols
			}
			return n, nil
		case c == '\\':
			if cols != nil {
				cols = append(cols, s.col)
			}
			r, err := s.escape()
			if err != nil {
				return nil, err
			}
			if !s.noText {
				b.WriteRune(r)
			}
		case c < 0x20:
			return nil, s.errf("a control character (U+%04X) inside a string must be escaped (\\n, \\t, \\u00XX)", c)
		default:
			r, size := utf8.DecodeRune(s.src[s.off:])
			if r == utf8.RuneError && size <= 1 {
				return nil, s.errf("the file is not UTF-8 text: invalid byte 0x%02x", c)
			}
			if cols != nil {
				cols = append(cols, s.col)
			}
			s.advance()
			if !s.noText {
				b.WriteRune(r)
			}
		}
	}
}

// plainString reads, at the opening quote, a string with no escape, no
// control character and no line separator, valid UTF-8 (the usual case)
// in one step: its text is one copy of its bytes, its columns computed.
// It returns false, reading nothing, for any other string.
func (s *scanner) plainString(n *node) bool {
	start := s.off + 1
	j := start
	for j < len(s.src) {
		c := s.src[j]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		j++
	}
	if j >= len(s.src) || s.src[j] != '"' {
		return false
	}
	body := s.src[start:j]
	if !utf8.Valid(body) || bytes.Contains(body, []byte("\u0085")) || bytes.Contains(body, []byte("\u2028")) || bytes.Contains(body, []byte("\u2029")) {
		return false
	}
	runes := utf8.RuneCount(body)
	if !s.noText {
		n.str = string(body)
	}
	n.colBase, n.runes = s.col+1, runes+1 // the closing quote has a column too
	s.off = j + 1
	s.col += runes + 2
	return true
}

// escape reads one escape sequence (after the backslash) and returns its
// character; a surrogate pair counts as one character.
func (s *scanner) escape() (rune, error) {
	p := s.pos()
	s.advance() // backslash
	if s.off >= len(s.src) {
		return 0, &jsonError{pos: p, msg: "unexpected end of file in an escape sequence"}
	}
	c := s.src[s.off]
	if r, ok := simpleEscapes[c]; ok {
		s.advance()
		return r, nil
	}
	if c != 'u' {
		return 0, &jsonError{pos: p, msg: fmt.Sprintf("invalid escape sequence \\%s in a string", s.what())}
	}
	s.advance()
	r, ok := s.hex4()
	if !ok {
		return 0, &jsonError{pos: p, msg: "invalid \\u escape: it needs four hex digits"}
	}
	if utf16.IsSurrogate(r) && s.off+1 < len(s.src) && s.src[s.off] == '\\' && s.src[s.off+1] == 'u' {
		save := *s
		s.advance()
		s.advance()
		if r2, ok := s.hex4(); ok {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, nil
			}
		}
		*s = save
	}
	if utf16.IsSurrogate(r) {
		return utf8.RuneError, nil
	}
	return r, nil
}

var simpleEscapes = map[byte]rune{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

func (s *scanner) hex4() (rune, bool) {
	if s.off+4 > len(s.src) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s.src[s.off:s.off+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	for range 4 {
		s.advance()
	}
	return rune(v), true
}

func (s *scanner) number() (*node, error) {
	n := &node{kind: kNumber, pos: s.pos()}
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
		return nil, &jsonError{pos: n.pos, msg: "invalid number: JSON numbers have no leading zeros"}
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
	n.str = string(s.src[start:s.off])
	if f, err := strconv.ParseFloat(n.str, 64); err != nil && math.IsInf(f, 0) {
		// Python's json reads an integer as an int of any size, and a
		// number with a fraction or an exponent as a float: inf here.
		switch {
		case isIntegerText(n.str):
			n.py = fmt.Sprintf("an integer of %d digits", len(strings.TrimPrefix(n.str, "-")))
		case f < 0:
			n.py = "the float -inf"
		default:
			n.py = "the float inf"
		}
		s.nonFinite = append(s.nonFinite, n)
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
func (s *scanner) pyConstant() *node {
	for _, c := range pyConstants {
		if bytes.HasPrefix(s.src[s.off:], []byte(c.text)) {
			n := &node{kind: kNumber, pos: s.pos(), str: c.text, py: c.py}
			for range c.text {
				s.advance()
			}
			s.nonFinite = append(s.nonFinite, n)
			return n
		}
	}
	return nil
}
