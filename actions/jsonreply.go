package actions

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// extractJSON finds the JSON value in a model's reply (see replyValues); a
// reply holding several values that differ is an error.
func extractJSON(reply string) (string, error) {
	vals, err := replyValues(reply)
	if err != nil {
		return "", err
	}
	if len(vals) > 1 {
		return "", severalValues(strings.TrimSpace(reply), vals, "JSON values")
	}
	return vals[0].text, nil
}

// replyValues finds the JSON values in a model's reply: the whole reply
// when it is JSON, else the JSON of each fenced block that holds JSON and
// each object in the text outside those blocks (ReplyObjects' objects: an
// object nested in another is part of it). Values that are the same are
// given once, the last of them; the rest are in the order they appear, so
// that a caller can refuse a reply that holds a quoted format example and
// then its answer, or a draft and then its answer, rather than take the
// first. Two slips a model makes often are forgiven (lenientJSON): a raw
// control character (a line break, a tab) inside a string, and a trailing
// comma. When the reply's object does not parse, the error names the line,
// the column and what is wrong there, rather than an object nested in it
// that happens to parse.
func replyValues(reply string) ([]replySpan, error) {
	s := strings.TrimSpace(reply)
	if s != "" && json.Valid([]byte(s)) {
		return []replySpan{{start: 0, end: len(s), text: s}}, nil
	}
	if fixed, ok := lenientJSON(s); ok {
		return []replySpan{{start: 0, end: len(s), text: fixed}}, nil
	}
	var fenced []replySpan
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
			fenced = append(fenced, replySpan{start: bodyAt, end: end, text: block})
		} else if fixed, ok := lenientJSON(block); ok {
			fenced = append(fenced, replySpan{start: bodyAt, end: end, text: fixed})
		}
		if j < 0 {
			break
		}
		at = end + 3
	}
	objs, err := replyObjects(s, "")
	if err != nil && len(fenced) == 0 {
		return nil, err
	}
	var all []replySpan
	for _, o := range objs {
		if !o.inside(blockStarts(fenced)) {
			all = append(all, o)
		}
	}
	all = append(all, fenced...)
	slices.SortFunc(all, func(a, b replySpan) int { return a.start - b.start })
	var out []replySpan
	for i, v := range all {
		dup := false
		for _, later := range all[i+1:] {
			if SameJSON(v.text, later.text) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, v)
		}
	}
	return out, nil
}

// blockStarts widens each fenced block's span by one byte before it, so that
// an object starting at the block's first byte counts as inside it.
func blockStarts(blocks []replySpan) []replySpan {
	out := make([]replySpan, len(blocks))
	for i, b := range blocks {
		out[i] = replySpan{start: b.start - 1, end: b.end}
	}
	return out
}

// decodeJSON decodes JSON text with numbers kept exact (json.Number).
func decodeJSON(text string) (any, error) {
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
func pointerSegments(ptr string) ([]string, error) {
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

// pointerGet returns the value ptr points at in v (decoded JSON).
func pointerGet(v any, ptr string) (any, error) {
	segs, err := pointerSegments(ptr)
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
				return nil, &absentError{depth: i, msg: fmt.Sprintf("the reply has no %s (the object at %s has %s)", ptr, at, keyList(x))}
			}
			cur = next
		case []any:
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 || n >= len(x) {
				return nil, fmt.Errorf("the reply has no %s (the array at %s has %d items)", ptr, at, len(x))
			}
			cur = x[n]
		default:
			return nil, fmt.Errorf("the reply has no %s (%s is %s, not an object or array)", ptr, at, describeJSON(cur))
		}
	}
	return cur, nil
}

// absentError is pointerGet's error when an object lacks the key of the
// pointer's segment depth.
type absentError struct {
	depth int
	msg   string
}

func (e *absentError) Error() string { return e.msg }

func keyList(m map[string]any) string {
	if len(m) == 0 {
		return "no keys"
	}
	return "keys " + strings.Join(sortedKeys(m), ", ")
}

// describeJSON names a decoded JSON value's kind in JSON's terms.
func describeJSON(v any) string {
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
