package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The library file's format: a JSON object keyed by skill name, decoded
// leniently (fields other tools wrote are kept) and encoded as encoding/json
// would, with each skill's unknown fields carried along.

// decodeLibrary parses the library format: a JSON object keyed by skill
// name. The key wins over a missing or different "name" inside; an empty
// file or "null" is an empty library; a UTF-8 byte order mark is skipped.
// It is lenient the way files written by other tools need: fields may come
// in any order or be missing, null is the zero value, unknown fields are
// kept (see decodeSkill), and counters may be written as floats
// with no fraction (3.0, 1e2). Anything else is an error naming the line
// and column, and the skill and field when there is one.
func decodeLibrary(data []byte) (map[string]Skill, map[string]string, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	m := map[string]Skill{}
	extra := map[string]string{}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return m, extra, nil
	}
	if err := checkSyntax(data); err != nil {
		return nil, nil, err
	}
	start := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
	if data[start] != '{' {
		return nil, nil, fmt.Errorf("%s: the library must be a JSON object keyed by skill name, not %s", position(data, start), JSONKind(data[start]))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.Token() // {
	for dec.More() {
		tok, _ := dec.Token()
		name := tok.(string)
		var raw json.RawMessage
		dec.Decode(&raw)
		off := int(dec.InputOffset()) - len(raw)
		sk, more, err := decodeSkill(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: skill %q: %w", position(data, off+err.off), name, err.err)
		}
		sk.Name = name
		m[name] = sk
		if more != "" {
			extra[name] = more
		} else {
			delete(extra, name) // a repeated key: the last one wins
		}
	}
	return m, extra, nil
}

// checkSyntax reports a JSON syntax error with its line and column.
func checkSyntax(data []byte) error {
	if json.Valid(data) {
		return nil
	}
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		off := int(se.Offset)
		if off > 0 {
			off-- // Offset counts the offending byte
		}
		if se.Error() == "unexpected end of JSON input" {
			off = len(data)
		}
		return fmt.Errorf("%s: %w", position(data, off), err)
	default:
		return err
	}
}

