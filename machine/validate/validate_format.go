package validate

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/parser"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// formatParam checks a parameter with a format written as an expression (its
// text is not a literal of the format): the expression must compile, give a
// value that can have the format, and, when constant, have it.
func (v *validator) formatParam(a *machine.Action, ps *machine.ParamSpec, p *mspec.Param, src string) {
	what := fmt.Sprintf("parameter %q", ps.Name)
	at := mspec.ExprStart(v.spec.Source, p.VPos)
	switch p.Value.(type) {
	case int, float64: // a YAML number: 5 for 5s?
		if _, err := ps.Format.Value(p.Value); err != nil {
			v.errorf(p.VPos, valueSpan(v.spec.Source, p.VPos), ps.Format.Hint(),
				"parameter %q of action %q: %s", ps.Name, a.Name, strings.TrimPrefix(err.Error(), mspec.ErrFormat.Error()+": "))
			return
		}
	}
	if _, err := mspec.CompileValue(src, mspec.TypeAny, v.env); err != nil {
		if tree, perr := parser.Parse(src); perr == nil && !isIdentifier(tree.Node) {
			// An expression that parses and does not type-check (a name
			// it cannot read, event.payload.x in an action's parameter):
			// its own error, not "is not a duration".
			v.exprError(mspec.LocateExpr(err, v.spec.Source, at, src), what)
			return
		}
		v.errorf(p.VPos, valueSpan(v.spec.Source, p.VPos), ps.Format.Hint(),
			"parameter %q of action %q: %q is not %s, nor an expression that gives one", ps.Name, a.Name, src, ps.Format.Describe())
		return
	}
	config := conf.CreateNew()
	for _, opt := range mspec.ExprOptions(v.env, src) {
		opt(config)
	}
	config.Check()
	tree, err := checker.ParseCheck(src, config)
	if err != nil {
		return
	}
	if t := tree.Node.Type(); t != nil && !formatCanHold(ps.Format, t) {
		v.errorf(at, 1, ps.Format.Hint(), "%s: the expression gives %s, not %s", what, exprTypeNames.Replace(t.String()), ps.Format.Describe())
		return
	}
	v.constants(src, at, what, true)
	if !isConstant(tree.Node) {
		return
	}
	out, err := evalNode(tree.Node, tree, config, v.env)
	if err != nil {
		return // reported by constants
	}
	if _, err := ps.Format.Value(out); err != nil {
		v.errorf(at, 1, ps.Format.Hint(), "%s: %s", what, strings.TrimPrefix(err.Error(), mspec.ErrFormat.Error()+": "))
	}
}

// isIdentifier reports whether n is a bare name (`soon`: a word, more likely
// a value that is not of the format than an expression).
func isIdentifier(n ast.Node) bool {
	_, ok := n.(*ast.IdentifierNode)
	return ok
}

var durationType = reflect.TypeOf(time.Duration(0))

// formatCanHold reports whether a value of type t may have format f.
func formatCanHold(f mspec.Format, t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface, reflect.String:
		return true
	}
	return f == mspec.FormatDuration && t == durationType
}
