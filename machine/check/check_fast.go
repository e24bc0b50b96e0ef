package check

import (
	"math"
	"reflect"
	"slices"

	"github.com/expr-lang/expr/ast"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Compiled evaluation. Most guards and sets a check evaluates are small
// arithmetic and comparisons over ints, strings and bools:
// `dir == "up" && c0 < 3`, `c0 + 1`. expr runs them on its VM against the env
// map (a map write per changed variable, a map read per name, boxed
// arguments for the checked arithmetic), and the memo (check_memo.go) saves
// most runs but still hashes a key per evaluation. A program made only of
// what fastCompiler knows is compiled once more, into Go closures that read
// the slots' values directly (Explorer.envVals): no map, no VM, no key.
//
// A closure never decides anything expr would decide differently: it
// computes only where the answer is plain (two ints, two strings, two
// bools), and when it meets anything else at run time (a value of another
// type, such as null in a nullable variable; an overflow; a division by
// zero) it reports ok == false and the caller runs the program in expr, which
// gives the result or the error it always gave. CheckOptions.Interpreted
// turns it off (cmd/lppctl's TestCheckCompiledEvaluationAgreesWithExpr
// checks the corpus, the specs and the real L++ blueprints both ways).

type (
	intFn  func(v []any) (int, bool)
	boolFn func(v []any) (bool, bool)
	strFn  func(v []any) (string, bool)
)

// fastProg is a compiled program: run returns its value, or ok == false
// when expr must decide; a bool program also has cond, which returns its
// value unboxed (guards).
type fastProg struct {
	run   func(v []any) (any, bool)
	cond  boolFn
	intFn intFn // an int program's value unboxed (sets)
}

// fastCompiler compiles a program's tree; slot maps the names of context
// variables to their slots.
type fastCompiler struct {
	slot map[string]int
}

// compile returns the compiled program of node, nil when some part of it is
// not one fastCompiler knows.
func (c fastCompiler) compile(node ast.Node) *fastProg {
	switch kindOf(node) {
	case reflect.Bool:
		if f := c.boolOf(node); f != nil {
			return &fastProg{run: func(v []any) (any, bool) { return f(v) }, cond: f}
		}
	case reflect.Int:
		f := c.intOf(node)
		if s, ok := c.slotOf(node); ok && f != nil { // the value as it is: no new box
			return &fastProg{run: func(v []any) (any, bool) {
				_, ok := v[s].(int)
				return v[s], ok
			}, intFn: f}
		}
		if f != nil {
			return &fastProg{run: func(v []any) (any, bool) { return f(v) }, intFn: f}
		}
	case reflect.String:
		if s, ok := c.slotOf(node); ok {
			return &fastProg{run: func(v []any) (any, bool) {
				_, ok := v[s].(string)
				return v[s], ok
			}}
		}
		if n, ok := node.(*ast.StringNode); ok {
			var boxed any = n.Value // boxed once
			return &fastProg{run: func([]any) (any, bool) { return boxed, true }}
		}
		if f := c.strOf(node); f != nil {
			return &fastProg{run: func(v []any) (any, bool) { return f(v) }}
		}
	}
	return nil
}

// kindOf is the kind expr's checker gave node (Invalid when none).
func kindOf(node ast.Node) reflect.Kind {
	if node == nil || node.Type() == nil {
		return reflect.Invalid
	}
	return node.Type().Kind()
}

// slotOf returns the slot of a context variable's name.
func (c fastCompiler) slotOf(node ast.Node) (int, bool) {
	id, ok := node.(*ast.IdentifierNode)
	if !ok {
		return 0, false
	}
	s, ok := c.slot[id.Value]
	return s, ok
}

func (c fastCompiler) intOf(node ast.Node) intFn {
	if kindOf(node) != reflect.Int {
		return nil
	}
	switch n := node.(type) {
	case *ast.IntegerNode:
		return constant(n.Value)
	case *ast.IdentifierNode:
		s, ok := c.slot[n.Value]
		if !ok {
			return nil
		}
		return func(v []any) (int, bool) { // not generic: a type assertion to a type parameter costs a load more, in the hottest closure
			i, ok := v[s].(int)
			return i, ok
		}
	case *ast.UnaryNode:
		lit, ok := n.Node.(*ast.IntegerNode) // -x of a variable is FnNeg
		if !ok || n.Operator != "-" && n.Operator != "+" {
			return nil
		}
		k := lit.Value
		if n.Operator == "-" {
			k = -k
		}
		return constant(k)
	case *ast.CallNode:
		return c.checkedOf(n)
	case *ast.ConditionalNode:
		cond, a, b := c.boolOf(n.Cond), c.intOf(n.Exp1), c.intOf(n.Exp2)
		if cond == nil || a == nil || b == nil {
			return nil
		}
		return conditional(cond, a, b)
	}
	return nil
}

// checkedOf compiles a call of the checked arithmetic on ints (arith.go in
// machine/spec): an overflow or a division by zero is left to expr, which
// fails with its message.
func (c fastCompiler) checkedOf(n *ast.CallNode) intFn {
	callee, ok := n.Callee.(*ast.IdentifierNode)
	if !ok {
		return nil
	}
	if callee.Value == mspec.FnNeg && len(n.Arguments) == 1 {
		a := c.intOf(n.Arguments[0])
		if a == nil {
			return nil
		}
		return func(v []any) (int, bool) {
			x, ok := a(v)
			if !ok || x == math.MinInt {
				return 0, false
			}
			return -x, true
		}
	}
	if len(n.Arguments) != 2 {
		return nil
	}
	a, b := c.intOf(n.Arguments[0]), c.intOf(n.Arguments[1])
	if a == nil || b == nil {
		return nil
	}
	switch callee.Value {
	case mspec.FnAdd:
		if slots, k, ok := c.sumOf(n); ok {
			return sumSlots(slots, k)
		}
		return func(v []any) (int, bool) {
			x, ok1 := a(v)
			y, ok2 := b(v)
			s := x + y
			return s, ok1 && ok2 && (s > x) == (y > 0)
		}
	case mspec.FnSub:
		return func(v []any) (int, bool) {
			x, ok1 := a(v)
			y, ok2 := b(v)
			d := x - y
			return d, ok1 && ok2 && (d < x) == (y > 0)
		}
	case mspec.FnMul:
		return func(v []any) (int, bool) {
			x, ok1 := a(v)
			y, ok2 := b(v)
			if !ok1 || !ok2 {
				return 0, false
			}
			if x == 0 || y == 0 {
				return 0, true
			}
			p := x * y
			return p, p/y == x && !(x == -1 && y == math.MinInt) && !(y == -1 && x == math.MinInt)
		}
	case mspec.FnMod:
		return func(v []any) (int, bool) {
			x, ok1 := a(v)
			y, ok2 := b(v)
			if !ok1 || !ok2 || y == 0 || y == -1 && x == math.MinInt {
				return 0, false
			}
			return x % y, true
		}
	}
	return nil
}

func (c fastCompiler) strOf(node ast.Node) strFn {
	if kindOf(node) != reflect.String {
		return nil
	}
	switch n := node.(type) {
	case *ast.StringNode:
		return constant(n.Value)
	case *ast.IdentifierNode:
		s, ok := c.slot[n.Value]
		if !ok {
			return nil
		}
		return func(v []any) (string, bool) { // not generic: a type assertion to a type parameter costs a load more, in the hottest closure
			x, ok := v[s].(string)
			return x, ok
		}
	case *ast.ConditionalNode:
		cond, a, b := c.boolOf(n.Cond), c.strOf(n.Exp1), c.strOf(n.Exp2)
		if cond == nil || a == nil || b == nil {
			return nil
		}
		return conditional(cond, a, b)
	}
	return nil
}

func (c fastCompiler) boolOf(node ast.Node) boolFn {
	if kindOf(node) != reflect.Bool {
		return nil
	}
	switch n := node.(type) {
	case *ast.BoolNode:
		return constant(n.Value)
	case *ast.IdentifierNode:
		s, ok := c.slot[n.Value]
		if !ok {
			return nil
		}
		return func(v []any) (bool, bool) { // not generic: a type assertion to a type parameter costs a load more, in the hottest closure
			x, ok := v[s].(bool)
			return x, ok
		}
	case *ast.UnaryNode:
		if n.Operator != "!" && n.Operator != "not" {
			return nil
		}
		a := c.boolOf(n.Node)
		if a == nil {
			return nil
		}
		return func(v []any) (bool, bool) {
			x, ok := a(v)
			return !x, ok
		}
	case *ast.ConditionalNode:
		cond, a, b := c.boolOf(n.Cond), c.boolOf(n.Exp1), c.boolOf(n.Exp2)
		if cond == nil || a == nil || b == nil {
			return nil
		}
		return conditional(cond, a, b)
	case *ast.BinaryNode:
		return c.binaryOf(n)
	}
	return nil
}

// binaryOf compiles a logical operator or a comparison of two ints, two
// strings or two bools.
func (c fastCompiler) binaryOf(n *ast.BinaryNode) boolFn {
	switch n.Operator {
	case "&&", "and", "||", "or":
		a, b := c.boolOf(n.Left), c.boolOf(n.Right)
		if a == nil || b == nil {
			return nil
		}
		if n.Operator == "&&" || n.Operator == "and" {
			return func(v []any) (bool, bool) { // short-circuit, as expr
				x, ok := a(v)
				if !ok || !x {
					return false, ok
				}
				return b(v)
			}
		}
		return func(v []any) (bool, bool) {
			x, ok := a(v)
			if !ok || x {
				return x, ok
			}
			return b(v)
		}
	case "in":
		return c.inOf(n)
	case "==", "!=", "<", "<=", ">", ">=":
	default:
		return nil
	}
	op := n.Operator
	if a, b := c.intOf(n.Left), c.intOf(n.Right); a != nil && b != nil {
		if k, ok := n.Right.(*ast.IntegerNode); ok {
			if s, ok := c.slotOf(n.Left); ok {
				return slotCompare(op, s, k.Value)
			}
			if call, ok := n.Left.(*ast.CallNode); ok && isCall(call, mspec.FnAdd, 2) {
				if slots, lit, ok := c.sumOf(call); ok {
					sum, want := sumSlots(slots, lit), k.Value
					return func(v []any) (bool, bool) {
						x, ok := sum(v)
						return compare(op, x, want), ok
					}
				}
			}
		}
		return intCompare(op, a, b)
	}
	if k, ok := n.Right.(*ast.StringNode); ok && (op == "==" || op == "!=") {
		if s, ok := c.slotOf(n.Left); ok && kindOf(n.Left) == reflect.String {
			want, eq := k.Value, op == "=="
			return func(v []any) (bool, bool) {
				x, ok := v[s].(string)
				return (x == want) == eq, ok
			}
		}
	}
	if a, b := c.strOf(n.Left), c.strOf(n.Right); a != nil && b != nil {
		return func(v []any) (bool, bool) {
			x, ok1 := a(v)
			y, ok2 := b(v)
			return compare(op, x, y), ok1 && ok2
		}
	}
	if op != "==" && op != "!=" {
		return nil
	}
	if a, b := c.boolOf(n.Left), c.boolOf(n.Right); a != nil && b != nil {
		return func(v []any) (bool, bool) {
			x, ok1 := a(v)
			y, ok2 := b(v)
			return (x == y) == (op == "=="), ok1 && ok2
		}
	}
	return nil
}

// inOf compiles `x in [...]` of a list of literals, which expr's optimizer
// turns into a constant set.
func (c fastCompiler) inOf(n *ast.BinaryNode) boolFn {
	k, ok := n.Right.(*ast.ConstantNode)
	if !ok {
		return nil
	}
	switch set := k.Value.(type) {
	case map[int]struct{}:
		a := c.intOf(n.Left)
		if a == nil {
			return nil
		}
		return func(v []any) (bool, bool) {
			x, ok := a(v)
			_, in := set[x]
			return in, ok
		}
	case map[string]struct{}:
		a := c.strOf(n.Left)
		if a == nil {
			return nil
		}
		return func(v []any) (bool, bool) {
			x, ok := a(v)
			_, in := set[x]
			return in, ok
		}
	}
	return nil
}

// sumOf flattens a sum of context variables, added left to right
// (a + b + c: ((a + b) + c)) and maybe a literal last: the slots in the
// order expr adds them, and the literal (0 without). ok is false for any
// other shape (a + (b + c) adds in another order, and an overflow depends on
// the order).
func (c fastCompiler) sumOf(n *ast.CallNode) ([]int, int, bool) {
	k := 0
	if lit, ok := n.Arguments[1].(*ast.IntegerNode); ok {
		k = lit.Value
		left, ok := n.Arguments[0].(*ast.CallNode)
		if !ok || !isCall(left, mspec.FnAdd, 2) {
			return nil, 0, false
		}
		n = left
	}
	var rev []int // the slots, last first
	for {
		s, ok := c.intSlot(n.Arguments[1])
		if !ok {
			return nil, 0, false
		}
		rev = append(rev, s)
		if s, ok := c.intSlot(n.Arguments[0]); ok {
			rev = append(rev, s)
			break
		}
		left, ok := n.Arguments[0].(*ast.CallNode)
		if !ok || !isCall(left, mspec.FnAdd, 2) {
			return nil, 0, false
		}
		n = left
	}
	slices.Reverse(rev)
	return rev, k, true
}

// isCall reports whether n calls fn with args arguments.
func isCall(n *ast.CallNode, fn string, args int) bool {
	callee, ok := n.Callee.(*ast.IdentifierNode)
	return ok && callee.Value == fn && len(n.Arguments) == args
}

// intSlot returns the slot of an int context variable's name.
func (c fastCompiler) intSlot(node ast.Node) (int, bool) {
	s, ok := c.slotOf(node)
	return s, ok && kindOf(node) == reflect.Int
}

// sumSlots adds the ints in slots, left to right, then k, each addition
// checked as expr checks it: an overflow is left to expr.
func sumSlots(slots []int, k int) intFn {
	return func(v []any) (int, bool) {
		sum, ok := v[slots[0]].(int)
		if !ok {
			return 0, false
		}
		for _, s := range slots[1:] {
			x, ok := v[s].(int)
			if !ok {
				return 0, false
			}
			t := sum + x
			if (t > sum) != (x > 0) {
				return 0, false
			}
			sum = t
		}
		t := sum + k
		return t, (t > sum) == (k > 0)
	}
}

// slotCompare compares a context variable's int with a literal.
func slotCompare(op string, s, k int) boolFn {
	switch op {
	case "==":
		return func(v []any) (bool, bool) { x, ok := v[s].(int); return x == k, ok }
	case "!=":
		return func(v []any) (bool, bool) { x, ok := v[s].(int); return x != k, ok }
	case "<":
		return func(v []any) (bool, bool) { x, ok := v[s].(int); return x < k, ok }
	case "<=":
		return func(v []any) (bool, bool) { x, ok := v[s].(int); return x <= k, ok }
	case ">":
		return func(v []any) (bool, bool) { x, ok := v[s].(int); return x > k, ok }
	}
	return func(v []any) (bool, bool) { x, ok := v[s].(int); return x >= k, ok }
}

// intCompare compares two ints.
func intCompare(op string, a, b intFn) boolFn {
	return func(v []any) (bool, bool) {
		x, ok1 := a(v)
		y, ok2 := b(v)
		return compare(op, x, y), ok1 && ok2
	}
}

// constant is a literal's value.
func constant[T any](k T) func([]any) (T, bool) {
	return func([]any) (T, bool) { return k, true }
}

// conditional is cond ? a : b.
func conditional[T any](cond boolFn, a, b func([]any) (T, bool)) func([]any) (T, bool) {
	return func(v []any) (T, bool) {
		t, ok := cond(v)
		switch {
		case !ok:
			var zero T
			return zero, false
		case t:
			return a(v)
		}
		return b(v)
	}
}

// compare applies a comparison operator.
func compare[T int | string](op string, x, y T) bool {
	switch op {
	case "==":
		return x == y
	case "!=":
		return x != y
	case "<":
		return x < y
	case "<=":
		return x <= y
	case ">":
		return x > y
	}
	return x >= y
}
