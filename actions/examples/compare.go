package examples

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/lppctl/lppctl/internal/textx"
)

// Bounds of the comparison of values.
const (
	exampleDefaultTol = 1e-4  // relative tolerance of a number with no tolerance given (0.01 %)
	exampleZeroTol    = 1e-9  // absolute tolerance of an expected 0 with no tolerance given
	exampleFloatNoise = 1e-12 // relative rounding of a float computation, under which an expected value's digits are not read
	ReportValue       = 160   // characters of a value shown in the report
)

// SameValue reports whether have (a run's value) matches want (an
// example's): numbers within tol (absolute; else two whole numbers only when
// equal, others within 0.01 % of the expected value but never further than
// one unit of its last written digit, 1e-9 for an expected 0), lists and
// maps item by item, anything else equal. Two whole numbers that differ
// differ by 1 at least, which is never a float's rounding, and 0.01 % of a
// large value is far more than its digits allow: a count, a day number, a
// timestamp or a sum off by one passed it (19724 for 19723, 120000.5 for
// 120007.75).
func SameValue(want, have any, tol *float64) bool {
	if w, ok := Number(want); ok {
		h, ok := Number(have)
		if !ok {
			return false
		}
		if tol != nil {
			return math.Abs(w-h) <= *tol
		}
		if wholeNumber(w) && wholeNumber(h) {
			return w == h
		}
		if w == 0 {
			return math.Abs(h) <= exampleZeroTol
		}
		return math.Abs(w-h) <= math.Min(exampleDefaultTol*math.Abs(w), lastDigitUnit(w))
	}
	switch w := want.(type) {
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return false
		}
		for i := range w {
			if !SameValue(w[i], h[i], tol) {
				return false
			}
		}
		return true
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok || len(h) != len(w) {
			return false
		}
		for k, v := range w {
			if hv, ok := h[k]; !ok || !SameValue(v, hv, tol) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(want, have)
}

// lastDigitUnit is one unit of the last digit w is written with (0.01 for
// 120007.75, 1 for 440013), but at least a float's rounding of it (w
// written as 3.6576000000000004 still matches 3.6576); +Inf past 2^53,
// where a float's digits are no longer the ones written.
func lastDigitUnit(w float64) float64 {
	if math.Abs(w) >= 1<<53 {
		return math.Inf(1)
	}
	unit := 1.0
	if s := strconv.FormatFloat(w, 'f', -1, 64); strings.Contains(s, ".") {
		unit = math.Pow(10, -float64(len(s)-strings.Index(s, ".")-1))
	}
	return math.Max(unit, exampleFloatNoise*math.Abs(w))
}

// wholeNumber reports whether f is an integer a float64 holds exactly (under
// 2^53): past that, floats are whole whatever their rounding.
func wholeNumber(f float64) bool {
	return f == math.Trunc(f) && math.Abs(f) < 1<<53
}

// Number converts a decoded number to float64.
func Number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// ShowValue is a value as JSON, on one line, clipped; floats with 10
// significant digits (3.5999999999999996 shows as 3.6).
func ShowValue(v any) string {
	b, err := json.Marshal(roundFloats(v))
	if err != nil {
		return fmt.Sprint(v)
	}
	return textx.Clip(textx.OneLine(string(b)), ReportValue)
}

// roundFloats returns v with every float rounded to 10 significant digits.
func roundFloats(v any) any {
	switch x := v.(type) {
	case float64:
		r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 10, 64), 64)
		if err != nil {
			return x
		}
		return r
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = roundFloats(x[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = roundFloats(e)
		}
		return out
	}
	return v
}

// Mismatch says what was expected and what a run gave, with their JSON
// types when those differ (the string "1.609344" and the number 1.609344
// look alike).
func Mismatch(want, have any) string {
	if w, h := JSONKind(want), JSONKind(have); w != h {
		return fmt.Sprintf("expected the %s %s, got the %s %s", w, ShowValue(want), h, ShowValue(have))
	}
	return fmt.Sprintf("expected %s, got %s", ShowValue(want), ShowValue(have))
}

// JSONKind names a decoded value's JSON type.
func JSONKind(v any) string {
	if _, ok := Number(v); ok {
		return "number"
	}
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "bool"
	case []any:
		return "list"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// fmtNum shows a number as plain digits (0.02, 100, 0.000005).
func fmtNum(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// numericString is v as a number when it is a string holding one, else v.
func numericString(v any) any {
	if s, ok := v.(string); ok {
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return f
		}
	}
	return v
}
