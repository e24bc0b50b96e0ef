package spec

import (
	"reflect"

	"github.com/expr-lang/expr/vm"
	"gopkg.in/yaml.v3"
)

// Nullable context variables: "no value yet".
//
// A variable declared `nullable: true` may hold null as well as values of
// its type. It starts as null unless it has a default (`default: null` is
// allowed too), and expressions test it with `x == nil` / `x != nil`.
// Validation type-checks every other use against the variable's type, as
// for any variable: `len(x) > 0` compiles for a nullable string, and fails
// at run time while x is null (guard it: `x != nil && len(x) > 0`, or
// `(x ?? "") != ""`). Imported L++ blueprints declare every property
// nullable: their context values are Python values, any of which may be None.

// nullable decodes the `nullable:` key of a context variable's mapping.
func (d *decoder) nullable(f map[string]field, cv *Var) {
	x, ok := f["nullable"]
	if !ok {
		return
	}
	cv.NullablePos = pos(x.val)
	b, err := d.nodeValue(x.val)
	bv, isBool := b.(bool)
	if err != nil || !isBool {
		d.errorf(pos(x.val), span(x.val), "nullable of %q must be true or false, not %s", cv.Name, kindName(x.val))
		d.hintLast(boolHint(x.val))
		return
	}
	cv.Nullable = bv
}

// initial returns the value a variable starts with before its default is
// read: null when it is nullable, else its type's zero value.
func (v *Var) initial() any {
	if v.Nullable {
		return nil
	}
	return v.Type.Zero()
}

// nullDefault reports whether def is `default: null` on a nullable
// variable (the variable then starts as null).
func (v *Var) nullDefault(def *yaml.Node) bool {
	return v.Nullable && def.Kind == yaml.ScalarNode && def.Tag == "!!null"
}

// nullHint tells how to allow `default: null` on a variable that is not nullable.
func nullHint(v *Var, def *yaml.Node) string {
	if !v.Nullable && def.Kind == yaml.ScalarNode && def.Tag == "!!null" {
		return "declare it `nullable: true` to let it start with no value"
	}
	return ""
}

// Coerce converts a value to the variable's type, as Type.Coerce does,
// and lets null through when the variable is nullable.
func (v *Var) Coerce(val any) (any, error) {
	if val == nil && v.Nullable {
		return nil, nil
	}
	return v.Type.Coerce(val)
}

// CompileVarValue compiles a `set:` expression for variable v: as
// CompileValue does for its type, and, when v is nullable, also an
// expression whose value expr cannot type (nil, `m?.k`, a payload field):
// null is then stored as null, any other value is checked against v's type
// when it is set (Var.Coerce).
//
// An int, float or bool variable's expression is type-checked as
// CompileValue does, but runs without the cast expr's AsInt, AsFloat64 and
// AsBool end the program with: a nullable variable is typed by its type's
// zero value, so `n` reads as a float at compile time and may be null at
// run time, where the cast fails (`float(<nil>)`) or turns null into false.
// Var.Coerce does the cast's work when the value is set: it converts an int
// to a float, stores null into a nullable variable and refuses it, with the
// reason, in one that is not nullable.
func CompileVarValue(src string, v *Var, env map[string]any) (*vm.Program, error) {
	if castType(v.Type) {
		q, err := CompileValue(src, TypeAny, env)
		if err == nil && castFree(q, v) {
			return q, nil
		}
	}
	p, err := CompileValue(src, v.Type, env)
	if !v.Nullable {
		return p, err
	}
	if err == nil {
		// expr.AsInt and the like compile an untyped value into a cast,
		// which fails on null at run time: those compile again untyped.
		if rt := p.Node().Type(); rt != nil && rt.Kind() != reflect.Interface {
			return p, nil
		}
	}
	q, anyErr := CompileValue(src, TypeAny, env)
	if anyErr != nil {
		return p, err
	}
	if rt := q.Node().Type(); rt == nil || rt.Kind() == reflect.Interface {
		return q, nil
	}
	return p, err
}

// castType reports whether CompileValue ends a program of type t with a
// cast (expr's AsInt, AsFloat64, AsBool).
func castType(t Type) bool {
	return t == TypeInt || t == TypeFloat || t == TypeBool
}

// castFree reports whether the untyped program q of a set of variable v
// may run without the cast CompileValue would add: its value has v's type
// (for a float, an int too), or expr cannot type it (Var.Coerce checks it
// when it is set). A value of any other type, a float for an int and a
// nil literal for a variable that is not nullable are compile errors,
// which CompileValue gives.
func castFree(q *vm.Program, v *Var) bool {
	if nt := q.Node().Nature(); nt == nil || nt.Nil {
		return v.Nullable // the nil literal
	}
	rt := q.Node().Type()
	if rt == nil {
		return false
	}
	switch k := rt.Kind(); {
	case k == reflect.Interface:
		return true
	case v.Type == TypeInt:
		return k == reflect.Int
	case v.Type == TypeFloat:
		return k == reflect.Float64 || k == reflect.Int
	case v.Type == TypeBool:
		return k == reflect.Bool
	}
	return false
}
