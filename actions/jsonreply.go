package actions

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// extractJSON finds the JSON value in a model's reply: the whole reply when
// it is JSON, else the first fenced block that is, else the JSON object
// inside prose (extractObject). Two slips a model makes often are forgiven
// (lenientJSON): a raw line break or tab inside a string, and a trailing
// comma. When the reply's first object does not parse, the error names the
// line, the column and what is wrong there, rather than an object nested in
// it that happens to parse.
func extractJSON(reply string) (string, error) {
	s := strings.TrimSpace(reply)
	if s != "" && json.Valid([]byte(s)) {
		return s, nil
	}
	if fixed, ok := lenientJSON(s); ok {
		return fixed, nil
	}
	for rest := s; ; {
		i := strings.Index(rest, "```")
		if i < 0 {
			break
		}
		rest = rest[i+3:]
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			break
		}
		body := rest[nl+1:]
		j := strings.Index(body, "```")
		if j < 0 {
			j = len(body)
		}
		if block := strings.TrimSpace(body[:j]); block != "" && json.Valid([]byte(block)) {
			return block, nil
		} else if fixed, ok := lenientJSON(block); ok {
			return fixed, nil
		}
		if j == len(body) {
			break
		}
		rest = body[j+3:]
	}
	first, last := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if first >= 0 && last > first {
		if fixed, ok := lenientJSON(s[first : last+1]); ok {
			return fixed, nil
		}
	}
	obj, err := extractObject(s)
	if err != nil {
		return "", err
	}
	if first >= 0 {
		// An object found inside a first object that does not parse is a
		// fragment of it: report the first object's error.
		var v json.RawMessage
		derr := json.NewDecoder(strings.NewReader(s[first:])).Decode(&v)
		at := strings.Index(s, obj)
		inside := at > first && at < braceEnd(s, first)
		if derr != nil && (!json.Valid([]byte(obj)) || inside) {
			return "", fmt.Errorf("the reply's JSON does not parse: %s; answer with one valid JSON object and nothing else", jsonSyntaxProblem(s, first, derr))
		}
	}
	if !json.Valid([]byte(obj)) { // extractObject's last resort: from the first { to the last }
		var v any
		err := json.Unmarshal([]byte(obj), &v)
		return "", fmt.Errorf("the reply's JSON object does not parse (%v); answer with one valid JSON object and nothing else", err)
	}
	return obj, nil
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

// extractObject finds the JSON object in a reply: the whole reply, else a
// fenced block holding an object, else the first {...} in the text that is
// a JSON object.
func extractObject(reply string) (string, error) {
	s := strings.TrimSpace(reply)
	if s == "" {
		return "", errors.New("the reply is empty; answer with one JSON object")
	}
	var cands []string
	// add records a candidate and reports whether it is an object.
	add := func(c string) bool {
		cands = append(cands, c)
		var m map[string]json.RawMessage
		return json.Unmarshal([]byte(c), &m) == nil
	}
	if strings.HasPrefix(s, "{") && json.Valid([]byte(s)) && add(s) {
		return s, nil
	}
	for rest := s; ; {
		i := strings.Index(rest, "```")
		if i < 0 {
			break
		}
		rest = rest[i+3:]
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			break
		}
		body := rest[nl+1:]
		j := strings.Index(body, "```")
		if j < 0 {
			j = len(body)
		}
		if block := strings.TrimSpace(body[:j]); strings.HasPrefix(block, "{") && json.Valid([]byte(block)) && add(block) {
			return block, nil
		}
		if j == len(body) {
			break
		}
		rest = body[j+3:]
	}
	for i, tries := 0, 0; i < len(s) && tries < 500; i++ {
		if s[i] != '{' {
			continue
		}
		tries++
		dec := json.NewDecoder(strings.NewReader(s[i:]))
		var v json.RawMessage
		if dec.Decode(&v) == nil && add(string(v)) {
			return string(v), nil
		}
	}
	if len(cands) > 0 {
		return cands[0], nil
	}
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j < i {
		return "", errors.New("the reply holds no JSON object; answer with one JSON object and nothing else")
	}
	return s[i : j+1], nil
}
