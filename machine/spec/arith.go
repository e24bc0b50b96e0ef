package spec

import (
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/vm/runtime"
)

// Checked arithmetic. expr computes with Go's int, which wraps around on
// overflow (9223372036854775807 + 1 is -9223372036854775808) and converts a
// float that no int holds (int(1 / 0)) to -9223372036854775808, silently: a
// counter that wraps loops to the transition budget. Spec expressions are
// compiled with a patch (checkedArith) that replaces the integer operations
// that can overflow, and int() of a float, by the functions below, which fail
// instead: the run stops with an error that names the expression. The
// operations on floats are left as they are; a set or parameter whose value
// is not a finite number is refused where the value is stored (finite).

// The functions the patch calls. Their names cannot be written in a spec by
// mistake (no one names a function so), and they are harmless if called.
const (
	FnAdd = "_checked_add"
	FnSub = "_checked_sub"
	FnMul = "_checked_mul"
	FnMod = "_checked_mod"
	FnNeg = "_checked_neg"
	FnInt = "_checked_int"
)

// Errors of checked arithmetic (wrapped; the message names the operands).
var (
	ErrIntOverflow  = errors.New("integer overflow")
	ErrDivideByZero = errors.New("integer division by zero")
	ErrNotFinite    = errors.New("not a finite number")
)

// arithOptions are the expr options that make integer arithmetic checked.
func arithOptions(env map[string]any) []expr.Option {
	intInt := new(func(int, int) int)
	return []expr.Option{
		expr.Function(FnAdd, binaryInt(FnAdd), intInt),
		expr.Function(FnSub, binaryInt(FnSub), intInt),
		expr.Function(FnMul, binaryInt(FnMul), intInt),
		expr.Function(FnMod, binaryInt(FnMod), intInt),
		expr.Function(FnAdd+"_any", binaryAny(FnAdd)),
		expr.Function(FnSub+"_any", binaryAny(FnSub)),
		expr.Function(FnMul+"_any", binaryAny(FnMul)),
		expr.Function(FnMod+"_any", binaryAny(FnMod)),
		expr.Function(FnNeg, func(args ...any) (any, error) {
			n, ok := args[0].(int)
			if !ok {
				return runtime.Negate(args[0]), nil
			}
			if n == math.MinInt {
				return nil, fmt.Errorf("%w: -(%d) is out of the int range", ErrIntOverflow, n)
			}
			return -n, nil
		}),
		expr.Function(FnInt, func(args ...any) (any, error) { return checkedInt(args[0]) }, new(func(any) int)),
		expr.Patch(checkedArith{env: env}),
	}
}

// checkedOp computes a op b on ints, or fails.
func checkedOp(op string, a, b int) (int, error) {
	switch op {
	case FnAdd:
		s := a + b
		if (s > a) != (b > 0) {
			return 0, fmt.Errorf("%w: %d + %d is out of the int range", ErrIntOverflow, a, b)
		}
		return s, nil
	case FnSub:
		d := a - b
		if (d < a) != (b > 0) {
			return 0, fmt.Errorf("%w: %d - %d is out of the int range", ErrIntOverflow, a, b)
		}
		return d, nil
	case FnMul:
		if a == 0 || b == 0 {
			return 0, nil
		}
		p := a * b
		if p/b != a || (a == -1 && b == math.MinInt) || (b == -1 && a == math.MinInt) {
			return 0, fmt.Errorf("%w: %d * %d is out of the int range", ErrIntOverflow, a, b)
		}
		return p, nil
	default: // fnMod
		if b == 0 {
			return 0, fmt.Errorf("%w: %d %% 0", ErrDivideByZero, a)
		}
		return a % b, nil
	}
}

func binaryInt(op string) func(args ...any) (any, error) {
	return func(args ...any) (any, error) {
		a, _ := args[0].(int)
		b, _ := args[1].(int)
		return checkedOp(op, a, b)
	}
}

