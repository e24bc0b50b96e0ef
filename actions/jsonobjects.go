package actions

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ReplyObjects finds the JSON objects of a model's reply that have the key
// want (every object when want is ""), in the order they appear: the whole
// reply, a fenced block or an object inside prose, an object nested in
// another that lacks the key (e.g. {"plan": {..., "steps": [...]}}), but not
// one nested in an object already found. An object is read as
// llm.generate reads JSON (lenientJSON): a trailing comma and a raw control
// character inside a string are forgiven; the texts returned are valid JSON.
//
// When no object has the key, the first object found is returned alone (the
// caller's check then says what it lacks). An object with the key found only
// inside an object that does not parse is a fragment of it: the error then
// names the line, the column and what is wrong in the broken one, e.g. `the
// reply's JSON does not parse: line 1, column 37: a string is not closed`,
// rather than describing the fragment.
//
// It is the one reader of objects in a reply: the Skills Agent's plan and
// verdict parsers call it, and llm.generate through replyValues.
func ReplyObjects(reply, want string) ([]string, error) {
	spans, err := replyObjects(strings.TrimSpace(reply), want)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = sp.text
	}
	return out, nil
}

// replySpan is a JSON value found in a reply: s[start:end] holds it, text is
// its valid JSON (repaired by lenientJSON when needed), err why the object
// starting at start does not parse.
type replySpan struct {
	start, end int
	text       string
	err        error
}

// inside reports whether x starts inside one of outer.
func (x replySpan) inside(outer []replySpan) bool {
	for _, o := range outer {
		if o.start < x.start && x.start < o.end {
			return true
		}
	}
	return false
}

// replyObjects is ReplyObjects on the trimmed reply s, giving where each
// object is.
func replyObjects(s, want string) ([]replySpan, error) {
	if s == "" {
		return nil, errors.New("the reply is empty; answer with one JSON object")
	}
	var found, broken []replySpan
	for i, tries := 0, 0; i < len(s) && tries < 500; i++ {
		if s[i] != '{' {
			continue
		}
		tries++
		dec := json.NewDecoder(strings.NewReader(s[i:]))
		var v json.RawMessage
		err := dec.Decode(&v)
		if err == nil {
			found = append(found, replySpan{start: i, end: i + int(dec.InputOffset()), text: string(v)})
			continue
		}
		end := braceEnd(s, i)
		if fixed, ok := lenientJSON(s[i:end]); ok {
			found = append(found, replySpan{start: i, end: end, text: fixed})
			continue
		}
		broken = append(broken, replySpan{start: i, end: end, err: err})
	}
	// A { that does not parse inside an object that does is in one of its
	// strings: not an object of the reply.
	kept := broken[:0]
	for _, b := range broken {
		if !b.inside(found) {
			kept = append(kept, b)
		}
	}
	broken = kept
	var whole, wanted []replySpan // whole: the objects not inside a broken one
	for _, f := range found {
		if f.inside(broken) {
			continue
		}
		whole = append(whole, f)
		if f.inside(wanted) {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(f.text), &m) != nil {
			continue
		}
		if _, ok := m[want]; ok || want == "" {
			wanted = append(wanted, f)
		}
	}
	if len(wanted) > 0 {
		return wanted, nil
	}
	// The broken object to report: the first that names the key, else,
	// when no object parsed whole, the first.
	var bad *replySpan
	for i, b := range broken {
		if want != "" && strings.Contains(s[b.start:b.end], `"`+want+`"`) {
			bad = &broken[i]
			break
		}
	}
	if bad == nil && len(broken) > 0 && (len(whole) == 0 || want == "") {
		bad = &broken[0]
	}
	if bad != nil {
		return nil, fmt.Errorf("the reply's JSON does not parse: %s; answer with one valid JSON object and nothing else", jsonSyntaxProblem(s, bad.start, bad.err))
	}
	if len(whole) > 0 {
		return whole[:1], nil
	}
	return nil, errors.New("the reply holds no JSON object; answer with one JSON object and nothing else")
}

// SameJSON reports whether two JSON texts hold the same value (key order,
// spacing and the spelling of numbers aside).
func SameJSON(a, b string) bool {
	return canonicalJSON(a) == canonicalJSON(b)
}

func canonicalJSON(s string) string {
	v, err := decodeJSON(s)
	if err != nil {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return s
	}
	return string(b)
}

// severalValues is the error for a reply holding several JSON values that
// differ (what names them, e.g. `JSON objects with "steps"`), at the given
// spans of the trimmed reply s: which one is the answer cannot be told.
func severalValues(s string, spans []replySpan, what string) error {
	return severalValuesOf(s, spans, what, "object")
}

// severalValuesOf is severalValues for an answer that is a JSON kind
// ("object", "array").
func severalValuesOf(s string, spans []replySpan, what, kind string) error {
	at := make([]string, len(spans))
	for i, sp := range spans {
		l, c := lineCol(s, sp.start)
		at[i] = fmt.Sprintf("line %d, column %d", l, c)
	}
	return fmt.Errorf("the reply holds %d different %s (at %s), so which one is the answer cannot be told; answer with one JSON %s, your answer, and nothing else (no example of the format, no draft)", len(spans), what, strings.Join(at, "; "), kind)
}

// SeveralObjects is the error for a reply holding several objects with the
// key want that differ (the objects ReplyObjects gives).
func SeveralObjects(reply, want string) error {
	s := strings.TrimSpace(reply)
	spans, _ := replyObjects(s, want)
	return severalValues(s, spans, fmt.Sprintf("JSON objects with %q", want))
}

// lineCol is the 1-based line and column of byte offset off of s.
func lineCol(s string, off int) (line, col int) {
	line, col = 1, 1
	for _, r := range s[:min(max(off, 0), len(s))] {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
