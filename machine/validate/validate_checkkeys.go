package validate

import (
	"fmt"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"strconv"
)

// checkKeys validates what the model checker reads: ranges on int variables
// that hold their default, invariants and final_requires that compile as bool
// expressions over the context, in: lists of defined states, final_requires
// on final states only.
func (v *validator) checkKeys() {
	for _, cv := range v.spec.Context {
		r := cv.Range
		if r == nil {
			continue
		}
		if cv.Type != mspec.TypeInt {
			v.errorf(r.Pos, 1, "remove range:, or make the variable an int", "range is only allowed on int variables, and %q is %s", cv.Name, cv.Type)
			continue
		}
		if n, ok := cv.Default.(int); ok && !r.Contains(n) {
			v.errorf(cv.DefPos, 1, fmt.Sprintf("widen the range to include %d, or change the default", n),
				"default %d of %q is outside its range [%d, %d]", n, cv.Name, r.Lo, r.Hi)
		}
	}
	for _, c := range v.spec.Invariants {
		v.guardAs(c, "invariant "+strconv.Quote(c.Name))
		for _, name := range c.In {
			if v.spec.State(name) == nil {
				v.errorf(findWord(v.spec.Source, c.InPos, name), len(name), v.stateHint(name), "invariant %q names unknown state %q in in:", c.Name, name)
			}
		}
	}
	for _, st := range v.spec.States {
		if len(st.FinalRequires) > 0 && !st.Final && !v.lostKey(st.Name, "final") {
			c := st.FinalRequires[0]
			v.errorf(c.Pos, 1, "add `final: true`, or move the conditions to invariants: with `in: ["+st.Name+"]`",
				"final_requires of state %q: the state is not final", st.Name)
		}
		for _, c := range st.FinalRequires {
			v.guardAs(c, mspec.RequirementLabel(c, st.Name))
		}
	}
}

// guardAs checks that a condition compiles as a bool expression.
func (v *validator) guardAs(c *mspec.Condition, what string) {
	if _, err := mspec.CompileGuard(c.Expr, v.env); err != nil {
		v.exprError(mspec.LocateExpr(err, v.spec.Source, c.ExprPos, c.Expr), what)
	}
}
