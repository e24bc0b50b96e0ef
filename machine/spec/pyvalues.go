package spec

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Python's values, as an imported L++ gate sees them (docs/lpp.md, "The
// gate language"): None is nil, a bool is an int for arithmetic and
// comparisons (True == 1), int and float compare exactly, a list is []any,
// a dict map[string]any. This file holds what the gate functions
// (pyfuncs.go) share: reading numbers, str(), ==, and the orderings.

// errPyType is a Python TypeError: the gate that meets it is false.
var errPyType = errors.New("TypeError")

// errPyValue is a Python ValueError (int("abc"), min([])) or another
// failure of the evaluation (division by zero, an int out of range).
var errPyValue = errors.New("ValueError")

func pyTypeErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errPyType, fmt.Sprintf(format, args...))
}

func pyValueErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errPyValue, fmt.Sprintf(format, args...))
}

// pyNumber is a Python number: an int (bools included) or a float.
type pyNumber struct {
	i     int
	f     float64
	isInt bool
}

// pyNum reads v as a Python number (ok false: not a number).
func pyNum(v any) (pyNumber, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return pyNumber{i: 1, isInt: true}, true
		}
		return pyNumber{isInt: true}, true
	case int:
		return pyNumber{i: x, isInt: true}, true
	case float64:
		return pyNumber{f: x}, true
	case float32:
		return pyNumber{f: float64(x)}, true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return pyNumber{i: int(rv.Int()), isInt: true}, true
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint:
		if rv.Uint() > math.MaxInt64 {
			return pyNumber{f: float64(rv.Uint())}, true
		}
		return pyNumber{i: int(rv.Uint()), isInt: true}, true
	}
	return pyNumber{}, false
}

func (n pyNumber) float() float64 {
	if n.isInt {
		return float64(n.i)
	}
	return n.f
}

// value is n as an expr value (int or float64).
func (n pyNumber) value() any {
	if n.isInt {
		return n.i
	}
	return n.f
}

// pyNumCmp compares two numbers exactly, as Python compares an int with a
// float: -1, 0, 1, or ok false when a NaN takes part (every ordering and ==
// are then false).
func pyNumCmp(a, b pyNumber) (int, bool) {
	if a.isInt && b.isInt {
		return cmp.Compare(a.i, b.i), true
	}
	if !a.isInt && math.IsNaN(a.f) || !b.isInt && math.IsNaN(b.f) {
		return 0, false
	}
	if !a.isInt && !b.isInt {
		return cmpFloat(a.f, b.f), true
	}
	ra, rb := exactRat(a), exactRat(b)
	if ra == nil || rb == nil { // an infinity
		return cmpFloat(a.float(), b.float()), true
	}
	return ra.Cmp(rb), true
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// exactRat is n's exact value (nil for an infinity).
func exactRat(n pyNumber) *big.Rat {
	if n.isInt {
		return new(big.Rat).SetInt64(int64(n.i))
	}
	if math.IsInf(n.f, 0) {
		return nil
	}
	return new(big.Rat).SetFloat64(n.f)
}

// pyList reads v as a Python list ([]any or another slice).
func pyList(v any) ([]any, bool) {
	if l, ok := v.([]any); ok {
		return l, true
	}
	rv := reflect.ValueOf(v)
	if v == nil || rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, false
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, true
}

// pyDict reads v as a Python dict with string keys.
func pyDict(v any) (map[string]any, bool) {
	if m, ok := v.(map[string]any); ok {
		return m, true
	}
	rv := reflect.ValueOf(v)
	if v == nil || rv.Kind() != reflect.Map {
		return nil, false
	}
	out := make(map[string]any, rv.Len())
	for it := rv.MapRange(); it.Next(); {
		out[fmt.Sprint(it.Key().Interface())] = it.Value().Interface()
	}
	return out, true
}

// pyTypeName is Python's name of v's type, for messages.
func pyTypeName(v any) string {
	if v == nil {
		return "NoneType"
	}
	if _, ok := v.(bool); ok {
		return "bool"
	}
	if n, ok := pyNum(v); ok {
		return map[bool]string{true: "int", false: "float"}[n.isInt]
	}
	if _, ok := v.(string); ok {
		return "str"
	}
	if _, ok := pyList(v); ok {
		return "list"
	}
	if _, ok := pyDict(v); ok {
		return "dict"
	}
	return reflect.TypeOf(v).String()
}

// pyStr is Python's str(v).
func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pyRepr(v)
}

