package replyjson

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Extract finds the JSON value in a model's reply (see Values); a
// reply holding several values that differ is an error.
func Extract(reply string) (string, error) {
	vals, err := Values(reply)
	if err != nil {
		return "", err
	}
	if len(vals) > 1 {
		return "", SeveralValues(strings.TrimSpace(reply), vals, "JSON values")
	}
	return vals[0].Text, nil
}

// Values finds the JSON values in a model's reply: the whole reply
// when it is JSON, else the JSON of each fenced block that holds JSON and
// each object in the text outside those blocks (Objects' objects: an
// object nested in another is part of it). Values that are the same are
// given once, the last of them; the rest are in the order they appear, so
// that a caller can refuse a reply that holds a quoted format example and
// then its answer, or a draft and then its answer, rather than take the
// first. Two slips a model makes often are forgiven (lenient): a raw
// control character (a line break, a tab) inside a string, and a trailing
// comma. When the reply's object does not parse, the error names the line,
// the column and what is wrong there, rather than an object nested in it
// that happens to parse; so does the error for an object that does not
// parse after the values found (see Objects: a draft, then a broken answer),
// and the error for an object giving a key twice with different values.
func Values(reply string) ([]Span, error) {
	s := strings.TrimSpace(reply)
	if s != "" && json.Valid([]byte(s)) {
		return checked(s, []Span{{Start: 0, End: len(s), Text: s}})
	}
	if fixed, ok := lenient(s); ok {
		return checked(s, []Span{{Start: 0, End: len(s), Text: fixed}})
	}
	var fenced []Span
	for at := 0; ; {
		i := strings.Index(s[at:], "```")
		if i < 0 {
			break
		}
		open := at + i + 3
		nl := strings.IndexByte(s[open:], '\n')
		if nl < 0 {
			break
		}
		bodyAt := open + nl + 1
		j := strings.Index(s[bodyAt:], "```")
		end := len(s)
		if j >= 0 {
			end = bodyAt + j
		}
		block := strings.TrimSpace(s[bodyAt:end])
		if block != "" && json.Valid([]byte(block)) {
			fenced = append(fenced, Span{Start: bodyAt, End: end, Text: block})
		} else if fixed, ok := lenient(block); ok {
			fenced = append(fenced, Span{Start: bodyAt, End: end, Text: fixed})
		}
		if j < 0 {
			break
		}
		at = end + 3
	}
	objs, err := objects(s, "")
	if err != nil && (len(fenced) == 0 || isLaterBroken(err)) {
		return nil, err
	}
	var all []Span
	for _, o := range objs {
		if !o.inside(blockStarts(fenced)) {
			all = append(all, o)
		}
	}
	all = append(all, fenced...)
	slices.SortFunc(all, func(a, b Span) int { return a.Start - b.Start })
	var out []Span
	for i, v := range all {
		dup := false
		for _, later := range all[i+1:] {
			if Same(v.Text, later.Text) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, v)
		}
	}
	return checked(s, out)
}

// checked returns the values found in s, or the error for one of them
// that gives a key twice with different values.
func checked(s string, vals []Span) ([]Span, error) {
	if err := duplicateKeys(s, vals); err != nil {
		return nil, err
	}
	return vals, nil
}

// blockStarts widens each fenced block's span by one byte before it, so that
// an object starting at the block's first byte counts as inside it.
func blockStarts(blocks []Span) []Span {
	out := make([]Span, len(blocks))
	for i, b := range blocks {
		out[i] = Span{Start: b.Start - 1, End: b.End}
	}
	return out
}

// Decode decodes JSON text with numbers kept exact (json.Number).
func Decode(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("text after the JSON value")
	}
	return v, nil
}

// pointerSegments splits a JSON pointer (RFC 6901) into its unescaped
// segments; "" is the whole document.
func PointerSegments(ptr string) ([]string, error) {
	if ptr == "" {
		return nil, nil
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("%q is not a JSON pointer: it must start with /, e.g. /summary", ptr)
	}
	parts := strings.Split(ptr[1:], "/")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

// PointerGet returns the value ptr points at in v (decoded JSON).
func PointerGet(v any, ptr string) (any, error) {
	segs, err := PointerSegments(ptr)
	if err != nil {
		return nil, err
	}
	cur := v
	for i, seg := range segs {
		at := "/" + strings.Join(segs[:i], "/")
		switch x := cur.(type) {
		case map[string]any:
			next, ok := x[seg]
			if !ok {
				return nil, &AbsentError{Depth: i, msg: fmt.Sprintf("the reply has no %s (the object at %s has %s)", ptr, at, KeyList(x))}
			}
			cur = next
		case []any:
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 || n >= len(x) {
				return nil, fmt.Errorf("the reply has no %s (the array at %s has %d items)", ptr, at, len(x))
			}
			cur = x[n]
		default:
			return nil, fmt.Errorf("the reply has no %s (%s is %s, not an object or array)", ptr, at, Describe(cur))
		}
	}
	return cur, nil
}

// AbsentError is PointerGet's error when an object lacks the key of the
// pointer's segment depth.
type AbsentError struct {
	Depth int
	msg   string
}

func (e *AbsentError) Error() string { return e.msg }

func KeyList(m map[string]any) string {
	if len(m) == 0 {
		return "no keys"
	}
	return "keys " + strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}

// Describe names a decoded JSON value's kind in JSON's terms.
func Describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "an integer"
		}
		return "a number"
	case float64:
		return "a number"
	case int:
		return "an integer"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
