package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The decoding of a tool call's JSON arguments and of its scalar values.

// decodeArgs decodes the model's arguments, keeping each number as it was
// written (json.Number): 12345678901234567890 as a float64 would reach a
// script as 12345678901234567000. A number too large for a float64 (1e400)
// is still an error, the one encoding/json gives with its place.
func decodeArgs(argsJSON string) (map[string]any, error) {
	var args map[string]any
	dec := json.NewDecoder(strings.NewReader(argsJSON))
	dec.UseNumber()
	if err := dec.Decode(&args); err != nil {
		return nil, plainDecodeErr(argsJSON, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, plainDecodeErr(argsJSON, err)
	}
	if outOfRange(args) {
		return nil, plainDecodeErr(argsJSON, nil)
	}
	return args, nil
}

// plainDecodeErr is json.Unmarshal's own error for argsJSON (its wording
// names what is wrong and where), or err when Unmarshal finds none.
func plainDecodeErr(argsJSON string, err error) error {
	var v map[string]any
	if uerr := json.Unmarshal([]byte(argsJSON), &v); uerr != nil {
		return uerr
	}
	if err == nil {
		err = errors.New("invalid JSON")
	}
	return err
}

// outOfRange reports whether v holds a number that a float64 cannot hold.
func outOfRange(v any) bool {
	switch x := v.(type) {
	case json.Number:
		_, err := x.Float64()
		return err != nil
	case map[string]any:
		for _, e := range x {
			if outOfRange(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if outOfRange(e) {
				return true
			}
		}
	}
	return false
}

// takeString removes the first present key of names from args and returns its
// string value and the remaining arguments.
func takeString(args map[string]any, names ...string) (string, map[string]any, error) {
	rest := make(map[string]any, len(args))
	for k, v := range args {
		rest[k] = v
	}
	for _, n := range names {
		v, ok := rest[n]
		if !ok {
			continue
		}
		delete(rest, n)
		s, ok := v.(string)
		if !ok {
			return "", nil, fmt.Errorf("%q must be a string", n)
		}
		return strings.TrimSpace(s), rest, nil
	}
	return "", rest, nil
}

// takeParams returns the sub-command parameters: the "params" object (also
// accepted as a JSON string holding an object), or else the remaining
// top-level keys.
func takeParams(rest map[string]any) (map[string]any, error) {
	for _, n := range []string{"params", "parameters", "arguments"} {
		v, ok := rest[n]
		if !ok {
			continue
		}
		delete(rest, n)
		if len(rest) > 0 {
			return nil, fmt.Errorf("unexpected arguments %s next to %q", quoteList(sortedKeys(rest)), n)
		}
		switch p := v.(type) {
		case nil:
			return map[string]any{}, nil
		case map[string]any:
			return p, nil
		case string:
			if strings.TrimSpace(p) == "" {
				return map[string]any{}, nil
			}
			m, err := decodeArgs(p)
			if err != nil || m == nil {
				return nil, fmt.Errorf("%q must be an object (or a JSON string holding one)", n)
			}
			return m, nil
		default:
			return nil, fmt.Errorf("%q must be an object", n)
		}
	}
	return rest, nil
}

// scalar turns a JSON scalar into its string form.
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case json.Number:
		// An integer is passed as written, every digit kept; other numbers
		// as a float64 prints them (2.0 is "2", 1e2 is "100").
		if isInteger(string(x)) {
			return string(x), true
		}
		f, err := x.Float64()
		if err != nil {
			return x.String(), true
		}
		return strconv.FormatFloat(f, 'f', -1, 64), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// isInteger reports whether s is a JSON integer: an optional "-" and digits.
func isInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
