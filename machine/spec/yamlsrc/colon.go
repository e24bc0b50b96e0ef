package yamlsrc

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// plainKeyRE is a key as specs write them, then a blank and a value: the
// line `do wait` or `- to gave_up` whose colon was left out.
var plainKeyRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.-]*) +(\S.*)$`)

// missingColon finds the mistake behind a YAML error on line: a line of
// text lacks the colon after its key (`do wait`, `- to gave_up`,
// `flaky_call` alone, `with {a: 1}`) or the blank after its dash (`-to:
// b`), so YAML read it and the next line as one text, or found no key
// where one belongs. The line checked is line itself when own is true,
// then the line of text above it. It is that mistake only when the file
// with the colon (or the blank) put back reads past line: the error is
// then at the place of the missing character.
func missingColon(src []byte, line int, own bool) (Finding, bool) {
	if own {
		if f, ok := colonFix(src, line, line); ok {
			return f, true
		}
	}
	above := line - 1
	for above >= 1 {
		t := strings.TrimSpace(SourceLine(src, above))
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		above--
	}
	if above < 1 {
		return Finding{}, false
	}
	return colonFix(src, above, line)
}

// soleKeyRE is a key alone on its line, its colon left out.
var soleKeyRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// colonFix tries the fix of missingColon on line at of src, for an error
// YAML reported on line errLine.
func colonFix(src []byte, at, errLine int) (Finding, bool) {
	text := SourceLine(src, at)
	if strings.Contains(text, " #") || strings.Contains(text, "\t") {
		return Finding{}, false
	}
	indent := len(text) - len(strings.TrimLeft(text, " "))
	body := text[indent:]
	next := "the next line"
	if errLine > at {
		next = fmt.Sprintf("line %d", errLine)
	}
	var fixed string
	var f Finding
	dash := ""
	if strings.HasPrefix(body, "- ") {
		dash = "- "
	}
	switch key := body[len(dash):]; {
	case len(body) > 1 && body[0] == '-' && body[1] != ' ' && body[1] != '-':
		fixed = text[:indent] + "- " + body[1:]
		f = Finding{Line: at, Col: indent + 2, Span: 1,
			Msg:  fmt.Sprintf("invalid YAML: `%s` has no blank after its dash, so YAML reads it and %s as one text, not a list item", body, next),
			Hint: fmt.Sprintf("write `- %s`: a list item is a dash, a blank, then the item", body[1:])}
	case dash == "" && soleKeyRE.MatchString(key) && errLine == at:
		fixed = text + ":"
		f = Finding{Line: at, Col: len([]rune(text)) + 1, Span: 1,
			Msg:  fmt.Sprintf("invalid YAML: a colon is missing after %q: a key is followed by \":\"", key),
			Hint: fmt.Sprintf("write `%s:`", key)}
	default:
		m := plainKeyRE.FindStringSubmatch(key)
		if m == nil || strings.HasSuffix(key, ":") || strings.Contains(key, ": ") && !strings.ContainsAny(m[2][:1], "{[") {
			return Finding{}, false
		}
		fixed = text[:indent] + dash + m[1] + ": " + m[2]
		f = Finding{Line: at, Col: len([]rune(text[:indent]+dash+m[1])) + 1, Span: 1,
			Msg:  fmt.Sprintf("invalid YAML: a colon is missing after %q: YAML reads `%s` and %s as one text", m[1], strings.TrimSpace(text), next),
			Hint: fmt.Sprintf("write `%s%s: %s`", dash, m[1], m[2])}
		if errLine == at {
			f.Msg = fmt.Sprintf("invalid YAML: a colon is missing after %q", m[1])
		}
	}
	lines := LineIndex(src)
	var b bytes.Buffer
	b.Write(src[:lines[at-1][0]])
	b.WriteString(fixed)
	b.Write(src[lines[at-1][1]:])
	if l, failed := firstErrorLine(b.Bytes()); failed && l <= errLine {
		return Finding{}, false
	}
	return f, true
}

// firstErrorLine returns the line of the first YAML syntax error of src
// (failed false when it reads).
func firstErrorLine(src []byte) (line int, failed bool) {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if err == nil {
			continue
		}
		m := yamlLineRE.FindStringSubmatch(err.Error())
		if m == nil {
			return 0, err.Error() != "EOF"
		}
		fmt.Sscan(m[1], &line)
		return line, true
	}
}

// missingDash finds the mistake behind "did not find expected key" on a
// list item (`- {to: b}`, line): the lines above it, up to their parent
// (`next:`), are keys indented as a list item's with no `- ` starting
// their item: its first line (`- to: a`) was lost. It is that mistake only
// when the file with a `- ` put before the first of those keys reads past
// line.
func missingDash(src []byte, line int) (Finding, bool) {
	text := SourceLine(src, line)
	dash := len(text) - len(strings.TrimLeft(text, " "))
	if !strings.HasPrefix(text[dash:], "- ") {
		return Finding{}, false
	}
	first := 0 // the first key line without its dash
	for l := line - 1; l >= 1; l-- {
		t := SourceLine(src, l)
		body := strings.TrimLeft(t, " ")
		if body == "" || strings.HasPrefix(body, "#") {
			continue
		}
		indent := len(t) - len(body)
		if indent <= dash {
			if indent == dash || !strings.HasSuffix(strings.TrimSpace(body), ":") {
				return Finding{}, false
			}
			break
		}
		if indent == dash+2 {
			first = l
		}
	}
	if first == 0 {
		return Finding{}, false
	}
	t := SourceLine(src, first)
	key, _, ok := strings.Cut(strings.TrimLeft(t, " "), ":")
	if !ok || !soleKeyRE.MatchString(key) {
		return Finding{}, false
	}
	lines := LineIndex(src)
	var b bytes.Buffer
	b.Write(src[:lines[first-1][0]])
	b.WriteString(strings.Repeat(" ", dash) + "- " + strings.TrimLeft(t, " "))
	b.Write(src[lines[first-1][1]:])
	if l, failed := firstErrorLine(b.Bytes()); failed && l <= line {
		return Finding{}, false
	}
	return Finding{Line: first, Col: dash + 3, Span: len([]rune(key)),
		Msg:  fmt.Sprintf("invalid YAML: the keys from line %d are indented as a list item's, but no `- ` starts their item", first),
		Hint: fmt.Sprintf("is the item's first line (such as `- to: ...`) missing before line %d? Else start this line with `- `", first)}, true
}
