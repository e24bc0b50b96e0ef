package check

import (
	"math"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
)

// A number compared through arithmetic with a constant (`count * 2 > 10`,
// `count + 5 == 12`, `abs(delta) > 40`, `score / 4 >= 1.5`) is given the
// value that makes the two sides equal (5, 7, ±40, 6.0), as a direct
// comparison gives its literal, and Domain adds its neighbours: without it
// the variable took its default and default+1, and the branch was
// reported unreachable.

// arith records, for `fn OP other` where fn is arithmetic over one
// variable and constants, the variable's value where the two sides meet.
func (c *compareVisitor) arith(fn, other ast.Node) {
	switch fn.(type) {
	case *ast.BinaryNode, *ast.BuiltinNode, *ast.UnaryNode:
	default:
		return
	}
	val, err := expr.Eval(other.String(), c.env)
	if err != nil {
		return
	}
	target, ok := asFloat(val)
	if !ok {
		return
	}
	c.invert(fn, target, 0)
}

// maxInvertDepth bounds the arithmetic arith walks into.
const maxInvertDepth = 4

// invert walks n towards its one variable, turning target into the
// variable's value, and records it (its floor and ceiling for an int).
func (c *compareVisitor) invert(n ast.Node, target float64, depth int) {
	if depth > maxInvertDepth || math.IsNaN(target) || math.IsInf(target, 0) || math.Abs(target) > 1<<53 {
		return
	}
	if name, ok := comparedName(n); ok {
		if _, known := c.env[name]; known && depth > 0 {
			c.out[name] = append(c.out[name], target)
			if f, cl := math.Floor(target), math.Ceil(target); f != target {
				c.out[name] = append(c.out[name], int(f), int(cl))
			}
		}
		return
	}
	switch x := n.(type) {
	case *ast.UnaryNode:
		if x.Operator == "-" {
			c.invert(x.Node, -target, depth+1)
		}
	case *ast.BuiltinNode:
		if x.Name == "abs" && len(x.Arguments) == 1 {
			c.invert(x.Arguments[0], target, depth+1)
			c.invert(x.Arguments[0], -target, depth+1)
		}
	case *ast.BinaryNode:
		if k, ok := c.constant(x.Right); ok {
			switch x.Operator {
			case "+":
				c.invert(x.Left, target-k, depth+1)
			case "-":
				c.invert(x.Left, target+k, depth+1)
			case "*":
				if k != 0 {
					c.invert(x.Left, target/k, depth+1)
				}
			case "/":
				c.invert(x.Left, target*k, depth+1)
			}
			return
		}
		if k, ok := c.constant(x.Left); ok {
			switch x.Operator {
			case "+":
				c.invert(x.Right, target-k, depth+1)
			case "-":
				c.invert(x.Right, k-target, depth+1)
			case "*":
				if k != 0 {
					c.invert(x.Right, target/k, depth+1)
				}
			}
		}
	}
}

// constant evaluates n when it reads no variable of the spec's (a
// literal, or arithmetic over literals), as a number.
func (c *compareVisitor) constant(n ast.Node) (float64, bool) {
	reads := &identCollector{}
	node := n
	ast.Walk(&node, reads)
	if len(reads.names) > 0 {
		return 0, false
	}
	val, err := expr.Eval(n.String(), c.env)
	if err != nil {
		return 0, false
	}
	return asFloat(val)
}
