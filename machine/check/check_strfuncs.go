package check

import (
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
)

// The string functions a guard reads a string variable through give the
// variable a value where the guard holds, as a comparison with a literal
// does (the model's reply is text the spec takes apart):
//
//	indexOf(s, "OK") == 2        "xxOK" (lastIndexOf too)
//	trimPrefix(s, "A: ") == "y"  "A: y" (trimSuffix: "y" + the suffix)
//	len(split(s, ",")) == 2      "x,x" and "x,x,x" (splitAfter too)
//	split(s, ",")[1] == "b"      "x,b"
//
// Other functions of it are not looked into.

// callOf returns the name and arguments of a call of a builtin or function.
func callOf(n ast.Node) (string, []ast.Node) {
	switch f := n.(type) {
	case *ast.BuiltinNode:
		return f.Name, f.Arguments
	case *ast.CallNode:
		if callee, ok := f.Callee.(*ast.IdentifierNode); ok {
			return callee.Value, f.Arguments
		}
	}
	return "", nil
}

// stringArgs evaluates, for a call f(VAR, LIT), the variable's name and
// the literal (a string) at the defaults.
func (c *compareVisitor) stringArgs(args []ast.Node) (string, string, bool) {
	if len(args) != 2 {
		return "", "", false
	}
	v, ok := comparedName(args[0])
	if !ok {
		return "", "", false
	}
	if _, known := c.env[v]; !known {
		return "", "", false
	}
	lit, err := expr.Eval(args[1].String(), c.env)
	if err != nil {
		return "", "", false
	}
	s, ok := lit.(string)
	return v, s, ok
}

// twoArgs records `f(VAR, LIT) OP OTHER` for indexOf, lastIndexOf,
// trimPrefix and trimSuffix.
func (c *compareVisitor) twoArgs(name string, args []ast.Node, other ast.Node) {
	if name != "indexOf" && name != "lastIndexOf" && name != "trimPrefix" && name != "trimSuffix" {
		return
	}
	v, lit, ok := c.stringArgs(args)
	if !ok {
		return
	}
	val, err := expr.Eval(other.String(), c.env)
	if err != nil {
		return
	}
	switch name {
	case "indexOf", "lastIndexOf":
		if n, ok := asInt(val); ok && n >= 0 && n <= maxPaddedLen && lit != "" {
			c.out[v] = append(c.out[v], strings.Repeat("x", n)+lit)
		}
	case "trimPrefix":
		if s, ok := val.(string); ok {
			c.out[v] = append(c.out[v], lit+s)
		}
	case "trimSuffix":
		if s, ok := val.(string); ok {
			c.out[v] = append(c.out[v], s+lit)
		}
	}
}

// splitLen records `len(split(VAR, SEP)) OP n`: VAR holds n and n+1 parts.
func (c *compareVisitor) splitLen(arg, other ast.Node) {
	name, args := callOf(arg)
	if name != "split" && name != "splitAfter" {
		return
	}
	v, sep, ok := c.stringArgs(args)
	if !ok || sep == "" {
		return
	}
	val, err := expr.Eval(other.String(), c.env)
	if err != nil {
		return
	}
	n, ok := asInt(val)
	if !ok || n < 1 || n > maxPaddedLen {
		return
	}
	for _, parts := range []int{n, n + 1} {
		c.out[v] = append(c.out[v], strings.TrimSuffix(strings.Repeat("x"+sep, parts), sep))
	}
}

// splitItem records `split(VAR, SEP)[i] OP OTHER`: VAR holds i parts
// before OTHER.
func (c *compareVisitor) splitItem(n, other ast.Node) {
	if ch, ok := n.(*ast.ChainNode); ok {
		n = ch.Node
	}
	m, ok := n.(*ast.MemberNode)
	if !ok {
		return
	}
	idx, ok := m.Property.(*ast.IntegerNode)
	if !ok || idx.Value < 0 || idx.Value > maxPaddedLen {
		return
	}
	name, args := callOf(m.Node)
	if name != "split" {
		return
	}
	v, sep, ok := c.stringArgs(args)
	if !ok || sep == "" {
		return
	}
	val, err := expr.Eval(other.String(), c.env)
	if err != nil {
		return
	}
	if s, ok := val.(string); ok {
		c.out[v] = append(c.out[v], strings.Repeat("x"+sep, idx.Value)+s)
	}
}