// position renders a byte offset of data as "line L, column C" (both from 1,
// columns in bytes).
func position(data []byte, off int) string {
	off = min(max(off, 0), len(data))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// JSONKind names the kind of JSON value that starts with byte c ("an
// object", "an array", "a string", "a boolean", "null", else "a number"),
// for messages.
func JSONKind(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// fieldError is an error at an offset of a skill's JSON.
type fieldError struct {
	off int
	err error
}

// decodeSkill decodes one skill's JSON object (valid JSON) leniently (see
// decodeLibrary). Fields it does not know (other tools') come back rendered
// as they will be written after the known ones: `,\n    "key": value` each,
// in their order, values compacted, so that saving keeps them.
func decodeSkill(raw json.RawMessage) (Skill, string, *fieldError) {
	var sk Skill
	var extra []byte
	if raw[0] == 'n' { // null: a skill with nothing set
		return sk, "", nil
	}
	if raw[0] != '{' {
		return sk, "", &fieldError{0, fmt.Errorf("a skill must be a JSON object, not %s", JSONKind(raw[0]))}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	dec.Token() // {
	for dec.More() {
		tok, _ := dec.Token()
		key := tok.(string)
		var v json.RawMessage
		dec.Decode(&v)
		off := int(dec.InputOffset()) - len(v)
		var err error
		switch key {
		case "principle":
			err = decodeText(v, &sk.Principle)
		case "when_to_apply":
			err = decodeText(v, &sk.WhenToApply)
		case "created_iteration":
			err = decodeCount(v, &sk.CreatedIteration)
		case "last_used_iteration":
			err = decodeCount(v, &sk.LastUsedIteration)
		case "usage_count":
			err = decodeCount(v, &sk.UsageCount)
		case "name":
			continue // the key wins
		default:
			var b bytes.Buffer
			json.Compact(&b, v)
			extra = append(extra, ",\n    "...)
			extra = appendJSONString(extra, key)
			extra = append(extra, ": "...)
			extra = append(extra, b.Bytes()...)
			continue
		}
		if err != nil {
			return sk, "", &fieldError{off, fmt.Errorf("%s: %w", key, err)}
		}
	}
	return sk, string(extra), nil
}

func decodeText(v json.RawMessage, dst *string) error {
	switch v[0] {
	case 'n':
		*dst = ""
		return nil
	case '"':
		return json.Unmarshal(v, dst)
	}
	return fmt.Errorf("%s is %s, not a string", v, JSONKind(v[0]))
}

func decodeCount(v json.RawMessage, dst *int) error {
	switch {
	case v[0] == 'n':
		*dst = 0
		return nil
	case v[0] != '-' && (v[0] < '0' || v[0] > '9'):
		return fmt.Errorf("%s is %s, not a whole number", v, JSONKind(v[0]))
	}
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil && n == int64(int(n)) {
		*dst = int(n)
		return nil
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err == nil && f != math.Trunc(f) {
		return fmt.Errorf("%s is not a whole number", v)
	}
	if err != nil || math.Abs(f) > 1<<53 {
		return fmt.Errorf("%s is out of range", v)
	}
	*dst = int(f)
	return nil
}

// encodeLibrary renders the library: indented JSON, keys sorted, fields in
// declaration order followed by the skill's unknown fields from extra (see
// decodeSkill), no HTML escaping. It writes the bytes by hand because
// encoding/json's indentation dominated the cost of saving large libraries.
func encodeLibrary(m map[string]Skill, extra map[string]string) ([]byte, error) {
	if len(m) == 0 {
		return []byte("{}\n"), nil
	}
	names := slices.Sorted(maps.Keys(m))
	buf := make([]byte, 0, len(m)*320)
	buf = append(buf, "{\n"...)
	for i, name := range names {
		s := m[name]
		buf = append(buf, "  "...)
		buf = appendJSONString(buf, name)
		buf = append(buf, ": {\n    \"name\": "...)
		buf = appendJSONString(buf, name)
		buf = append(buf, ",\n    \"principle\": "...)
		buf = appendJSONString(buf, s.Principle)
		buf = append(buf, ",\n    \"when_to_apply\": "...)
		buf = appendJSONString(buf, s.WhenToApply)
		buf = append(buf, ",\n    \"created_iteration\": "...)
		buf = strconv.AppendInt(buf, int64(s.CreatedIteration), 10)
		buf = append(buf, ",\n    \"last_used_iteration\": "...)
		buf = strconv.AppendInt(buf, int64(s.LastUsedIteration), 10)
		buf = append(buf, ",\n    \"usage_count\": "...)
		buf = strconv.AppendInt(buf, int64(s.UsageCount), 10)
		buf = append(buf, extra[name]...)
		buf = append(buf, "\n  }"...)
		if i < len(names)-1 {
			buf = append(buf, ',')
		}
		buf = append(buf, '\n')
	}
	buf = append(buf, "}\n"...)
	return buf, nil
}

// appendJSONString appends s as a JSON string literal, escaping quotes,
// backslashes, control characters, U+2028 and U+2029, and replacing invalid
// UTF-8 with U+FFFD (as encoding/json does).
func appendJSONString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf = append(buf, '\\', c)
			case c == '\n':
				buf = append(buf, '\\', 'n')
			case c == '\r':
				buf = append(buf, '\\', 'r')
			case c == '\t':
				buf = append(buf, '\\', 't')
			case c == '\b':
				buf = append(buf, '\\', 'b')
			case c == '\f':
				buf = append(buf, '\\', 'f')
			case c < 0x20:
				buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				buf = append(buf, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			buf = append(buf, "\\ufffd"...)
		case r == '\u2028' || r == '\u2029':
			buf = append(buf, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			buf = append(buf, s[i:i+size]...)
		}
		i += size
	}
	return append(buf, '"')
}
