package replyjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// lenient forgives the two slips models make most in JSON: a raw line
// break, carriage return, tab or other control character inside a string
// (escaped), and a comma before a closing } or ] (dropped). It returns the
// repaired text when that is valid JSON and differs from s.
func lenient(s string) (string, bool) {
	if s == "" || s[0] != '{' && s[0] != '[' {
		return "", false
	}
	var b strings.Builder
	inString, escaped, changed := false, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			case c == '\n':
				b.WriteString(`\n`)
				changed = true
				continue
			case c == '\r':
				b.WriteString(`\r`)
				changed = true
				continue
			case c == '\t':
				b.WriteString(`\t`)
				changed = true
				continue
			case c < 0x20:
				fmt.Fprintf(&b, `\u%04x`, c)
				changed = true
				continue
			}
			b.WriteByte(c)
			continue
		}
		if c == '"' {
			inString = true
		}
		if c == ',' {
			j := i + 1
			for j < len(s) && strings.IndexByte(" \t\r\n", s[j]) >= 0 {
				j++
			}
			if j < len(s) && (s[j] == '}' || s[j] == ']') {
				changed = true
				continue
			}
		}
		b.WriteByte(c)
	}
	out := b.String()
	if !changed || !json.Valid([]byte(out)) {
		return "", false
	}
	return out, true
}

// jsonSyntaxProblem says where and why the JSON value starting at byte
// start of s does not parse: "line L, column C: what", the position in s.
func jsonSyntaxProblem(s string, start int, err error) string {
	offset := int64(len(s))
	var se *json.SyntaxError
	what := err.Error()
	switch {
	case errors.As(err, &se):
		offset = int64(start) + se.Offset - 1
		if offset < 0 {
			offset = 0
		}
		if offset >= int64(len(s)) {
			offset = int64(len(s)) - 1
		}
		prev := strings.TrimRight(s[:offset], " \t\r\n")
		switch ch := s[offset]; {
		case (ch == '}' || ch == ']') && strings.HasSuffix(prev, ","):
			what = fmt.Sprintf("a trailing comma before %q (remove the comma after the last item)", string(ch))
		case strings.Contains(what, "in string literal"):
			what = "a control character (a raw line break or tab) inside a string; write it as \\n or \\t"
		case strings.Contains(what, "after object key:value pair"), strings.Contains(what, "after array element"):
			what = fmt.Sprintf("%q where a comma or the closing bracket belongs (a missing comma?)", string(ch))
		case strings.Contains(what, "looking for beginning of object key string"):
			what = fmt.Sprintf("%q where a key in double quotes belongs (keys need double quotes)", string(ch))
		}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		what = "the JSON ends before its last object or array closes (a missing } or ], or the reply was cut)"
		offset = int64(len(s))
	}
	line, col := 1, 1
	for _, r := range s[:min(offset, int64(len(s)))] {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d: %s", line, col, what)
}

// braceEnd is the index just past the bracket that closes the one at start,
// counting brackets outside strings (len(s) when it never closes).
func braceEnd(s string, start int) int {
	depth, inString, escaped := 0, false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(s)
}

// Lenient is lenient for other packages: s with its raw control characters
// inside strings escaped and its trailing commas dropped, when that makes
// it valid JSON (ok false when s is valid already or still is not).
func Lenient(s string) (repaired string, ok bool) { return lenient(s) }
