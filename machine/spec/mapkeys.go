package spec

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"

	"github.com/expr-lang/expr/builtin"
)

// keys, values and toPairs of a map give its keys in order (sorted), its
// values and pairs in the order of their keys. expr's own take Go's map
// order, another at every call: keys({"a": 1, "b": 2}) gave ["a", "b"] or
// ["b", "a"], and a Temporal workflow, which evaluates a run's expressions
// again when a worker replays it, could take another branch than the run
// took (the replay no longer matched the run's history: its queries failed
// and its next workflow task could not go on).
//
// expr calls a builtin through its entry in builtin.Builtins (the AST keeps
// its BuiltinNode: the checker, the exports and the model checker read
// these calls as before); the entries' Func are replaced once, here.
func init() {
	sorted := map[string]func(m reflect.Value, k reflect.Value) any{
		"keys":    func(_, k reflect.Value) any { return k.Interface() },
		"values":  func(m, k reflect.Value) any { return m.MapIndex(k).Interface() },
		"toPairs": nil, // its own: a list of [key, value]
	}
	for name, item := range sorted {
		id, ok := builtin.Index[name]
		if !ok {
			panic("expr has no builtin " + name) // a new expr version: this file must follow it
		}
		f := builtin.Builtins[id]
		if item == nil {
			f.Func = toPairsSorted
			continue
		}
		f.Func = func(args ...any) (any, error) {
			m, keys, err := sortedKeys(name, args)
			if err != nil {
				return nil, err
			}
			out := make([]any, len(keys))
			for i, k := range keys {
				out[i] = item(m, k)
			}
			return out, nil
		}
	}
}

func toPairsSorted(args ...any) (any, error) {
	m, keys, err := sortedKeys("toPairs", args)
	if err != nil {
		return nil, err
	}
	out := make([][2]any, len(keys))
	for i, k := range keys {
		out[i] = [2]any{k.Interface(), m.MapIndex(k).Interface()}
	}
	return out, nil
}

// sortedKeys returns the map args holds and its keys sorted (strings by
// their bytes; keys of another type, which no context value has, by their
// printed form), with expr's errors for another argument.
func sortedKeys(name string, args []any) (reflect.Value, []reflect.Value, error) {
	if len(args) != 1 {
		return reflect.Value{}, nil, fmt.Errorf("invalid number of arguments (expected 1, got %d)", len(args))
	}
	m := reflect.ValueOf(args[0])
	if m.Kind() != reflect.Map {
		what := map[string]string{"keys": "cannot get keys from %s", "values": "cannot get values from %s", "toPairs": "cannot transform %s to pairs"}[name]
		return reflect.Value{}, nil, fmt.Errorf(what, m.Kind())
	}
	keys := m.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int {
		if a.Kind() == reflect.String && b.Kind() == reflect.String {
			return cmp.Compare(a.String(), b.String())
		}
		return cmp.Compare(fmt.Sprint(a.Interface()), fmt.Sprint(b.Interface()))
	})
	return m, keys, nil
}
