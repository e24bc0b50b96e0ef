package check

import (
	"fmt"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// clockRead names the first expression of spec that reads the clock
// (now()), or "". The check evaluates such an expression when it runs, at
// one instant, and a run at another instant may take another branch
// (`now().Unix() % 2 == 0`): what the check decides from it holds for that
// instant only, so its PASS verdicts (and "no path reaches") are UNKNOWN,
// as for values left untried; a FAIL's counterexample is still a run.
//
// A set counts only when its variable is relevant (a guard, a condition or
// a parameter reads it, through other sets too: Explorer.relevance): a
// time stored only to be shown decides nothing.
func clockRead(spec *mspec.Spec, relevant func(name string) bool) string {
	if spec.Var("now") != nil {
		return "" // a context variable takes the name: now is that variable
	}
	sets := func(as []*mspec.Assign, where string) string {
		for _, a := range as {
			if relevant(a.Var) && readsClock(a.Expr) {
				return fmt.Sprintf("the set of %s (%s)", a.Var, where)
			}
		}
		return ""
	}
	for _, st := range spec.States {
		where := fmt.Sprintf("state %q", st.Name)
		for _, p := range st.With {
			if st.Do != "emit" && st.Do != "wait" {
				break // a parameter reaches the run's path only through emit's payload or wait's duration
			}
			if s, ok := p.Value.(string); ok && readsClock(s) {
				return fmt.Sprintf("parameter %q of %s", p.Name, where)
			}
		}
		if w := sets(st.Set, where); w != "" {
			return w
		}
		for _, t := range st.Transitions() {
			if readsClock(t.When) {
				return fmt.Sprintf("a guard of %s (%s)", where, t.When)
			}
			if w := sets(t.Set, "a transition of "+where); w != "" {
				return w
			}
		}
		for _, c := range st.FinalRequires {
			if readsClock(c.Expr) {
				return fmt.Sprintf("final_requires %q of %s", c.Name, where)
			}
		}
	}
	for _, ev := range spec.Events {
		if readsClock(ev.When) {
			return fmt.Sprintf("a guard of event %s (%s)", ev.Name, ev.When)
		}
		if w := sets(ev.Set, "event "+ev.Name); w != "" {
			return w
		}
	}
	for _, c := range spec.Invariants {
		if readsClock(c.Expr) {
			return fmt.Sprintf("invariant %q", c.Name)
		}
	}
	return ""
}

// readsClock reports whether the expression src calls now().
func readsClock(src string) bool {
	if src == "" {
		return false
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return false
	}
	v := &clockVisitor{}
	ast.Walk(&tree.Node, v)
	return v.found
}

type clockVisitor struct{ found bool }

func (v *clockVisitor) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.BuiltinNode:
		v.found = v.found || n.Name == "now"
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); ok && id.Value == "now" {
			v.found = true
		}
	}
}
