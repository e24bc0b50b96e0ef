package replyjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Objects finds the JSON objects of a model's reply that have the key
// want (every object when want is ""), in the order they appear: the whole
// reply, a fenced block or an object inside prose, an object nested in
// another that lacks the key (e.g. {"plan": {..., "steps": [...]}}), but not
// one nested in an object already found. An object is read as
// llm.generate reads JSON (lenient): a trailing comma and a raw control
// character inside a string are forgiven; the texts returned are valid JSON.
//
// When no object has the key, the first object found is returned alone (the
// caller's check then says what it lacks). An object with the key found only
// inside an object that does not parse is a fragment of it: the error then
// names the line, the column and what is wrong in the broken one, e.g. `the
// reply's JSON does not parse: line 1, column 37: a string is not closed`,
// rather than describing the fragment. An object that looks like an
// answer (its first key quoted) after the last one found that does not
// parse — a draft, then the final answer in single quotes, with a comment,
// or cut at the token limit — is an error (*LaterBrokenError) that names
// what is wrong with it: the draft before it is never taken for the answer.
// So is an object that gives a key twice with different values
// ({"verdict": "FAIL", ..., "verdict": "PASS"}), which decoders would read
// as the last.
//
// It is the one reader of objects in a reply: the Skills Agent's plan and
// verdict parsers call it, and llm.generate through Values.
func Objects(reply, want string) ([]string, error) {
	spans, err := objects(strings.TrimSpace(reply), want)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = sp.Text
	}
	return out, nil
}

// Span is a JSON value found in a reply: s[start:end] holds it, text is
// its valid JSON (repaired by lenient when needed), err why the object
// starting at start does not parse.
type Span struct {
	Start, End int
	Text       string
	err        error
}

// inside reports whether x starts inside one of outer.
func (x Span) inside(outer []Span) bool {
	for _, o := range outer {
		if o.Start < x.Start && x.Start < o.End {
			return true
		}
	}
	return false
}

// objects is Objects on the trimmed reply s, giving where each
// object is.
func objects(s, want string) ([]Span, error) {
	if s == "" {
		return nil, errors.New("the reply is empty; answer with one JSON object")
	}
	var found, broken []Span
	for i, tries := 0, 0; i < len(s) && tries < 500; i++ {
		if s[i] != '{' {
			continue
		}
		tries++
		dec := json.NewDecoder(strings.NewReader(s[i:]))
		var v json.RawMessage
		err := dec.Decode(&v)
		if err == nil {
			found = append(found, Span{Start: i, End: i + int(dec.InputOffset()), Text: string(v)})
			continue
		}
		end := braceEnd(s, i)
		if fixed, ok := lenient(s[i:end]); ok {
			found = append(found, Span{Start: i, End: end, Text: fixed})
			continue
		}
		broken = append(broken, Span{Start: i, End: end, err: err})
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
	var whole, wanted []Span // whole: the objects not inside a broken one
	for _, f := range found {
		if f.inside(broken) {
			continue
		}
		whole = append(whole, f)
		if f.inside(wanted) {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(f.Text), &m) != nil {
			continue
		}
		if _, ok := m[want]; ok || want == "" {
			wanted = append(wanted, f)
		}
	}
	if len(wanted) > 0 {
		if err := laterBroken(s, wanted, broken, want); err != nil {
			return nil, err
		}
		if err := duplicateKeys(s, wanted); err != nil {
			return nil, err
		}
		return wanted, nil
	}
	// The broken object to report: the first that names the key, else,
	// when no object parsed whole, the first.
	var bad *Span
	for i, b := range broken {
		if want != "" && strings.Contains(s[b.Start:b.End], `"`+want+`"`) {
			bad = &broken[i]
			break
		}
	}
	if bad == nil && len(broken) > 0 && (len(whole) == 0 || want == "") {
		bad = &broken[0]
	}
	if bad != nil {
		return nil, fmt.Errorf("the reply's JSON does not parse: %s; answer with one valid JSON object and nothing else", jsonSyntaxProblem(s, bad.Start, bad.err))
	}
	if len(whole) > 0 {
		if err := laterBroken(s, whole[:1], broken, ""); err != nil {
			return nil, err
		}
		if err := duplicateKeys(s, whole[:1]); err != nil {
			return nil, err
		}
		return whole[:1], nil
	}
	return nil, errors.New("the reply holds no JSON object; answer with one JSON object and nothing else")
}

// Same reports whether two JSON texts hold the same value (key order,
// spacing and the spelling of numbers aside).
func Same(a, b string) bool {
	return canonicalJSON(a) == canonicalJSON(b)
}

func canonicalJSON(s string) string {
	v, err := Decode(s)
	if err != nil {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return s
	}
	return string(b)
}

// SeveralValues is the error for a reply holding several JSON values that
// differ (what names them, e.g. `JSON objects with "steps"`), at the given
// spans of the trimmed reply s: which one is the answer cannot be told.
func SeveralValues(s string, spans []Span, what string) error {
	return SeveralValuesOf(s, spans, what, "object")
}

// SeveralValuesOf is SeveralValues for an answer that is a JSON kind
// ("object", "array").
func SeveralValuesOf(s string, spans []Span, what, kind string) error {
	at := make([]string, len(spans))
	for i, sp := range spans {
		l, c := LineCol(s, sp.Start)
		at[i] = fmt.Sprintf("line %d, column %d", l, c)
	}
	return fmt.Errorf("the reply holds %d different %s (at %s), so which one is the answer cannot be told; answer with one JSON %s, your answer, and nothing else (no example of the format, no draft)", len(spans), what, strings.Join(at, "; "), kind)
}

// SeveralObjects is the error for a reply holding several objects with the
// key want that differ (the objects Objects gives).
func SeveralObjects(reply, want string) error {
	s := strings.TrimSpace(reply)
	spans, _ := objects(s, want)
	return SeveralValues(s, spans, fmt.Sprintf("JSON objects with %q", want))
}

// LineCol is the 1-based line and column of byte offset off of s.
func LineCol(s string, off int) (line, col int) {
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
