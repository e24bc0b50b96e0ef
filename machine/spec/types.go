package spec

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Type is the type of a context variable or an action parameter.
type Type string

// The types a spec can declare.
const (
	TypeInt    Type = "int"
	TypeFloat  Type = "float"
	TypeBool   Type = "bool"
	TypeString Type = "string"
	TypeList   Type = "list" // a list of any values
	TypeMap    Type = "map"  // a string-keyed map of any values
	TypeAny    Type = "any"  // parameters only: any YAML value
	TypeExpr   Type = "expr" // parameters only: an expression evaluated against the context when the action runs
	// TypeFile is for parameters only: the path of a file the action reads (a
	// prompt template...), relative to the spec's folder, then the project
	// root (see ResolveFile). Validate checks that it names a readable file;
	// runs record its content's hash so that resume notices a change.
	TypeFile Type = "file"
	// TypeExprMap is for parameters only: a mapping of names to expressions,
	// each evaluated against the context when the action runs (the action
	// gets a map of the values), e.g. emit's payload.
	TypeExprMap Type = "expr_map"
)

// VarTypes lists the types a context variable may have, in documentation order.
var VarTypes = []Type{TypeInt, TypeFloat, TypeBool, TypeString, TypeList, TypeMap}

// Zero returns the zero value of t, as the interpreter stores it.
func (t Type) Zero() any {
	switch t {
	case TypeInt:
		return 0
	case TypeFloat:
		return 0.0
	case TypeBool:
		return false
	case TypeString, TypeExpr, TypeFile:
		return ""
	case TypeList:
		return []any{}
	case TypeMap, TypeExprMap:
		return map[string]any{}
	}
	return nil
}

// Coerce converts a decoded value (from YAML, JSON or an expression) to t's
// canonical Go representation: int, float64, bool, string, []any or map[string]any.
func (t Type) Coerce(v any) (any, error) {
	switch t {
	case TypeAny:
		return v, nil
	case TypeInt:
		switch n := v.(type) {
		case int:
			return v, nil // as it is: boxing n again would allocate
		case int64:
			return int(n), nil
		case int32:
			return int(n), nil
		case uint64:
			if n > math.MaxInt64 {
				break
			}
			return int(n), nil
		case float64:
			if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
				return int(n), nil
			}
		case json.Number:
			if i, err := n.Int64(); err == nil {
				return int(i), nil
			}
		}
	case TypeFloat:
		switch n := v.(type) {
		case float64:
			return n, nil
		case float32:
			return float64(n), nil
		case int:
			return float64(n), nil
		case int64:
			return float64(n), nil
		case json.Number:
			if f, err := n.Float64(); err == nil {
				return f, nil
			}
		}
	case TypeBool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case TypeString, TypeExpr, TypeFile:
		if _, ok := v.(string); ok {
			return v, nil
		}
	case TypeList:
		switch l := v.(type) {
		case []any:
			return l, nil
		case []string:
			out := make([]any, len(l))
			for i, s := range l {
				out[i] = s
			}
			return out, nil
		case nil:
			return []any{}, nil
		}
	case TypeMap, TypeExprMap:
		switch m := v.(type) {
		case map[string]any:
			return m, nil
		case map[string]string:
			out := make(map[string]any, len(m))
			for k, s := range m {
				out[k] = s
			}
			return out, nil
		case nil:
			return map[string]any{}, nil
		}
	default:
		return nil, fmt.Errorf("unknown type %q", t)
	}
	return nil, fmt.Errorf("%s is not %s", DescribeValue(v), t.Article())
}

// ParseValue parses s (as typed on a command line, e.g. --var retries=2) as a value of type t.
// Lists and maps are given as JSON (or YAML flow style): [1, 2] or {"a": 1}.
func (t Type) ParseValue(s string) (any, error) {
	switch t {
	case TypeInt:
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("%q is beyond an int's range (±9.2e18); give a smaller number", s)
		}
		if err != nil {
			return nil, fmt.Errorf("%q is not an int", s)
		}
		return n, nil
	case TypeFloat:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if errors.Is(err, strconv.ErrRange) { // beyond ±MaxFloat64 (1e-400 reads as 0)
			return nil, fmt.Errorf("%q is beyond a float's range (±1.8e308); give a smaller number", s)
		}
		if err != nil {
			return nil, fmt.Errorf("%q is not a float", s)
		}
		return f, nil
	case TypeBool:
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("%q is not a bool (use true or false)", s)
		}
		return b, nil
	case TypeString, TypeExpr, TypeFile:
		return s, nil
	case TypeList, TypeMap, TypeAny:
		var v any
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		err := dec.Decode(&v)
		if err == nil {
			if _, extra := dec.Token(); extra != io.EOF {
				err = fmt.Errorf("text after the value")
			}
		}
		if err != nil {
			if t == TypeAny {
				return s, nil
			}
			return nil, fmt.Errorf("%q is not a JSON %s", s, t)
		}
		v = NormalizeJSON(v)
		return t.Coerce(v)
	}
	return nil, fmt.Errorf("unknown type %q", t)
}

// ParseOverride parses s (a --var value) as a value of the variable: of its
// type, and among its enum values when it has some.
func (v *Var) ParseOverride(s string) (any, error) {
	val, err := v.Type.ParseValue(s)
	if err != nil {
		return nil, err
	}
	if str, ok := val.(string); ok && len(v.Enum) > 0 && !Contains(v.Enum, str) {
		return nil, fmt.Errorf("%q is not one of %s%s", str, QuoteList(v.Enum), HintSuffix(didYouMean(str, v.Enum)))
	}
	return val, nil
}

// NormalizeJSON turns the json.Numbers of a value decoded with UseNumber into
// int (when integral) or float64, recursively, in place.
func NormalizeJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = NormalizeJSON(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = NormalizeJSON(x[k])
		}
	}
	return v
}

func (t Type) Article() string {
	switch t {
	case TypeInt:
		return "an int"
	case TypeExpr:
		return "an expression (string)"
	case TypeFile:
		return "a file path (string)"
	case TypeExprMap:
		return "a mapping of names to expressions"
	}
	return "a " + string(t)
}

// describeValue names a value's kind for error messages.
func DescribeValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("string %q", x)
	case bool:
		return fmt.Sprintf("bool %v", x)
	case int, int64, int32:
		return fmt.Sprintf("int %v", x)
	case float64, float32:
		return fmt.Sprintf("float %v", x)
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	}
	// Never a Go type name: messages are about the spec's values.
	switch reflect.ValueOf(v).Kind() {
	case reflect.Map:
		return "a map whose keys are not all strings (fromPairs and groupBy make such maps; build it with merge or a map literal)"
	case reflect.Slice, reflect.Array:
		return "a list of a kind lppctl does not store"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return fmt.Sprintf("int %v", v)
	}
	return "a value of a kind lppctl does not store"
}

// isValidVarType reports whether t may be a context variable's type.
func isValidVarType(t Type) bool {
	for _, v := range VarTypes {
		if v == t {
			return true
		}
	}
	return false
}
