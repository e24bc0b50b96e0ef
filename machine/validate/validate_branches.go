package validate

import (
	"fmt"
	"reflect"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// branches checks each result of a conditional (`c ? a : b`, nested ones
// too) that a value must have type t: expr types the whole conditional as
// "any value" when its branches differ (`n > 1 ? 1 : "a"`), so a branch of
// another type passed the check and stopped the run when it was taken. A
// branch whose type is known only at run time (a payload field of type
// any, nil) is not reported.
func (v *validator) branches(prog *vm.Program, src string, at mspec.Pos, t mspec.Type, what string) {
	if prog == nil || t == mspec.TypeAny {
		return
	}
	root := prog.Node()
	if _, ok := root.(*ast.ConditionalNode); !ok {
		return
	}
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		if c, ok := n.(*ast.ConditionalNode); ok {
			walk(c.Exp1)
			walk(c.Exp2)
			return
		}
		got := n.Type()
		if got == nil || got.Kind() == reflect.Interface || fits(got.Kind(), t) {
			return
		}
		p := mspec.ExprPos(v.spec.Source, at, src, n.Location().From)
		fix := "convert it (int(...), float(...), string(...)) or give another value"
		if t == mspec.TypeBool {
			fix = `compare it, e.g. n > 0 or s != ""`
		}
		v.errorf(p, 1, fmt.Sprintf("every branch of ?: must give %s: the run stops when this one is taken; %s", t.Article(), fix),
			"%s: this branch of ?: gives %s, not %s", what, kindWord(got.Kind()), t)
	}
	walk(root)
}

// fits reports whether a value of kind k is stored in (or tested as) type t.
func fits(k reflect.Kind, t mspec.Type) bool {
	switch t {
	case mspec.TypeInt:
		return k >= reflect.Int && k <= reflect.Uint64
	case mspec.TypeFloat:
		return k >= reflect.Int && k <= reflect.Float64
	case mspec.TypeBool:
		return k == reflect.Bool
	case mspec.TypeString:
		return k == reflect.String
	case mspec.TypeList:
		return k == reflect.Slice || k == reflect.Array
	case mspec.TypeMap:
		return k == reflect.Map
	}
	return true
}

// kindWord names a Go kind as the spec's type.
func kindWord(k reflect.Kind) string {
	switch {
	case k >= reflect.Int && k <= reflect.Uint64:
		return "int"
	case k == reflect.Float32 || k == reflect.Float64:
		return "float"
	case k == reflect.Bool:
		return "bool"
	case k == reflect.String:
		return "string"
	case k == reflect.Slice || k == reflect.Array:
		return "list"
	case k == reflect.Map:
		return "map"
	}
	return k.String()
}
