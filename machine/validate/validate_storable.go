package validate

import (
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/conf"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// timesInSet reports the items of a list or map literal that a set of a
// list or map variable stores and whose type is a time value (`[now()]`,
// `{at: date("2024-01-02")}`): the run's journal would store them as another
// type (see checkStorable, which catches at run time those whose type is
// known only then).
func (v *validator) timesInSet(a *mspec.Assign) {
	config := conf.CreateNew()
	for _, opt := range mspec.ExprOptions(v.env, a.Expr) {
		opt(config)
	}
	config.Check()
	tree, err := checker.ParseCheck(a.Expr, config)
	if err != nil {
		return // reported by the compile that checked types
	}
	v.timesInNode(a, tree.Node)
}

// storedItem reports item, stored in a list or map (in), when its type is a
// time value, else looks inside it.
func (v *validator) storedItem(a *mspec.Assign, item ast.Node, in string) {
	switch x := item.(type) {
	case *ast.ConditionalNode:
		v.storedItem(a, x.Exp1, in)
		v.storedItem(a, x.Exp2, in)
		return
	case *ast.VariableDeclaratorNode:
		v.storedItem(a, x.Expr, in)
		return
	case *ast.ArrayNode, *ast.MapNode:
		v.timesInNode(a, item)
		return
	}
	k, bad := mspec.TimeKinds[item.Type()]
	if !bad {
		return
	}
	loc := item.Location()
	p := mspec.ExprPos(v.spec.Source, a.ExprPos, a.Expr, loc.From)
	span := max(loc.To-loc.From, 1)
	v.errorf(p, span, "store it converted, e.g. "+k.Convert,
		"set %s: %s in a %s would be stored %s by the run's journal, so a resumed run would read %s", a.Var, k.What, in, k.Journaled, k.Reads)
}

// timesInNode is timesInSet's walk from a node inside the expression.
func (v *validator) timesInNode(a *mspec.Assign, n ast.Node) {
	switch x := n.(type) {
	case *ast.ConditionalNode:
		v.timesInNode(a, x.Exp1)
		v.timesInNode(a, x.Exp2)
	case *ast.VariableDeclaratorNode:
		v.timesInNode(a, x.Expr)
	case *ast.ArrayNode:
		for _, item := range x.Nodes {
			v.storedItem(a, item, "list")
		}
	case *ast.MapNode:
		for _, p := range x.Pairs {
			if pair, ok := p.(*ast.PairNode); ok {
				v.storedItem(a, pair.Value, "map")
			}
		}
	}
}
