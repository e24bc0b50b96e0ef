package yamlsrc

import (
	"fmt"
	"strings"
)

// quotedThenText finds, on a line YAML could not read, a mapping value
// that starts with a quote and goes on after its closing quote:
// `when: "PASS" == verdict`, `{when: 'a' + b == c}`. YAML reads such a
// value as the quoted text alone and then fails on what follows (at the
// line's first key, or its `{`, with a message about keys or commas). It
// returns the column of the text after the closing quote (1-based, 0 when
// there is none), how many characters follow up to the value's end, the
// key, and the whole value as written.
func quotedThenText(line string) (col, span int, key, value string) {
	runes := []rune(line)
	n := len(runes)
	for i := 0; i+2 < n; i++ {
		// a key's ": " followed by a quote
		if runes[i] != ':' || runes[i+1] != ' ' {
			continue
		}
		j := i + 1
		for j < n && runes[j] == ' ' {
			j++
		}
		if j >= n || runes[j] != '"' && runes[j] != '\'' {
			continue
		}
		end := closingQuote(runes, j)
		if end < 0 {
			return 0, 0, "", "" // not closed on the line: another error
		}
		k := end + 1
		for k < n && runes[k] == ' ' {
			k++
		}
		if k == n || strings.ContainsRune(",}]#", runes[k]) || k == end+1 && runes[k] == ':' {
			i = end // a value that is the quoted text alone (or a quoted key)
			continue
		}
		value := strings.TrimRight(string(runes[j:flowValueEnd(runes, k, inFlow(runes[:i]))]), " ")
		return k + 1, j + len([]rune(value)) - k, keyBefore(runes, i), value
	}
	return 0, 0, "", ""
}

// closingQuote returns the index of the quote that closes the one at
// start, or -1: inside "...", a quote after a backslash is escaped;
// inside '...', a quote written twice is.
func closingQuote(runes []rune, start int) int {
	q := runes[start]
	for i := start + 1; i < len(runes); i++ {
		switch {
		case q == '"' && runes[i] == '\\':
			i++
		case runes[i] == q && q == '\'' && i+1 < len(runes) && runes[i+1] == '\'':
			i++
		case runes[i] == q:
			return i
		}
	}
	return -1
}

// inFlow reports whether a { or [ is open in before (quotes skipped).
func inFlow(before []rune) bool {
	depth := 0
	for i := 0; i < len(before); i++ {
		switch before[i] {
		case '"', '\'':
			if e := closingQuote(before, i); e >= 0 {
				i = e
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
	}
	return depth > 0
}

// flowValueEnd returns where the value that goes on at from ends: the end
// of the line (before a comment), or, inside { } or [ ], the first , } or ]
// outside quotes and brackets the value opens.
func flowValueEnd(runes []rune, from int, flow bool) int {
	depth := 0
	for i := from; i < len(runes); i++ {
		switch r := runes[i]; {
		case r == '"' || r == '\'':
			if e := closingQuote(runes, i); e >= 0 {
				i = e
			}
		case r == '#' && runes[i-1] == ' ':
			return i
		case r == '(' || r == '[' || r == '{':
			depth++
		case (r == ')' || r == ']' || r == '}') && depth > 0:
			depth--
		case flow && depth == 0 && (r == ',' || r == '}' || r == ']'):
			return i
		}
	}
	return len(runes)
}

// keyBefore returns the plain key that ends at the colon at i.
func keyBefore(runes []rune, i int) string {
	s := i
	for s > 0 && !strings.ContainsRune(" {[,", runes[s-1]) {
		s--
	}
	return string(runes[s:i])
}

// quoteWhole writes value as one YAML scalar: in single quotes when it
// holds none (an expression's strings are in double quotes), else in
// double quotes.
func quoteWhole(value string) string {
	if !strings.Contains(value, "'") {
		return "'" + value + "'"
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(value) + `"`
}

// quotedThenTextHint says how to write the value whole. When the quoted
// part is itself an expression (it holds spaces or operators: the quotes
// are YAML's, `'a ? b : c' + 1`), moving the rest inside them is the other
// reading.
func quotedThenTextHint(key, value string) string {
	hint := fmt.Sprintf("quote the whole value: %s: %s (a value that starts with a quote ends at its closing quote)", key, quoteWhole(value))
	runes := []rune(value)
	end := closingQuote(runes, 0)
	if end < 0 {
		return hint
	}
	inner, rest := string(runes[1:end]), strings.TrimSpace(string(runes[end+1:]))
	if !strings.ContainsAny(inner, " ()+-*/=<>!&|?:") {
		return hint
	}
	q := string(runes[0])
	if q == "'" {
		rest = strings.ReplaceAll(rest, "'", "''")
	} else {
		rest = strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(rest)
	}
	return hint + fmt.Sprintf("; or, if the quotes are YAML's around an expression, end them after all of it: %s: %s(%s) %s%s", key, q, inner, rest, q)
}

// flowSecondColon finds, inside { } on a line YAML could not read, a plain
// value that holds ": " (`{when: ok ? 1 : 2}`, `{message: upstream: 503}`):
// in a flow mapping YAML reads it as a second key. It returns the column
// of that colon (1-based, 0 when there is none), the key, and the value as
// written, up to the entry's end.
func flowSecondColon(line string) (col int, key, value string) {
	runes := []rune(line)
	for i := 0; i+1 < len(runes); i++ {
		if runes[i] != ':' || runes[i+1] != ' ' || !inFlow(runes[:i]) {
			continue
		}
		j := i + 1
		for j < len(runes) && runes[j] == ' ' {
			j++
		}
		if j == len(runes) || strings.ContainsRune("\"'{[", runes[j]) {
			continue // a quoted or nested value: other checks
		}
		end := flowValueEnd(runes, j, true)
		for k := j; k+1 < end; k++ {
			if runes[k] == ':' && runes[k+1] == ' ' {
				return k + 1, keyBefore(runes, i), strings.TrimRight(string(runes[j:end]), " ")
			}
		}
		i = end - 1
	}
	return 0, "", ""
}
