package validate

import (
	"fmt"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// textExpr refuses the text of a parameter with an ExprIn companion (fail's
// and agent.abort's message) when it reads as an expression: a string
// literal, or a variable of the run. Such text would be shown as written
// (agent.abort's message was an expression before), so it is an error that
// says to move the expression to the companion parameter. Words that name
// no variable, and text that does not parse, are plain text.
func (v *validator) textExpr(a *machine.Action, ps *machine.ParamSpec, p *mspec.Param) {
	src, ok := p.Value.(string)
	if !ok || ps.ExprIn == "" {
		return
	}
	why := v.readsAsExpr(src)
	if why == "" {
		return
	}
	v.errorf(p.VPos, valueSpan(v.spec.Source, p.VPos),
		fmt.Sprintf(`move the expression to %s: (its result is appended to the %s), e.g. with: {%s: "cannot go on:", %s: reason}`, ps.ExprIn, ps.Name, ps.Name, ps.ExprIn),
		"parameter %q of action %q is text and reads as an expression (%s): it would be shown as written", ps.Name, a.Name, why)
}

// readsAsExpr tells why src reads as an expression over the run's variables
// ("" when it does not): its first string literal, else its first variable.
func (v *validator) readsAsExpr(src string) string {
	tree, err := parser.Parse(src)
	if err != nil {
		return ""
	}
	f := &exprFinder{env: v.env}
	ast.Walk(&tree.Node, f)
	switch {
	case f.literal:
		return "a string literal"
	case f.variable != "":
		return fmt.Sprintf("variable %q", f.variable)
	}
	return ""
}

// exprFinder notes whether an expression holds a string literal and the
// first identifier that names a variable of env.
type exprFinder struct {
	env      map[string]any
	literal  bool
	variable string
}

func (f *exprFinder) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.StringNode:
		f.literal = true
	case *ast.IdentifierNode:
		if _, ok := f.env[n.Value]; ok && f.variable == "" {
			f.variable = n.Value
		}
	}
}