// pyRepr is Python's repr(v). A dict's keys come in sorted order (Python
// keeps the order they were written in, which the value no longer knows).
func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		return map[bool]string{true: "True", false: "False"}[x]
	case string:
		return pyReprString(x)
	}
	if n, ok := pyNum(v); ok {
		if n.isInt {
			return strconv.Itoa(n.i)
		}
		return pyReprFloat(n.f)
	}
	if l, ok := pyList(v); ok {
		parts := make([]string, len(l))
		for i, e := range l {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	if m, ok := pyDict(v); ok {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = pyReprString(k) + ": " + pyRepr(m[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// pyReprFloat is Python's repr of a float: the shortest digits that read
// back as f, positional from 1e-4 up to 1e16, else with an exponent of at
// least two digits (1e+16, 1.5e-05); an integral value ends in ".0".
func pyReprFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±XX
	sign := ""
	if e[0] == '-' {
		sign, e = "-", e[1:]
	}
	mant, exp, _ := strings.Cut(e, "e")
	x, _ := strconv.Atoi(exp)
	digits := strings.Replace(mant, ".", "", 1)
	decpt := x + 1 // f = 0.digits × 10^decpt
	if decpt <= -4 || decpt > 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := "+"
		if x < 0 {
			es, x = "-", -x
		}
		return fmt.Sprintf("%s%se%s%02d", sign, m, es, x)
	}
	switch {
	case decpt <= 0:
		return sign + "0." + strings.Repeat("0", -decpt) + digits
	case decpt >= len(digits):
		return sign + digits + strings.Repeat("0", decpt-len(digits)) + ".0"
	}
	return sign + digits[:decpt] + "." + digits[decpt:]
}

// pyReprString is Python's repr of a string: single quotes unless the
// string holds a ' and no ", with \\, \n, \r, \t and the quote escaped, and
// characters that do not print as \xNN, \uNNNN or \UNNNNNNNN.
func pyReprString(s string) string {
	q := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteRune(q)
	for _, r := range s {
		switch {
		case r == q || r == '\\':
			b.WriteRune('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == utf8.RuneError || !unicode.IsPrint(r) && r != ' ':
			if r <= 0xff {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else if r <= 0xffff {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteRune(q)
	return b.String()
}

// pyEq is Python's a == b (None equals only None; True == 1 == 1.0).
func pyEq(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if x, ok := pyNum(a); ok {
		y, ok := pyNum(b)
		if !ok {
			return false
		}
		c, ok := pyNumCmp(x, y)
		return ok && c == 0
	}
	if x, ok := a.(string); ok {
		y, ok := b.(string)
		return ok && x == y
	}
	if x, ok := pyList(a); ok {
		y, ok := pyList(b)
		return ok && len(x) == len(y) && slices.EqualFunc(x, y, pyEq)
	}
	if x, ok := pyDict(a); ok {
		y, ok := pyDict(b)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !pyEq(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// pyCompare is Python's a op b for op one of < <= > >=: numbers with
// numbers, strings with strings (by code point), lists item by item;
// anything else is a TypeError.
func pyCompare(a any, op string, b any) (bool, error) {
	if x, ok := pyNum(a); ok {
		if y, ok := pyNum(b); ok {
			c, ok := pyNumCmp(x, y)
			return ok && cmpHolds(c, op), nil
		}
	}
	if x, ok := a.(string); ok {
		if y, ok := b.(string); ok {
			return cmpHolds(strings.Compare(x, y), op), nil
		}
	}
	if x, ok := pyList(a); ok {
		if y, ok := pyList(b); ok {
			for i := 0; i < len(x) && i < len(y); i++ {
				if !pyEq(x[i], y[i]) {
					return pyCompare(x[i], op, y[i])
				}
			}
			return cmpHolds(cmp.Compare(len(x), len(y)), op), nil
		}
	}
	return false, pyTypeErr("'%s' not supported between instances of '%s' and '%s'", op, pyTypeName(a), pyTypeName(b))
}

func cmpHolds(c int, op string) bool {
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}
