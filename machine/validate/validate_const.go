package validate

import (
	"errors"
	"fmt"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/checker"
	exprcompiler "github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// constants reports, for an expression that compiles, what will fail every
// time it runs: a division or modulo by a constant zero, and the parts that
// read no context variable (constant: they give the same result at every
// run) whose evaluation fails (an integer overflow, int() of a float that no
// int holds). For a set or a parameter (value is true), a constant value
// that is not a finite number too. src is written at start in the spec.
func (v *validator) constants(src string, start mspec.Pos, what string, value bool) {
	config := conf.CreateNew()
	for _, opt := range mspec.ExprOptions(v.env, src) {
		opt(config)
	}
	config.Check()
	tree, err := checker.ParseCheck(src, config)
	if err != nil {
		return // reported by the compile that checked types
	}
	at := func(off int) mspec.Pos { return mspec.ExprPos(v.spec.Source, start, src, off) }
	var walk func(n ast.Node, root bool)
	walk = func(n ast.Node, root bool) {
		if n == nil {
			return
		}
		if div, zero := zeroDivisor(n); zero {
			v.errorf(at(n.Location().From), 1, "divide by a value that cannot be 0, or guard it, e.g. `d == 0 ? 0 : x "+div+" d`",
				"%s: division by zero: the divisor of %s is always 0", what, div)
			return
		}
		if isConstant(n) {
			if isLiteral(n) {
				return
			}
			out, err := evalNode(n, tree, config, v.env)
			var fe *file.Error
			switch {
			case errors.As(err, &fe):
				v.errorf(at(fe.From), 1, constHint(fe.Prev), "%s: %s", what, fe.Message)
			case err != nil:
				v.errorf(at(n.Location().From), 1, "", "%s: %v", what, err)
			case root && value:
				if f, bad := mspec.NotFinite(out); bad {
					v.errorf(start, 1, "the run would stop here: a set or parameter must give a finite number (the run's journal cannot hold another)",
						"%s: the value is %v, %s", what, f, mspec.ErrNotFinite)
				}
			}
			return
		}
		for _, c := range children(n) {
			walk(c, false)
		}
	}
	walk(tree.Node, true)
}

// constHint explains a failure of a constant part of an expression.
func constHint(err error) string {
	switch {
	case errors.Is(err, mspec.ErrIntOverflow):
		return "ints hold -9223372036854775808 to 9223372036854775807; this part of the expression reads no context variable, so it fails every time"
	case errors.Is(err, mspec.ErrNotFinite):
		return "this part of the expression reads no context variable, so it fails every time"
	}
	return ""
}

// zeroDivisor reports whether n divides (/) or takes a modulo (%) by a
// constant 0, and which.
func zeroDivisor(n ast.Node) (string, bool) {
	var op string
	var divisor ast.Node
	switch x := n.(type) {
	case *ast.BinaryNode:
		if x.Operator == "/" || x.Operator == "%" {
			op, divisor = x.Operator, x.Right
		}
	case *ast.CallNode:
		if id, ok := x.Callee.(*ast.IdentifierNode); ok && (id.Value == mspec.FnMod || id.Value == mspec.FnMod+"_any") && len(x.Arguments) == 2 {
			op, divisor = "%", x.Arguments[1]
		}
	}
	if divisor == nil || !isConstant(divisor) {
		return "", false
	}
	switch d := divisor.(type) {
	case *ast.IntegerNode:
		return op, d.Value == 0
	case *ast.FloatNode:
		return op, d.Value == 0
	case *ast.UnaryNode:
		return zeroDivisor(&ast.BinaryNode{Operator: op, Right: d.Node})
	}
	return "", false
}

// evalNode evaluates the constant part n of tree.
func evalNode(n ast.Node, tree *parser.Tree, config *conf.Config, env map[string]any) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	prog, err := exprcompiler.Compile(&parser.Tree{Node: n, Source: tree.Source}, config)
	if err != nil {
		return nil, err
	}
	return vm.Run(prog, env)
}

// nonDeterministic are the expression functions whose result changes from
// one run to the next: a call of one is not constant.
var nonDeterministic = []string{"now"}

// isConstant reports whether n reads no context variable and calls nothing
// whose result may change: it gives the same value every time.
func isConstant(n ast.Node) bool {
	switch x := n.(type) {
	case *ast.NilNode, *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.StringNode, *ast.ConstantNode:
		return true
	case *ast.UnaryNode:
		return isConstant(x.Node)
	case *ast.BinaryNode:
		return isConstant(x.Left) && isConstant(x.Right)
	case *ast.ConditionalNode:
		return isConstant(x.Cond) && isConstant(x.Exp1) && isConstant(x.Exp2)
	case *ast.ArrayNode:
		return allConstant(x.Nodes)
	case *ast.MapNode:
		for _, p := range x.Pairs {
			if !isConstant(p) {
				return false
			}
		}
		return true
	case *ast.PairNode:
		return isConstant(x.Key) && isConstant(x.Value)
	case *ast.BuiltinNode:
		return !mspec.Contains(nonDeterministic, x.Name) && allConstant(x.Arguments)
	case *ast.CallNode:
		id, ok := x.Callee.(*ast.IdentifierNode)
		return ok && checkedFuncs[id.Value] && allConstant(x.Arguments)
	}
	return false
}

// checkedFuncs are the functions of checked arithmetic (arith.go).
var checkedFuncs = map[string]bool{
	mspec.FnAdd: true, mspec.FnSub: true, mspec.FnMul: true, mspec.FnMod: true, mspec.FnNeg: true, mspec.FnInt: true,
	mspec.FnAdd + "_any": true, mspec.FnSub + "_any": true, mspec.FnMul + "_any": true, mspec.FnMod + "_any": true,
}

func allConstant(ns []ast.Node) bool {
	for _, n := range ns {
		if !isConstant(n) {
			return false
		}
	}
	return true
}

// isLiteral reports whether n is written as a value (nothing to evaluate).
func isLiteral(n ast.Node) bool {
	switch x := n.(type) {
	case *ast.NilNode, *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.StringNode, *ast.ConstantNode:
		return true
	case *ast.UnaryNode: // -1
		return isLiteral(x.Node)
	}
	return false
}

// children returns the direct children of n.
func children(n ast.Node) []ast.Node {
	switch x := n.(type) {
	case *ast.UnaryNode:
		return []ast.Node{x.Node}
	case *ast.BinaryNode:
		return []ast.Node{x.Left, x.Right}
	case *ast.ConditionalNode:
		return []ast.Node{x.Cond, x.Exp1, x.Exp2}
	case *ast.ArrayNode:
		return x.Nodes
	case *ast.MapNode:
		out := make([]ast.Node, len(x.Pairs))
		copy(out, x.Pairs)
		return out
	case *ast.PairNode:
		return []ast.Node{x.Key, x.Value}
	case *ast.BuiltinNode:
		return x.Arguments
	case *ast.CallNode:
		return append([]ast.Node{x.Callee}, x.Arguments...)
	case *ast.MemberNode:
		return []ast.Node{x.Node, x.Property}
	case *ast.SliceNode:
		return []ast.Node{x.Node, x.From, x.To}
	case *ast.ChainNode:
		return []ast.Node{x.Node}
	case *ast.PredicateNode:
		return []ast.Node{x.Node}
	case *ast.VariableDeclaratorNode:
		return []ast.Node{x.Value, x.Expr}
	case *ast.SequenceNode:
		return x.Nodes
	}
	return nil
}
