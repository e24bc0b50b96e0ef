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
// llm.generate reads JSON (lenientJSON): a trailing comma and a raw line
// break or tab inside a string are forgiven; the texts returned are valid
// JSON.
//
// When no object has the key, the first object found is returned alone (the
// caller's check then says what it lacks). An object with the key found only
// inside an object that does not parse is a fragment of it: the error then
// names the line, the column and what is wrong in the broken one, e.g. `the
// reply's JSON does not parse: line 1, column 37: a string is not closed`,
// rather than describing the fragment.
func ReplyObjects(reply, want string) ([]string, error) {
	s := strings.TrimSpace(reply)
	if s == "" {
		return nil, errors.New("the reply is empty; answer with one JSON object")
	}
	type span struct {
		start, end int
		text       string
		err        error // why the object starting at start does not parse
	}
	var found, broken []span
	for i, tries := 0, 0; i < len(s) && tries < 500; i++ {
		if s[i] != '{' {
			continue
		}
		tries++
		dec := json.NewDecoder(strings.NewReader(s[i:]))
		var v json.RawMessage
		err := dec.Decode(&v)
		if err == nil {
			found = append(found, span{start: i, end: i + int(dec.InputOffset()), text: string(v)})
			continue
		}
		end := braceEnd(s, i)
		if fixed, ok := lenientJSON(s[i:end]); ok {
			found = append(found, span{start: i, end: end, text: fixed})
			continue
		}
		broken = append(broken, span{start: i, end: end, err: err})
	}
	within := func(x span, outer []span) bool {
		for _, o := range outer {
			if o.start < x.start && x.start < o.end {
				return true
			}
		}
		return false
	}
	// A { that does not parse inside an object that does is in one of its
	// strings: not an object of the reply.
	kept := broken[:0]
	for _, b := range broken {
		if !within(b, found) {
			kept = append(kept, b)
		}
	}
	broken = kept
	var whole, wanted []span // whole: the objects not inside a broken one
	for _, f := range found {
		if within(f, broken) {
			continue
		}
		whole = append(whole, f)
		if within(f, wanted) {
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
		out := make([]string, len(wanted))
		for i, w := range wanted {
			out[i] = w.text
		}
		return out, nil
	}
	// The broken object to report: the first that names the key, else,
	// when no object parsed whole, the first.
	var bad *span
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
		return []string{whole[0].text}, nil
	}
	return nil, errors.New("the reply holds no JSON object; answer with one JSON object and nothing else")
}
