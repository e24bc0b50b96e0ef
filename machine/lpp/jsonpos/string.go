package jsonpos

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// string reads a JSON string at its opening quote, keeping the column of
// each of its characters when it is on one line.
func (s *scanner) string() (*Node, error) {
	n := &Node{Kind: String, Pos: s.pos()}
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
			return nil, &Error{Pos: n.Pos, Msg: "unexpected end of file: the string is not closed"}
		}
		c := s.src[s.off]
		switch {
		case c == '"':
			if cols != nil {
				cols = append(cols, s.col)
			}
			s.advance()
			n.Str = b.String()
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
func (s *scanner) plainString(n *Node) bool {
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
		n.Str = string(body)
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
		return 0, &Error{Pos: p, Msg: "unexpected end of file in an escape sequence"}
	}
	c := s.src[s.off]
	if r, ok := simpleEscapes[c]; ok {
		s.advance()
		return r, nil
	}
	if c != 'u' {
		return 0, &Error{Pos: p, Msg: fmt.Sprintf("invalid escape sequence \\%s in a string", s.what())}
	}
	s.advance()
	r, ok := s.hex4()
	if !ok {
		return 0, &Error{Pos: p, Msg: "invalid \\u escape: it needs four hex digits"}
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
