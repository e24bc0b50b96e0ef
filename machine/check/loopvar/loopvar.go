// Package loopvar reads how a spec's expressions use a loop variable: a
// counter stepped by a constant (`c: c + 1`) or a list that grows by a fixed
// number of items each pass (`items: concat(items, [x])`), for the model
// checker's livelock search (machine/check's check_livelock.go). A loop that
// changes such a variable on every pass never returns to a (state, values)
// pair; when every read of the variable gives the same answer for all the
// values past some bound (a comparison with a number or with an expression
// of variables nothing writes, `c % 2` on the residue), the checker can
// explore the loop with the variable held there, and a cycle found then is
// one of the real run.
//
// It is pure expression analysis: it parses expr sources and names what the
// checker must decide (the value of the other side of a comparison).
package loopvar

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
)

// Bound is a comparison of the variable with an expression: the variable
// (shifted: `c + 1 < limit` compares c with limit - 1) is compared with
// Expr's value minus Shift.
type Bound struct {
	Expr  string
	Shift float64
}

// Use is how one expression reads a variable.
type Use struct {
	Total  int     // occurrences of the name
	Other  int     // occurrences that are none of the reads below
	Bounds []Bound // comparisons with an expression that does not read the variable
	Moduli []int64 // `v % M` with M a positive integer constant (an int counter only)
}

// Of parses src and tells how it reads name, a counter (list false: an int
// or a float) or a list (list true: read through len). ok is false when src
// does not parse or binds name with a let (its occurrences are not the
// variable's).
func Of(src, name string, list bool) (Use, bool) {
	u := Use{}
	if strings.TrimSpace(src) == "" {
		return u, true
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return u, false
	}
	v := &visitor{name: name, list: list, use: &u}
	ast.Walk(&tree.Node, v)
	return u, !v.bad
}

type visitor struct {
	name string
	list bool
	use  *Use
	bad  bool
}

var orderOps = []string{"==", "!=", "<", "<=", ">", ">="}

func (v *visitor) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.IdentifierNode:
		if n.Value == v.name {
			v.use.Total++
			v.use.Other++
		}
	case *ast.VariableDeclaratorNode:
		v.bad = v.bad || n.Name == v.name
	case *ast.BinaryNode:
		if n.Operator == "%" && !v.list && v.isName(n.Left) {
			if m, ok := n.Right.(*ast.IntegerNode); ok && m.Value > 0 {
				v.use.Other-- // counted as other when the identifier was visited
				v.use.Moduli = append(v.use.Moduli, int64(m.Value))
			}
			return
		}
		if !slices.Contains(orderOps, n.Operator) {
			return
		}
		for _, side := range [][2]ast.Node{{n.Left, n.Right}, {n.Right, n.Left}} {
			shift, ok := v.term(side[0])
			if !ok || v.reads(side[1]) {
				continue
			}
			v.use.Other--
			v.use.Bounds = append(v.use.Bounds, Bound{Expr: side[1].String(), Shift: shift})
			return
		}
	}
}

func (v *visitor) isName(n ast.Node) bool {
	id, ok := n.(*ast.IdentifierNode)
	return ok && id.Value == v.name
}

// base reads the variable's number: the name, or len(name) for a list.
func (v *visitor) base(n ast.Node) bool {
	if !v.list {
		return v.isName(n)
	}
	switch b := n.(type) {
	case *ast.BuiltinNode:
		return b.Name == "len" && len(b.Arguments) == 1 && v.isName(b.Arguments[0])
	case *ast.CallNode:
		callee, ok := b.Callee.(*ast.IdentifierNode)
		return ok && callee.Value == "len" && len(b.Arguments) == 1 && v.isName(b.Arguments[0])
	}
	return false
}

// term reads the variable's number, shifted by a constant: `c`, `c + 2`,
// `2 + c`, `c - 2` (len(items) for a list).
func (v *visitor) term(n ast.Node) (float64, bool) {
	if v.base(n) {
		return 0, true
	}
	b, ok := n.(*ast.BinaryNode)
	if !ok || b.Operator != "+" && b.Operator != "-" {
		return 0, false
	}
	if v.base(b.Left) {
		if k, ok := Number(b.Right); ok {
			if b.Operator == "-" {
				k = -k
			}
			return k, true
		}
	}
	if b.Operator == "+" && v.base(b.Right) {
		if k, ok := Number(b.Left); ok {
			return k, true
		}
	}
	return 0, false
}

// reads reports whether n mentions the name.
func (v *visitor) reads(n ast.Node) bool {
	found := false
	ast.Walk(&n, finder{name: v.name, found: &found})
	return found
}

type finder struct {
	name  string
	found *bool
}

