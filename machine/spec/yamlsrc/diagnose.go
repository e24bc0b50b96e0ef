package yamlsrc

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Pos is a 1-based line and column (in characters), as yaml.v3 counts them.
type Pos struct{ Line, Col int }

// Finding is a YAML syntax error placed where the mistake is: its line,
// column and span (characters; 0: the caret alone), the message and how to
// fix it.
type Finding struct {
	Line, Col, Span int
	Msg, Hint       string
}

func finding(p Pos, span int, msg, hint string) Finding {
	return Finding{Line: p.Line, Col: p.Col, Span: span, Msg: msg, Hint: hint}
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Diagnose places a YAML syntax error from yaml.v3 (err, on src) where the
// mistake is, with a message ("invalid YAML: ...") and a hint saying how
// to fix it. yaml.v3 gives a line, often not the mistake's (the line where
// the enclosing mapping starts, or the line after a missing colon), and no
// column.
func Diagnose(err error, src []byte) Finding {
	msg := err.Error()
	p := Pos{Line: 1, Col: 1}
	splitHint := "" // how to quote a value YAML split (decode_flow.go)
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil {
			p.Line = n
		}
		msg = m[2]
		if msg == "mapping values are not allowed in this context" {
			if f, ok := missingColon(src, p.Line, false); ok {
				return f
			}
		}
		switch {
		case strings.HasPrefix(msg, "did not find expected") || msg == "could not find expected ':'":
			p = problemLine(src, p.Line, msg)
			if f, ok := missingColon(src, p.Line, true); ok {
				return f
			}
			if f, ok := missingDash(src, p.Line); ok && msg == "did not find expected key" {
				return f
			}
			if col, span, key, value := quotedThenText(SourceLine(src, p.Line)); col > 0 {
				return finding(Pos{Line: p.Line, Col: col}, span, fmt.Sprintf("invalid YAML: the value of %q ends at its closing quote, and YAML cannot read the text after it", key), quotedThenTextHint(key, value))
			} else if col, key, value := flowSecondColon(SourceLine(src, p.Line)); col > 0 && strings.HasPrefix(msg, "did not find expected ',' or") {
				return finding(Pos{Line: p.Line, Col: col}, 1, fmt.Sprintf("invalid YAML: the value of %q holds \": \", which inside { } and [ ] starts another key", key), fmt.Sprintf("quote the value: %s: %s", key, quoteWhole(value)))
			} else if col, key, value := flowSplit(SourceLine(src, p.Line)); col > 0 {
				p.Col, splitHint = col, flowSplitHint(key, value)
			} else if col := unclosedBracket(SourceLine(src, p.Line)); col > 0 && strings.HasPrefix(msg, "did not find expected ',' or") {
				opener := []rune(SourceLine(src, p.Line))[col-1]
				closer := map[rune]rune{'{': '}', '[': ']'}[opener]
				return finding(Pos{Line: p.Line, Col: col}, 1, fmt.Sprintf("invalid YAML: this %c is not closed on its line", opener), fmt.Sprintf("close it with %c where its values end; a value that holds a comma, a bracket or \": \" is quoted (when: 'hasPrefix(reply, \"x\")')", closer))
			} else if col, opener, openedAt, closedAt := strayCloser(SourceLine(src, p.Line)); col > 0 && msg == "did not find expected key" {
				closer := []rune(SourceLine(src, p.Line))[col-1]
				return finding(Pos{Line: p.Line, Col: col}, 1, fmt.Sprintf("invalid YAML: this %c closes nothing: the %c at column %d is already closed at column %d", closer, opener, openedAt, closedAt), fmt.Sprintf("remove the %c that is one too many: this one, or one before it that closes the %c too early", closer, opener))
			}
		case msg == "found character that cannot start any token":
			if at, ok := tokenColumn(src, p.Line, msg); ok {
				p = at
			}
		case msg == "found unexpected end of stream":
			if at, ok := unclosedQuote(src, p.Line); ok {
				return finding(at, 1, "invalid YAML: this quoted string is not closed: it runs to the end of the file", `end it with the quote it starts with, on this line; inside "...", write a " as \"; inside '...', write a ' as ''`)
			}
		case msg == "mapping values are not allowed in this context":
			// The colon that cannot start a value: the second ": " on the line.
			text := SourceLine(src, p.Line)
			if i := strings.Index(text, ": "); i >= 0 {
				if j := strings.Index(text[i+2:], ": "); j >= 0 {
					p.Col = len([]rune(text[:i+2+j])) + 1
				}
			}
		}
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	anchor := ""
	if m := unknownAnchorRE.FindStringSubmatch(msg); m != nil {
		anchor = m[1]
		if at, ok := aliasPos(src, anchor); ok {
			p = at
		}
	}
	// An error at the end of the file is on its last line with text.
	for p.Line > 1 && strings.TrimSpace(SourceLine(src, p.Line)) == "" {
		p = Pos{Line: p.Line - 1, Col: 1}
	}
	f := Finding{Line: p.Line, Col: p.Col, Msg: "invalid YAML: " + msg}
	line := SourceLine(src, p.Line)
	switch indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]; {
	case strings.Contains(indent, "\t"):
		f.Hint = "this line is indented with a tab; YAML allows only spaces for indentation"
	case anchor != "":
		f.Hint = fmt.Sprintf("an alias (*%s) repeats a value marked earlier in the file with the anchor &%s (key: &%s VALUE): mark it, or write the value itself", anchor, anchor, anchor)
	case splitHint != "":
		f.Hint = splitHint
	case strings.HasPrefix(msg, "did not find expected ',' or"):
		f.Hint = `inside { } and [ ], quote a value that holds a comma, brackets or ": " (when: 'hasPrefix(reply, "x")'), and close what you open`
	case msg == "found character that cannot start any token":
		f.Hint = "quote the value this character is in (when: 'n[0] > 1'): YAML reads it as its own syntax (` and @ anywhere a value starts; > and | inside { } and [ ])"
	case msg == "did not find expected '-' indicator":
		f.Hint = "a line indented like this continues a list of `- ` items: start it with `- ` if it begins a new item (is a `- to: ...` line missing above it?), or indent it as the keys of the item above"
	case msg == "did not find expected key":
		f.Hint = "check the indentation: the keys of one mapping line up, and a list item (- ) does not belong in a mapping"
	default:
		f.Hint = "check the indentation and quoting on this line (quote values that contain ': ' or start with a special character)"
	}
	return f
}

