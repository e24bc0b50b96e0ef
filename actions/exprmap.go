package actions

import (
	"fmt"
	"sort"

	"github.com/expr-lang/expr"

	"github.com/lppctl/lppctl/machine"
)

// evalMap evaluates a map parameter whose values are expressions over the
// context (tools.call's args, script.run's and spec.run's input): name →
// value. A number or bool written as a YAML scalar is its own value.
func evalMap(c *machine.Call, param string) (map[string]any, error) {
	m, _ := c.Param(param).(map[string]any)
	out := make(map[string]any, len(m))
	if len(m) == 0 {
		return out, nil
	}
	env := c.Vars()
	for _, k := range sortedKeys(m) {
		v, err := evalValue(m[k], env)
		if err != nil {
			return nil, fmt.Errorf("cannot evaluate %s.%s of %s: %w", param, k, c.Action, err)
		}
		out[k] = v
	}
	return out, nil
}

// evalValue evaluates one expression value against env.
func evalValue(v any, env map[string]any) (any, error) {
	src, ok := exprText(v)
	if !ok {
		return nil, fmt.Errorf("%s is not an expression (write it as text, e.g. retries + 1)", describe(v))
	}
	prog, err := expr.Compile(src, expr.Env(env), expr.AsAny())
	if err != nil && hasNil(env) {
		// A variable that holds null gives the checker no type to read a
		// field of (o?.k: "type nil has no field k"); the spec's validation
		// checked the expression against the declared types, so check it
		// untyped, as it runs: o?.k is null.
		if p, uerr := expr.Compile(src, expr.AsAny()); uerr == nil {
			prog, err = p, nil
		}
	}
	if err != nil {
		return nil, err
	}
	return expr.Run(prog, env)
}

// exprText returns the expression text of a map value: a string as it is, a
// number or bool as written; lists, maps and null are not expressions.
func exprText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int, int64, float64, bool:
		return fmt.Sprint(x), true
	}
	return "", false
}

// describe names a decoded value's kind for messages ("a list", "null").
func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	case string:
		return "a string"
	case bool:
		return "a bool"
	case int, int64:
		return "an int"
	case float64:
		return "a float"
	}
	return fmt.Sprintf("a %T", v)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// stringMap reads a map parameter whose values must be strings (output and
// map names): key → value.
func stringMap(c *machine.Call, param string) (map[string]string, error) {
	m, _ := c.Param(param).(map[string]any)
	out := make(map[string]string, len(m))
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s.%s of %s must be a string, not %s", param, k, c.Action, describe(v))
		}
		out[k] = s
	}
	return out, nil
}

// hasNil reports whether a variable of env holds null.
func hasNil(env map[string]any) bool {
	for _, v := range env {
		if v == nil {
			return true
		}
	}
	return false
}