func (f finder) Visit(node *ast.Node) {
	if id, ok := (*node).(*ast.IdentifierNode); ok && id.Value == f.name {
		*f.found = true
	}
}

// Step reads a set of the variable that steps it: `c + k`, `k + c`, `c - k`
// (k a number) for a counter; `concat(items, [a, b])` or `concat([a, b],
// items)` for a list, whose step is the literal's length. ok is false for
// any other expression.
func Step(src, name string, list bool) (float64, bool) {
	tree, err := parser.Parse(src)
	if err != nil {
		return 0, false
	}
	v := &visitor{name: name, list: list}
	if list {
		b, ok := tree.Node.(*ast.BuiltinNode)
		if !ok || b.Name != "concat" || len(b.Arguments) != 2 {
			return 0, false
		}
		for _, side := range [][2]ast.Node{{b.Arguments[0], b.Arguments[1]}, {b.Arguments[1], b.Arguments[0]}} {
			if lit, ok := side[1].(*ast.ArrayNode); ok && v.isName(side[0]) && slices.IndexFunc(lit.Nodes, fallible) < 0 {
				return float64(len(lit.Nodes)), true
			}
		}
		return 0, false
	}
	if v.base(tree.Node) {
		return 0, false
	}
	k, ok := v.term(tree.Node)
	return k, ok
}

// fallible reports whether an item of an appended list literal may fail
// to evaluate: the checker does not evaluate a step it holds, so only
// literals and variables (which never fail to read) are steps.
func fallible(n ast.Node) bool {
	switch n.(type) {
	case *ast.IdentifierNode, *ast.StringNode, *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.NilNode:
		return false
	}
	return true
}

// Number reads a number written as a constant (`3`, `-2.5`).
func Number(n ast.Node) (float64, bool) {
	switch c := n.(type) {
	case *ast.IntegerNode:
		return float64(c.Value), true
	case *ast.FloatNode:
		return c.Value, true
	case *ast.UnaryNode:
		if c.Operator == "-" {
			if k, ok := Number(c.Node); ok {
				return -k, true
			}
		}
	}
	return 0, false
}

// Names returns the identifiers src reads (nil when it does not parse).
func Names(src string) []string {
	tree, err := parser.Parse(src)
	if err != nil {
		return nil
	}
	var out []string
	ast.Walk(&tree.Node, collector{&out})
	return out
}

type collector struct{ out *[]string }

func (c collector) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.IdentifierNode:
		if !slices.Contains(*c.out, n.Value) {
			*c.out = append(*c.out, n.Value)
		}
	case *ast.PointerNode:
		*c.out = append(*c.out, "#") // a closure's item: not a constant
	}
}

// Info describes a loop variable the checker holds past its bound, for
// its report.
type Info struct {
	Name   string
	Step   string  // the set that steps it, as written
	Bound  float64 // the last number a read compares it with, in the direction it steps (±Inf: none)
	From   string  // the expression Bound is the value of, when not a number
	Up     bool    // it grows
	List   bool    // a list, read through len
	Moduli []int64 // the M of each `v % M`, sorted
}

func (c Info) String() string {
	dir := "grows"
	if !c.Up {
		dir = "shrinks"
	}
	what := c.Name
	if c.List {
		what = "len(" + c.Name + ")"
	}
	if math.IsInf(c.Bound, 0) && len(c.Moduli) == 0 {
		return fmt.Sprintf("%s %s on every pass (%s: %s) and no guard compares it", what, dir, c.Name, c.Step)
	}
	past := ""
	if !math.IsInf(c.Bound, 0) {
		past = ", past " + formatBound(c.Bound)
		if c.From != "" {
			past += " (" + c.From + ")"
		}
	}
	if len(c.Moduli) > 0 {
		mods := make([]string, len(c.Moduli))
		for i, m := range c.Moduli {
			mods[i] = fmt.Sprintf("%s %% %d", c.Name, m)
		}
		return fmt.Sprintf("%s %s on every pass (%s: %s) and%s, what reads it depends only on %s", what, dir, c.Name, c.Step, past, strings.Join(slices.Compact(mods), ", "))
	}
	return fmt.Sprintf("%s %s on every pass (%s: %s) and%s, no comparison that reads it changes", what, dir, c.Name, c.Step, past)
}

func formatBound(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%g", f)
}

// GCD is the greatest common divisor of positive a and b.
func GCD(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// LCM is the least common multiple of the moduli (0 for none; capped at
// 1<<20, where it reports false: a period that long explores too many
// values).
func LCM(moduli []int64) (int64, bool) {
	l := int64(0)
	for _, m := range moduli {
		if l == 0 {
			l = m
			continue
		}
		l = l / GCD(l, m) * m
		if l > 1<<20 {
			return 0, false
		}
	}
	return l, true
}
