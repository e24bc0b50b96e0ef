package lpp

// The payload as a whole (`not event.payload`, `'k' in event.payload`,
// value_from "event.payload"). lppctl's event payload is a typed record of
// the fields the spec declares, which expr cannot take the length of nor
// store; lpp's is a dict. The translation writes it as a map of the
// event's declared fields, known only once every transition is
// translated: until then a token stands for it.

import (
	"regexp"
	"strconv"
	"strings"
)

// Forms of the whole payload.
const (
	wholeGuard = 'g' // in a guard: the fields the event carries (not null)
	wholeStore = 's' // stored: every declared field, null when not carried
)

// wholeToken stands for event e's whole payload until resolveWhole; it
// holds NUL, which no translated text holds (quoting escapes it).
func wholeToken(form byte, e string) string {
	return "\x00payload:" + string(form) + ":" + e + "\x00"
}

// replaceWholePayload replaces each read of event.payload as a whole in
// the expr text x (not event.payload.NAME, and not inside a string
// literal) by repl.
func replaceWholePayload(x, repl string) (string, bool) {
	const p = "event.payload"
	if !strings.Contains(x, p) {
		return x, false
	}
	var b strings.Builder
	found := false
	for i := 0; i < len(x); {
		switch c := x[i]; {
		case c == '"' || c == '\'' || c == '`': // a string literal: copied as it is
			j := i + 1
			for j < len(x) && x[j] != c {
				if x[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			j = min(j+1, len(x))
			b.WriteString(x[i:j])
			i = j
		case strings.HasPrefix(x[i:], p) && (i == 0 || !identByte(x[i-1]) && x[i-1] != '.') &&
			(i+len(p) == len(x) || !identByte(x[i+len(p)]) && !strings.ContainsRune(".?[", rune(x[i+len(p)]))):
			b.WriteString(repl)
			i += len(p)
			found = true
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), found
}

func identByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// wholePayload is event e's whole payload in form: a map of its declared
// fields (a map of any keys in a guard, which only reads it: a field the
// event does not carry is left out, so that {} is false; a map of strings
// stored, every declared field, null when not carried).
func (tr *translator) wholePayload(form byte, e string) string {
	fields := tr.fields[e]
	if len(fields) == 0 {
		return "{}"
	}
	parts := make([]string, len(fields))
	for i, f := range fields {
		if form == wholeGuard {
			parts[i] = "[" + strconv.Quote(f.k) + ", " + fieldOf("event.payload", f.k, false) + "]"
		} else {
			parts[i] = strconv.Quote(f.k) + ": " + fieldOf("event.payload", f.k, false)
		}
	}
	if form == wholeGuard {
		return "fromPairs(filter([" + strings.Join(parts, ", ") + "], #[1] != nil))"
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// resolve replaces the whole-payload tokens in s.
func (tr *translator) resolve(s string) string {
	for strings.Contains(s, "\x00payload:") {
		i := strings.Index(s, "\x00payload:")
		j := strings.IndexByte(s[i+1:], 0)
		if j < 0 {
			return s
		}
		tok := s[i+len("\x00payload:") : i+1+j]
		form, e, _ := strings.Cut(tok, ":")
		s = s[:i] + tr.wholePayload(form[0], e) + s[i+2+j:]
	}
	return s
}

// resolveWhole puts the whole payloads in place, once every field is
// declared.
func (tr *translator) resolveWhole() {
	if !tr.usesWhole {
		return
	}
	trans := func(list []sTrans) {
		for i := range list {
			list[i].when = tr.resolve(list[i].when)
			for j := range list[i].set {
				list[i].set[j].v = tr.resolve(list[i].set[j].v)
			}
		}
	}
	for _, st := range tr.states {
		for j := range st.set {
			st.set[j].v = tr.resolve(st.set[j].v)
		}
		trans(st.next)
		for _, o := range st.on {
			trans(o.list)
		}
	}
	for i := range tr.top {
		tr.top[i].t.when = tr.resolve(tr.top[i].t.when)
		for j := range tr.top[i].t.set {
			tr.top[i].t.set[j].v = tr.resolve(tr.top[i].t.set[j].v)
		}
	}
	for i := range tr.wholeGates {
		tr.wholeGates[i].Expr = tr.resolve(tr.wholeGates[i].Expr)
	}
}

// payloadIndexRE finds a payload field read with an index, as the gate
// translation writes it (`event.payload.items?.[0]`): the field's type is
// not known there, and `?.[i]` fails on a list shorter than i.
var payloadIndexRE = regexp.MustCompile(`(?:event\.payload\.|` + payloadVar + `\?\.)[A-Za-z_][A-Za-z0-9_]*\?\.\[`)

// getPayloadIndex rewrites each `FIELD?.[i]` read of a payload field into
// `get(FIELD, i)`: None out of range, as lpp's x[i] (and on a dict, the
// key's value or None).
func getPayloadIndex(x string) string {
	for {
		loc := payloadIndexRE.FindStringIndex(x)
		if loc == nil || inString(x, loc[0]) {
			return x
		}
		end := closeBracket(x, loc[1])
		if end < 0 {
			return x
		}
		field := x[loc[0] : loc[1]-len("?.[")]
		x = x[:loc[0]] + "get(" + field + ", " + x[loc[1]:end] + ")" + x[end+1:]
	}
}

// inString reports whether byte i of the expr text x is inside a string
// literal.
func inString(x string, i int) bool {
	var q byte
	for j := 0; j < i; j++ {
		switch c := x[j]; {
		case q != 0 && c == '\\' && q != '`':
			j++
		case q != 0 && c == q:
			q = 0
		case q == 0 && (c == '"' || c == '\'' || c == '`'):
			q = c
		}
	}
	return q != 0
}

// closeBracket is the index of the ] that closes the [ before i (-1: none).
func closeBracket(x string, i int) int {
	depth := 1
	var q byte
	for ; i < len(x); i++ {
		switch c := x[i]; {
		case q != 0 && c == '\\' && q != '`':
			i++
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '"' || c == '\'' || c == '`':
			q = c
		case c == '[':
			depth++
		case c == ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}
