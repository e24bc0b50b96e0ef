package yamlsrc

import (
	"bytes"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// yaml.v3's scanner says on which line a character cannot start a token,
// not at which column. tokenColumn finds it: the error first appears when
// the file is cut just after the offending character, so the column is the
// shortest cut of that line that fails with the same message.
func tokenColumn(src []byte, line int, msg string) (Pos, bool) {
	lines := LineIndex(src)
	if line < 1 || line > len(lines) {
		return Pos{}, false
	}
	start, end := lines[line-1][0], lines[line-1][1]
	fails := func(cut int) bool {
		dec := yaml.NewDecoder(bytes.NewReader(src[:cut]))
		for {
			var n yaml.Node
			err := dec.Decode(&n)
			if err == nil {
				continue
			}
			m := yamlLineRE.FindStringSubmatch(err.Error())
			return m != nil && m[1] == strconv.Itoa(line) && m[2] == msg
		}
	}
	if !fails(end) {
		return Pos{}, false
	}
	lo, hi := start+1, end
	for lo < hi {
		mid := (lo + hi) / 2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	// lo cuts just after the offending character: its column is the
	// number of runes before it, plus one.
	text := string(src[start:lo])
	col := len([]rune(text))
	if col < 1 || strings.TrimSpace(text) == "" {
		return Pos{}, false
	}
	return Pos{Line: line, Col: col}, true
}

// unclosedQuote finds the quoted scalar on line of src that is still open
// at the line's end (yaml.v3's "found unexpected end of stream" names the
// line it starts on): the column of its opening quote.
func unclosedQuote(src []byte, line int) (Pos, bool) {
	runes := []rune(SourceLine(src, line))
	open, quote := -1, rune(0)
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		switch {
		case quote == '"' && r == '\\':
			i++ // an escape
		case quote != 0 && r == quote:
			if quote == '\'' && i+1 < len(runes) && runes[i+1] == '\'' {
				i++ // '' in a single-quoted string
				continue
			}
			open, quote = -1, 0
		case quote == 0 && r == '#' && (i == 0 || runes[i-1] == ' '):
			return Pos{}, false // a comment
		case quote == 0 && (r == '"' || r == '\'') && opensScalar(runes[:i]):
			open, quote = i, r
		}
	}
	if open < 0 {
		return Pos{}, false
	}
	return Pos{Line: line, Col: open + 1}, true
}

// opensScalar reports whether a quote after before starts a value: at the
// line's start, or after a mapping's ": ", a list's "- ", or a flow
// collection's [ { ,.
func opensScalar(before []rune) bool {
	s := strings.TrimRight(string(before), " ")
	return s == "" || strings.HasSuffix(s, ":") || strings.HasSuffix(s, "-") ||
		strings.HasSuffix(s, "[") || strings.HasSuffix(s, "{") || strings.HasSuffix(s, ",")
}

// flowBrackets calls f with the index of each { [ } ] of runes that is
// YAML flow syntax (quoted scalars and a comment skipped), in order, until
// f returns true.
func flowBrackets(runes []rune, f func(i int) (stop bool)) {
	quote := rune(0)
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		switch {
		case quote == '"' && r == '\\':
			i++
		case quote != 0:
			if r == quote {
				if quote == '\'' && i+1 < len(runes) && runes[i+1] == '\'' {
					i++
					continue
				}
				quote = 0
			}
		case (r == '"' || r == '\'') && opensScalar(runes[:i]):
			quote = r
		case r == '#' && (i == 0 || runes[i-1] == ' '):
			return
		case (r == '{' || r == '[') && opensScalar(runes[:i]), r == '}' || r == ']':
			if f(i) {
				return
			}
		}
	}
}

// unclosedBracket returns the 1-based column of the last { or [ of a flow
// collection on line that the line does not close, or closes with the
// other kind of bracket (quotes and comments skipped), or 0.
func unclosedBracket(line string) int {
	runes := []rune(line)
	var open []int
	col := 0
	flowBrackets(runes, func(i int) bool {
		switch r := runes[i]; {
		case r == '{' || r == '[':
			open = append(open, i)
		case len(open) > 0:
			if top := runes[open[len(open)-1]]; top == '{' && r == ']' || top == '[' && r == '}' {
				col = open[len(open)-1] + 1 // closed by the other kind: this one is open
				return true
			}
			open = open[:len(open)-1]
		}
		return false
	})
	if col == 0 && len(open) > 0 {
		col = open[len(open)-1] + 1
	}
	return col
}

// strayCloser returns the column of the first } or ] of line that closes
// nothing (1-based, 0 when there is none): the flow collections opened on
// the line before it are all closed. opener is the last one opened at the
// line's top level and openedAt, closedAt the columns where it opens and
// closes (the extra closer is this one, or one that closed it too early).
// Quotes and a comment are skipped as unclosedBracket skips them.
func strayCloser(line string) (col int, opener rune, openedAt, closedAt int) {
	runes := []rune(line)
	var open []int
	flowBrackets(runes, func(i int) bool {
		switch r := runes[i]; {
		case r == '{' || r == '[':
			open = append(open, i)
		case len(open) > 0:
			if len(open) == 1 {
				opener, openedAt, closedAt = runes[open[0]], open[0]+1, i+1
			}
			open = open[:len(open)-1]
		case opener != 0 && r == map[rune]rune{'{': '}', '[': ']'}[opener]:
			col = i + 1
			return true
		}
		return false
	})
	if col == 0 {
		return 0, 0, 0, 0
	}
	return col, opener, openedAt, closedAt
}
