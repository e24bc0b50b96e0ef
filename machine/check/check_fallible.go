package check

import (
	"reflect"
	"slices"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// What can make an expression fail at run time, for the cone of influence
// (check_live.go): a `set` is evaluated even when nothing reads its target,
// and "expressions evaluate" must see every value that makes it fail. So
// the variables whose value can make it fail are relevant and live where it
// is evaluated, whatever its target:
//
//   - the divisor of `/` and `%` (a zero), unless it is a literal;
//   - what an index, a member access or a slice reads (out of range, nil);
//   - the arguments of a function that can fail on some value (int("x"),
//     fromJSON), every function but those below, which fail on no value of
//     the types the type check lets through;
//   - an operation on a value whose type the type check does not know (an
//     item of a list, a value of a map: `first(items) + 1`, `sum(items)`,
//     `all(items, # > 0)` fail when an item is a string), and a function of
//     totalFuncs given a list or a map of such values, but for those of
//     totalOnAny, which never look at the items;
//   - a nullable variable given to an operation or a function (`len(x)`,
//     `x + 1` fail when x is null; `x == nil`, `[x]`, `string(x)` do not).
//
// The checked arithmetic of `+ - *` on ints is left out on purpose: it
// fails only past ±2⁶³, which no value of a default domain approaches, and
// counting it would keep every counter (the price docs/check.md states).
var totalFuncs = map[string]bool{
	"len": true, "upper": true, "lower": true, "trim": true, "trimPrefix": true, "trimSuffix": true,
	"hasPrefix": true, "hasSuffix": true, "string": true, "abs": true, "max": true, "min": true,
	"keys": true, "values": true, "concat": true, "indexOf": true, "lastIndexOf": true,
	"replace": true, "split": true, "join": true, "toJSON": true, "first": true, "last": true,
	"get": true, "all": true, "any": true, "none": true, "one": true, "filter": true, "map": true,
	"count": true, "sum": true, "type": true, "toPairs": true, "fromPairs": true,
}

// totalOnAny are the functions of totalFuncs that fail on no list or map,
// whatever its items.
var totalOnAny = map[string]bool{
	"len": true, "keys": true, "values": true, "concat": true, "toJSON": true, "string": true,
	"first": true, "last": true, "get": true, "type": true, "toPairs": true,
}

// fallibleSlots returns the slots whose value can make p fail (cached).
func (x *Explorer) fallibleSlots(p *vm.Program) []int {
	if p == nil {
		return nil
	}
	if s, ok := x.fallible[p]; ok {
		return s
	}
	f := &fallibleVisitor{nullable: func(name string) bool {
		v := x.spec.Var(name)
		return v != nil && v.Nullable
	}}
	node := p.Node()
	ast.Walk(&node, f)
	var out []int
	for _, n := range f.nodes {
		sub := n
		c := &identCollector{}
		ast.Walk(&sub, c)
		for _, name := range c.names {
			if i, ok := x.slot[name]; ok && !slices.Contains(out, i) {
				out = append(out, i)
			}
		}
	}
	if x.fallible == nil {
		x.fallible = map[*vm.Program][]int{}
	}
	x.fallible[p] = out
	return out
}

// fallibleVisitor collects the sub-expressions whose value can make an
// expression fail.
type fallibleVisitor struct {
	nodes    []ast.Node
	nullable func(name string) bool // whether a variable is nullable
}

// null notes the operands that read a nullable variable: an operation on
// them fails when it is null.
func (f *fallibleVisitor) null(operands ...ast.Node) {
	for _, o := range operands {
		if id, ok := o.(*ast.IdentifierNode); ok && f.nullable(id.Value) {
			f.nodes = append(f.nodes, id)
		}
	}
}

func (f *fallibleVisitor) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.BinaryNode:
		switch n.Operator {
		case "==", "!=", "??":
		default:
			f.null(n.Left, n.Right)
		}
		switch n.Operator {
		case "==", "!=":
		case "&&", "||", "and", "or", "??":
		case "in", "not in":
			if t := n.Right.Type(); t == nil || t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
				f.untyped(n, n.Left, n.Right) // a list's membership compares with ==: it never fails
			}
		case "/", "%":
			f.divisor(n.Right)
			f.untyped(n, n.Left, n.Right)
		default:
			f.untyped(n, n.Left, n.Right)
		}
	case *ast.UnaryNode:
		f.null(n.Node)
		f.untyped(n, n.Node)
	case *ast.ConditionalNode:
		f.null(n.Cond)
	case *ast.MemberNode:
		if id, ok := n.Node.(*ast.IdentifierNode); ok && id.Value == mspec.VarEvent {
			return // event.payload: typed, never nil
		}
		f.nodes = append(f.nodes, n)
	case *ast.SliceNode:
		f.nodes = append(f.nodes, n)
	case *ast.BuiltinNode:
		if n.Name != "string" && n.Name != "toJSON" && n.Name != "type" {
			f.null(n.Arguments...)
		}
		if !totalFuncs[n.Name] || !totalOnAny[n.Name] && f.untyped(n, n.Arguments...) {
			f.nodes = append(f.nodes, n)
		}
	case *ast.CallNode:
		f.null(n.Arguments...)
		id, ok := n.Callee.(*ast.IdentifierNode)
		switch {
		case ok && (id.Value == mspec.FnMod || id.Value == mspec.FnMod+"_any") && len(n.Arguments) == 2:
			f.divisor(n.Arguments[1]) // checked `%` (machine/spec/arith.go)
			f.untyped(n, n.Arguments...)
		case ok && checkedTotal[id.Value]:
			f.untyped(n, n.Arguments...)
		case ok && totalFuncs[id.Value]:
		default:
			f.nodes = append(f.nodes, n)
		}
	}
}

// untyped notes n when one of its operands has a type the type check does
// not know, or is a list or a map of such values (its items may be of any
// type: an operation on them can fail); it reports whether it noted n.
func (f *fallibleVisitor) untyped(n ast.Node, operands ...ast.Node) bool {
	for _, o := range operands {
		if unknownType(o.Type()) {
			f.nodes = append(f.nodes, n)
			return true
		}
	}
	return false
}

// unknownType reports whether a value of type t (nil: unknown) may be of
// any type, or hold such values.
func unknownType(t reflect.Type) bool {
	if t == nil {
		return true
	}
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Slice, reflect.Array, reflect.Map:
		return unknownType(t.Elem())
	}
	return false
}

// checkedTotal are the checked operations (machine/spec/arith.go) that fail
// only on an overflow.
var checkedTotal = map[string]bool{
	mspec.FnAdd: true, mspec.FnSub: true, mspec.FnMul: true, mspec.FnNeg: true,
	mspec.FnAdd + "_any": true, mspec.FnSub + "_any": true, mspec.FnMul + "_any": true,
}

// divisor notes a divisor, unless it is a literal other than zero.
func (f *fallibleVisitor) divisor(n ast.Node) {
	switch r := n.(type) {
	case *ast.IntegerNode:
		if r.Value == 0 {
			f.nodes = append(f.nodes, n)
		}
	case *ast.FloatNode:
	default:
		f.nodes = append(f.nodes, n)
	}
}

// identCollector collects the identifiers a node reads, once each.
type identCollector struct{ names []string }

func (c *identCollector) Visit(node *ast.Node) {
	if id, ok := (*node).(*ast.IdentifierNode); ok && !slices.Contains(c.names, id.Value) {
		c.names = append(c.names, id.Value)
	}
}
