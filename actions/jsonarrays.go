package actions

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Arrays in a reply. A schema whose top is an array asks for a JSON array,
// and a model writes it inside prose as it writes an object (`Here are the
// items: ["a", "b"]`, or the array and then a sentence holding braces).
// replyValues finds objects only in prose, so such a reply was re-asked to
// "answer with one JSON object", which no array schema takes, until the
// repairs ran out.

// wantsArray reports whether the schema takes only a JSON array at its top.
func (rs *replySchema) wantsArray() bool {
	return rs != nil && (rs.raw.Type == "array" || (len(rs.raw.Types) == 1 && rs.raw.Types[0] == "array"))
}

// replyArray is the one JSON array of the trimmed reply s that is valid
// against the schema, found in prose (an array nested in another is part of
// it, the same value twice is one). ok is false when there is none; several
// that differ are an error, as several values are.
func replyArray(s string, schema *replySchema) (text string, ok bool, err error) {
	var found []replySpan
	for i, tries := 0, 0; i < len(s) && tries < 500; i++ {
		if s[i] != '[' || (len(found) > 0 && i < found[len(found)-1].end) {
			continue
		}
		tries++
		dec := json.NewDecoder(strings.NewReader(s[i:]))
		var v json.RawMessage
		sp := replySpan{start: i}
		if dec.Decode(&v) == nil {
			sp.end, sp.text = i+int(dec.InputOffset()), string(v)
		} else if fixed, fok := lenientJSON(s[i:braceEnd(s, i)]); fok {
			sp.end, sp.text = braceEnd(s, i), fixed
		} else {
			continue
		}
		found = append(found, sp)
	}
	var valid []replySpan
	for _, sp := range found {
		d, derr := decodeJSON(sp.text)
		if derr != nil || schema.validate(d) != nil {
			continue
		}
		if !slices.ContainsFunc(valid, func(o replySpan) bool { return SameJSON(o.text, sp.text) }) {
			valid = append(valid, sp)
		}
	}
	switch len(valid) {
	case 0:
		return "", false, nil
	case 1:
		return valid[0].text, true, nil
	}
	return "", true, severalValuesOf(s, valid, "JSON arrays", "array")
}

// noArrayError is the error for a reply to an array schema that holds no
// array valid against it, in place of err (which may ask for an object).
func noArrayError(err error) error {
	if strings.Contains(err.Error(), "JSON object") {
		return fmt.Errorf("the reply holds no JSON array valid against the schema; answer with one JSON array and nothing else")
	}
	return err
}
