package spec

import (
	"fmt"
	"maps"
	"reflect"

	"github.com/expr-lang/expr"
)

// merge and omit, the expression functions that change keys of a map
// (expr has none): what they compute when written as they are. A set of a
// map variable into itself with one of them takes a key-level path instead
// (merge.go).

// The functions' names.
const (
	FnMerge = "merge"
	FnOmit  = "omit"
)

// mapOptions defines merge and omit, unless a context variable takes one
// of their names (its expressions keep reading the variable).
func mapOptions(env map[string]any) []expr.Option {
	var opts []expr.Option
	if _, taken := env[FnMerge]; !taken {
		opts = append(opts, expr.Function(FnMerge, mergeFn, new(func(map[string]any, map[string]any) map[string]any)))
	}
	if _, taken := env[FnOmit]; !taken {
		opts = append(opts, expr.Function(FnOmit, omitFn, new(func(map[string]any, ...string) map[string]any)))
	}
	return opts
}

func mergeFn(args ...any) (any, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("merge takes 2 maps, not %d arguments", len(args))
	}
	a, err := mapArg(FnMerge, args[0])
	if err != nil {
		return nil, err
	}
	b, err := mapArg(FnMerge, args[1])
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(a)+len(b))
	maps.Copy(out, a)
	maps.Copy(out, b)
	return out, nil
}

func omitFn(args ...any) (any, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("omit takes a map and the keys to remove")
	}
	a, err := mapArg(FnOmit, args[0])
	if err != nil {
		return nil, err
	}
	out := maps.Clone(a)
	if out == nil {
		out = map[string]any{}
	}
	for _, k := range args[1:] {
		s, ok := k.(string)
		if !ok {
			return nil, fmt.Errorf("omit: a key is a string, not %s", typeName(k))
		}
		delete(out, s)
	}
	return out, nil
}

func mapArg(fn string, v any) (map[string]any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return x, nil
	}
	return nil, fmt.Errorf("%s: %s is not a map", fn, typeName(v))
}

func typeName(v any) string {
	if v == nil {
		return "null"
	}
	return reflect.TypeOf(v).String()
}