// binaryAny checks an operation whose operands are known only at run time:
// two ints are checked, anything else is left to expr.
func binaryAny(op string) func(args ...any) (any, error) {
	return func(args ...any) (any, error) {
		a, aok := args[0].(int)
		b, bok := args[1].(int)
		if aok && bok {
			return checkedOp(op, a, b)
		}
		switch op {
		case FnAdd:
			return runtime.Add(args[0], args[1]), nil
		case FnSub:
			return runtime.Subtract(args[0], args[1]), nil
		case FnMul:
			return runtime.Multiply(args[0], args[1]), nil
		}
		return runtime.Modulo(args[0], args[1]), nil
	}
}

// checkedInt is expr's int() that fails on a float no int holds.
func checkedInt(x any) (any, error) {
	var f float64
	switch v := x.(type) {
	case float64:
		f = v
	case float32:
		f = float64(v)
	default:
		return builtin.Int(x), nil
	}
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return nil, fmt.Errorf("int(%v): %w", f, ErrNotFinite)
	case f >= math.MaxInt64 || f < math.MinInt64: // 2^63 is the first float above MaxInt64
		return nil, fmt.Errorf("%w: int(%v) is out of the int range", ErrIntOverflow, f)
	}
	return int(f), nil
}

// checkedArith is the expr patch that routes integer +, -, *, %, unary -
// and int() of a float through the checked functions. It runs after a first
// type check, so the operands' types are known: two ints call the typed
// function (the expression keeps its int type); an operand of unknown type
// (an element of a list) with an int or another unknown calls the run-time
// checked one; anything else (floats, strings) is left alone.
//
// An operand that names no variable of env (a misspelt one) is left alone,
// so that the final type check reports it: patched, it would hide in an
// untyped call that expr's checker lets through for %.
type checkedArith struct{ env map[string]any }

var checkedOps = map[string]string{"+": FnAdd, "-": FnSub, "*": FnMul, "%": FnMod}

func (p checkedArith) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.BinaryNode:
		fn, ok := checkedOps[n.Operator]
		if !ok {
			return
		}
		lk, rk := n.Left.Type().Kind(), n.Right.Type().Kind()
		switch {
		case lk == reflect.Int && rk == reflect.Int:
		case (lk == reflect.Int || lk == reflect.Interface) && (rk == reflect.Int || rk == reflect.Interface):
			if p.unknown(n.Left) || p.unknown(n.Right) {
				return
			}
			fn += "_any"
		default:
			return
		}
		p.call(node, fn, n.Left, n.Right)
	case *ast.UnaryNode:
		if _, literal := n.Node.(*ast.IntegerNode); n.Operator == "-" && !literal && n.Node.Type().Kind() == reflect.Int {
			p.call(node, FnNeg, n.Node)
		}
	case *ast.BuiltinNode: // a builtin that a context variable does not override
		if n.Name != "int" || len(n.Arguments) != 1 {
			return
		}
		if k := n.Arguments[0].Type().Kind(); k == reflect.Float64 || k == reflect.Float32 || k == reflect.Interface {
			p.call(node, FnInt, n.Arguments[0])
		}
	}
}

func (p checkedArith) call(node *ast.Node, fn string, args ...ast.Node) {
	callee := &ast.IdentifierNode{Value: fn}
	callee.SetLocation((*node).Location())
	c := &ast.CallNode{Callee: callee, Arguments: args}
	c.SetType((*node).Type()) // the parent, visited next, sees the operation's type
	ast.Patch(node, c)
}

// unknown reports whether n is a name that is neither a variable of the
// environment nor a function: the type check reports it.
func (p checkedArith) unknown(n ast.Node) bool {
	id, ok := n.(*ast.IdentifierNode)
	if !ok || p.env == nil {
		return false
	}
	_, known := p.env[id.Value]
	return !known && !IsBuiltin(id.Value)
}
