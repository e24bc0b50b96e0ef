package spec

import (
	"errors"
	"fmt"
	"time"
)

// Format is what the text of a string parameter must look like, beyond being
// a string: validate checks a literal value, and the run checks the value of
// an expression, so that an action never receives a value it cannot read.
//
// A parameter with a format may also be written as an expression: a value
// that is not a literal of the format is read as one (`duration: 2s` is a
// literal, `duration: delay` and `duration: 'string(n) + "s"'` are
// expressions). The expression's value must then have the format; the action
// receives it as the format's canonical text.
type Format string

// The formats of parameters.
const (
	// FormatDuration is a non-negative Go duration: 250ms, 2s, 1m30s. An
	// expression may also give a duration value (duration("1s") * n).
	FormatDuration Format = "duration"
)

// ErrFormat is the cause of a value that does not have its parameter's format.
var ErrFormat = errors.New("value does not have the parameter's format")

// Describe tells what a value of the format looks like, for messages.
func (f Format) Describe() string {
	switch f {
	case FormatDuration:
		return "a duration like 500ms, 2s or 1m30s"
	}
	return string(f)
}

// Hint tells how to write a value of the format.
func (f Format) Hint() string {
	switch f {
	case FormatDuration:
		return "a duration is not negative and has a unit: ns, us, ms, s, m or h (e.g. 1m30s); an expression gives such a text or a duration, " +
			"e.g. 'string(2 * retries) + \"s\"' or 'duration(\"1s\") * retries'"
	}
	return ""
}

// Literal reports whether s is written as a value of the format (not an
// expression).
func (f Format) Literal(s string) bool {
	_, err := f.Value(s)
	return err == nil
}

// Value checks v against the format and returns its canonical form: for a
// duration, the text time.ParseDuration reads.
func (f Format) Value(v any) (string, error) {
	switch f {
	case FormatDuration:
		var d time.Duration
		switch x := v.(type) {
		case string:
			var err error
			if d, err = time.ParseDuration(x); err != nil {
				return "", fmt.Errorf("%w: %q is not %s", ErrFormat, x, f.Describe())
			}
		case time.Duration:
			d = x
		case int, float64:
			return "", fmt.Errorf("%w: %v is a number, not %s: give it a unit, e.g. %vs", ErrFormat, x, f.Describe(), x)
		default:
			return "", fmt.Errorf("%w: %s is not %s", ErrFormat, DescribeValue(v), f.Describe())
		}
		if d < 0 {
			return "", fmt.Errorf("%w: %v is negative, not %s", ErrFormat, d, f.Describe())
		}
		return d.String(), nil
	}
	return "", fmt.Errorf("unknown format %q", string(f))
}