var unknownAnchorRE = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

// aliasPos returns where the alias *name first appears in src outside
// comments and quotes (yaml.v3 does not say where an unknown one is).
func aliasPos(src []byte, name string) (Pos, bool) {
	re := regexp.MustCompile(`(^|[\s\[{,:-])\*` + regexp.QuoteMeta(name) + `($|[\s\]},])`)
	for i, line := range strings.Split(string(src), "\n") {
		code := line
		if j := strings.Index(code, " #"); j >= 0 {
			code = code[:j]
		}
		if strings.HasPrefix(strings.TrimSpace(code), "#") {
			continue
		}
		if loc := re.FindStringSubmatchIndex(code); loc != nil {
			star := loc[3] // the end of the delimiter before the *
			return Pos{Line: i + 1, Col: len([]rune(code[:star])) + 1}, true
		}
	}
	return Pos{}, false
}

// problemLine finds the line of a YAML parser error. yaml.v3 reports such
// errors ("did not find expected key", "... ',' or '}'") at the line where
// the enclosing mapping or list starts, not where the problem is: the
// problem is on the last line of the shortest prefix of src (from line
// on) that fails with the same message. The column is the line's first
// character that is not a space.
func problemLine(src []byte, line int, msg string) Pos {
	lines := LineIndex(src)
	fails := func(k int) bool {
		dec := yaml.NewDecoder(bytes.NewReader(src[:lines[k-1][1]]))
		for {
			var n yaml.Node
			err := dec.Decode(&n)
			if err == nil {
				continue
			}
			m := yamlLineRE.FindStringSubmatch(err.Error())
			return m != nil && m[2] == msg
		}
	}
	lo, hi := max(line, 1), len(lines)
	if lo > hi || !fails(hi) {
		return Pos{Line: line, Col: 1}
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	text := SourceLine(src, lo)
	return Pos{Line: lo, Col: len([]rune(text)) - len([]rune(strings.TrimLeft(text, " "))) + 1}
}
