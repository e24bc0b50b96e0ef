package replyschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The schema library prints the values it reports with %v, which shows a
// JSON array or object in Go's syntax (map[ok:false ...]) and a string
// without quotes. jsonView gives it the same values as types that print
// themselves as JSON; it validates them by their kind, as before.

type (
	jsonObject map[string]any
	jsonArray  []any
	jsonString string
)

// maxShownValue is how much of a value an error message shows (in bytes of
// its JSON); the rest is cut and marked "…".
const maxShownValue = 200

func (o jsonObject) String() string { return shownJSON(o) }
func (a jsonArray) String() string  { return shownJSON(a) }
func (s jsonString) String() string { return shownJSON(string(s)) }

// shownJSON is v as compact JSON, cut at maxShownValue bytes.
func shownJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	s := string(b)
	if len(s) <= maxShownValue {
		return s
	}
	cut := maxShownValue
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// jsonView returns a decoded JSON value (maps, slices, strings, float64s,
// bools, nil) with its objects, arrays and strings as the types above.
func jsonView(v any) any {
	switch x := v.(type) {
	case map[string]any:
		o := make(jsonObject, len(x))
		for k, e := range x {
			o[k] = jsonView(e)
		}
		return o
	case []any:
		a := make(jsonArray, len(x))
		for i, e := range x {
			a[i] = jsonView(e)
		}
		return a
	case string:
		return jsonString(x)
	}
	return v
}

// typeMsgRE and typesMsgRE match the library's type mismatch (one wanted
// type, several): the value, its type, the type(s) wanted.
var (
	typeMsgRE  = regexp.MustCompile(`^type: (.*) has type "([a-z]+)", want "([a-z]+)"$`)
	typesMsgRE = regexp.MustCompile(`^type: (.*) has type "([a-z]+)", want one of "([a-z, ]+)"$`)
)

// schemaMessage writes a validation error of the library in JSON terms: a
// type mismatch says what the value is and what is wanted ("[1,2] is an
// array, want an object"). Its path ("validating /properties/x: ") is kept.
// An enum or a const it names as JSON too ("\"pass\" is not one of
// [\"PASS\",\"FAIL\"]"), reading the keyword from the schema's text; a
// failed "not" by the description of the schema it negates, when it has one.
func (rs *Schema) schemaMessage(err error) string {
	inner, outer := err, error(nil)
	for errors.Unwrap(inner) != nil {
		inner, outer = errors.Unwrap(inner), inner
	}
	msg := inner.Error()
	prefix := strings.TrimSuffix(err.Error(), msg)
	if outer != nil {
		path := strings.TrimSuffix(strings.TrimPrefix(outer.Error(), "validating "), ": "+msg)
		msg = rs.enumMessage(path, msg)
	}
	var value, got string
	var wants []string
	if m := typeMsgRE.FindStringSubmatch(msg); m != nil {
		value, got, wants = m[1], m[2], []string{aType(m[3])}
	} else if m := typesMsgRE.FindStringSubmatch(msg); m != nil {
		value, got = m[1], m[2]
		for _, t := range strings.Split(m[3], ", ") {
			wants = append(wants, aType(t))
		}
		if n := len(wants); n > 1 {
			wants = append(wants[:n-2], wants[n-2]+" or "+wants[n-1])
		}
	}
	switch {
	case wants == nil:
	case got == "null":
		msg = "type: null, want " + strings.Join(wants, ", ")
	default:
		msg = fmt.Sprintf("type: %s is %s, want %s", value, aType(got), strings.Join(wants, ", "))
	}
	return strings.TrimPrefix(prefix, "validating root: ") + msg
}

// aType is a JSON Schema type name with its article: "an array", "null".
func aType(t string) string {
	switch t {
	case "null":
		return "null"
	case "array", "object", "integer":
		return "an " + t
	}
	return "a " + t
}

// enumMessage writes the library's enum or const message of the schema at
// path ("root" or a JSON pointer from the root, as the library names it) in
// JSON; msg is returned as it is when the schema cannot be found there.
func (rs *Schema) enumMessage(path, msg string) string {
	var doc any
	if json.Unmarshal([]byte(rs.text), &doc) != nil {
		return msg
	}
	if path != "root" {
		if !strings.HasPrefix(path, "/") {
			return msg // an $id
		}
		for _, seg := range strings.Split(path[1:], "/") {
			switch x := doc.(type) {
			case map[string]any:
				doc = x[seg]
			case []any:
				i, err := strconv.Atoi(seg)
				if err != nil || i < 0 || i >= len(x) {
					return msg
				}
				doc = x[i]
			default:
				return msg
			}
		}
	}
	s, ok := doc.(map[string]any)
	if !ok {
		return msg
	}
	if enum, ok := s["enum"].([]any); ok && strings.HasPrefix(msg, "enum: ") {
		if value, ok := strings.CutSuffix(strings.TrimPrefix(msg, "enum: "), fmt.Sprintf(" does not equal any of: %v", enum)); ok {
			return fmt.Sprintf("enum: %s is not one of %s", value, shownJSON(enum))
		}
	}
	if n, ok := s["not"].(map[string]any); ok && strings.HasPrefix(msg, "not: ") {
		// The library says only "validated against <anonymous schema>": the
		// not's description says what is refused, in the schema's words.
		if d, ok := n["description"].(string); ok && strings.TrimSpace(d) != "" {
			return "not: " + d
		}
	}
	if c, ok := s["const"]; ok && strings.HasPrefix(msg, "const: ") {
		if value, ok := strings.CutSuffix(strings.TrimPrefix(msg, "const: "), fmt.Sprintf(" does not equal %v", c)); ok {
			return fmt.Sprintf("const: %s is not %s", value, shownJSON(c))
		}
	}
	return msg
}
