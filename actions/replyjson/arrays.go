package replyjson

import (
	"encoding/json"

	"slices"
	"strings"
)

// Arrays in a reply. A schema whose top is an array asks for a JSON array,
// and a model writes it inside prose as it writes an object (`Here are the
// items: ["a", "b"]`, or the array and then a sentence holding braces).
// Values finds objects only in prose, so such a reply was re-asked to
// "answer with one JSON object", which no array schema takes, until the
// repairs ran out.

// Array is the one JSON array of the trimmed reply s that valid takes (the
// caller's schema check), found in prose (an array nested in another is part of
// it, the same value twice is one). ok is false when there is none; several
// that differ are an error, as several values are.
func Array(s string, valid func(v any) bool) (text string, ok bool, err error) {
	var found []Span
	for i, tries := 0, 0; i < len(s) && tries < 500; i++ {
		if s[i] != '[' || (len(found) > 0 && i < found[len(found)-1].End) {
			continue
		}
		tries++
		dec := json.NewDecoder(strings.NewReader(s[i:]))
		var v json.RawMessage
		sp := Span{Start: i}
		if dec.Decode(&v) == nil {
			sp.End, sp.Text = i+int(dec.InputOffset()), string(v)
		} else if fixed, fok := lenient(s[i:braceEnd(s, i)]); fok {
			sp.End, sp.Text = braceEnd(s, i), fixed
		} else {
			continue
		}
		found = append(found, sp)
	}
	var kept []Span
	for _, sp := range found {
		d, derr := Decode(sp.Text)
		if derr != nil || !valid(d) {
			continue
		}
		if !slices.ContainsFunc(kept, func(o Span) bool { return Same(o.Text, sp.Text) }) {
			kept = append(kept, sp)
		}
	}
	switch len(kept) {
	case 0:
		return "", false, nil
	case 1:
		return kept[0].Text, true, nil
	}
	return "", true, SeveralValuesOf(s, kept, "JSON arrays", "array")
}
