package check

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// A path that spends the whole budget going round a loop that changes a
// counter on every pass (`c: c + 1`, left only `when: c < 0`) never returns
// to a pair, so the trap search (findTrap) cannot see it: the exploration
// only fails bounds, as it does for a loop a larger budget would end. When
// every expression that reads such a counter only compares it with
// constants, and the spec only ever steps it in one direction by a constant
// (`c: c + 1`, `c: c - 2`; a set that does not read it, a reset, is
// allowed, and so is an action's write), the values past the last constant
// in that direction cannot be told apart: every comparison holds or fails
// for all of them alike, and a step keeps them there. The check then
// explores again with such a counter frozen once past that bound (its steps
// leave it as it is): the frozen pairs have the same moves as the real ones
// (each real run is a run of the frozen machine, and back), so the loop
// returns to a pair, and a trap found there is one of the real machine: a
// livelock no budget ends. A counter read in any other way (`c % 2`, `c <
// limit`, a parameter, another variable's set) is not frozen, and the
// verdict stays the bounds FAIL.

// counterStep is a set `c: c + k` of a counter the check may freeze: once
// c is past bound (above it when up, below when down), the step leaves c as
// it is.
type counterStep struct {
	slot  int
	up    bool
	bound float64 // the last constant a comparison reads c against (±Inf: none)
}

// past reports whether v is past the step's bound, where no comparison
// tells values apart.
func (s counterStep) past(v any) bool {
	f, ok := asFloat(v)
	if !ok {
		return false
	}
	if s.up {
		return f > s.bound
	}
	return f < s.bound
}

// counterInfo describes one counter the check freezes, for the report.
type counterInfo struct {
	name  string
	step  string // the set that steps it, as written
	bound float64
	up    bool
}

func (c counterInfo) String() string {
	if math.IsInf(c.bound, 0) {
		return fmt.Sprintf("%s only steps (%s: %s) and no guard compares it", c.name, c.name, c.step)
	}
	dir := "grows"
	if !c.up {
		dir = "shrinks"
	}
	return fmt.Sprintf("%s %s on every pass (%s: %s) and, past %s, no comparison that reads it changes", c.name, dir, c.name, c.step, formatBound(c.bound))
}

func formatBound(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%g", f)
}

// counters returns the steps of the variables of names the check may
// freeze (see above), and how the report names them; none when no variable
// of names qualifies.
func (x *Explorer) counters(names []string) (map[*mspec.Assign]counterStep, []counterInfo) {
	steps := map[*mspec.Assign]counterStep{}
	var infos []counterInfo
	for _, name := range names {
		s, ok := x.slot[name]
		v := x.spec.Var(name)
		if !ok || v == nil || v.Range != nil || (v.Type != mspec.TypeInt && v.Type != mspec.TypeFloat) {
			continue
		}
		if st, info, ok := x.counter(s, v); ok {
			for a, c := range st {
				steps[a] = c
			}
			infos = append(infos, info)
		}
	}
	if len(infos) == 0 {
		return nil, nil
	}
	return steps, infos
}

// counter decides whether the variable v (at slot) qualifies, and returns
// its steps.
func (x *Explorer) counter(slot int, v *mspec.Var) (map[*mspec.Assign]counterStep, counterInfo, bool) {
	info := counterInfo{name: v.Name}
	var stepSets []*mspec.Assign
	var bounds []float64
	dir := 0
	// reads checks an expression that is not a step of v: v may only be
	// compared with constants there.
	reads := func(src string) bool {
		u, ok := counterUses(src, v.Name)
		bounds = append(bounds, u.bounds...)
		return ok && u.other == 0
	}
	sets := func(as []*mspec.Assign) bool {
		for _, a := range as {
			u, ok := counterUses(a.Expr, v.Name)
			if !ok {
				return false
			}
			if a.Var != v.Name {
				if u.total > 0 { // another variable computed from v
					return false
				}
				continue
			}
			if u.total == 0 {
				continue // a reset
			}
			k, isStep := stepOf(a.Expr, v.Name)
			if !isStep || k == 0 || (dir > 0 && k < 0) || (dir < 0 && k > 0) {
				return false
			}
			dir = 1
			if k < 0 {
				dir = -1
			}
			if info.step == "" {
				info.step = a.Expr
			}
			stepSets = append(stepSets, a)
		}
		return true
	}
	for _, st := range x.spec.States {
		if !sets(st.Set) {
			return nil, info, false
		}
		for _, t := range st.Transitions() {
			if !reads(t.When) || !sets(t.Set) {
				return nil, info, false
			}
		}
		for _, c := range st.FinalRequires {
			if !reads(c.Expr) {
				return nil, info, false
			}
		}
	}
	for _, ev := range x.spec.Events {
		if !reads(ev.When) || !sets(ev.Set) {
			return nil, info, false
		}
	}
	for _, c := range x.spec.Invariants {
		if !reads(c.Expr) {
			return nil, info, false
		}
	}
	for _, st := range x.States {
		for _, p := range st.params {
			if slices.Contains(mspec.Identifiers(p.prog), v.Name) {
				return nil, info, false // a parameter: an emit's payload, a wait's duration, what can fail
			}
		}
	}
	if dir == 0 {
		return nil, info, false
	}
	info.up = dir > 0
	info.bound = math.Inf(-dir)
	for _, b := range bounds {
		if info.up {
			info.bound = math.Max(info.bound, b)
		} else {
			info.bound = math.Min(info.bound, b)
		}
	}
	out := map[*mspec.Assign]counterStep{}
	for _, a := range stepSets {
		out[a] = counterStep{slot: slot, up: info.up, bound: info.bound}
	}
	return out, info, true
}

// uses counts how an expression reads a variable: total occurrences, the
// constants the comparisons that read it compare it with, and the
// occurrences that are not such a comparison.
type uses struct {
	name   string
	total  int
	other  int
	bounds []float64
	bad    bool // the name is bound by a let: its occurrences are not the variable's
}

func (u *uses) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.IdentifierNode:
		if n.Value == u.name {
			u.total++
			u.other++
		}
	case *ast.VariableDeclaratorNode:
		u.bad = u.bad || n.Name == u.name
	case *ast.BinaryNode:
		if !slices.Contains(orderOps, n.Operator) {
			return
		}
		for _, side := range [][2]ast.Node{{n.Left, n.Right}, {n.Right, n.Left}} {
			if id, ok := side[0].(*ast.IdentifierNode); ok && id.Value == u.name {
				if k, ok := numConst(side[1]); ok {
					u.other-- // the identifier was counted as other when visited
					u.bounds = append(u.bounds, k)
					return
				}
			}
		}
	}
}

// counterUses parses src and counts how it reads name ("" reads nothing).
// ok is false when src cannot be read.
func counterUses(src, name string) (uses, bool) {
	u := uses{name: name}
	if strings.TrimSpace(src) == "" {
		return u, true
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return u, false
	}
	ast.Walk(&tree.Node, &u)
	return u, !u.bad
}

// stepOf reads `name + k`, `k + name` or `name - k` (k a number): the step.
func stepOf(src, name string) (float64, bool) {
	tree, err := parser.Parse(src)
	if err != nil {
		return 0, false
	}
	b, ok := tree.Node.(*ast.BinaryNode)
	if !ok || (b.Operator != "+" && b.Operator != "-") {
		return 0, false
	}
	isName := func(n ast.Node) bool {
		id, ok := n.(*ast.IdentifierNode)
		return ok && id.Value == name
	}
	if isName(b.Left) {
		if k, ok := numConst(b.Right); ok {
			if b.Operator == "-" {
				k = -k
			}
			return k, true
		}
	}
	if b.Operator == "+" && isName(b.Right) {
		if k, ok := numConst(b.Left); ok {
			return k, true
		}
	}
	return 0, false
}

// numConst reads a number written as a constant (`3`, `-2.5`).
func numConst(n ast.Node) (float64, bool) {
	switch c := n.(type) {
	case *ast.IntegerNode:
		return float64(c.Value), true
	case *ast.FloatNode:
		return c.Value, true
	case *ast.UnaryNode:
		if c.Operator == "-" {
			if k, ok := numConst(c.Node); ok {
				return -k, true
			}
		}
	}
	return 0, false
}

// livelock, after a check whose path spent the budget going round a loop
// that changes counters the check may freeze, and that found no trap,
// explores again with those counters frozen past their bounds; a trap found
// then is a livelock, and replaces rep's termination verdict. It returns
// whether it did.
func livelock(ctx context.Context, m *machine.Machine, opts CheckOptions, rep *CheckReport) bool {
	b, t := rep.Property(PropBounds), rep.Property(PropTermination)
	if b == nil || t == nil || b.Verdict != Fail || t.Verdict != Pass || b.Trace == nil || !rep.Complete {
		return false
	}
	_, changed, ok := budgetCycle(b.Trace)
	if !ok || len(changed) == 0 {
		return false
	}
	x := NewExplorer(m, opts)
	defer x.arena.release()
	defer func() {
		if x.restoreGC != nil {
			x.restoreGC()
		}
	}()
	steps, infos := x.counters(changed)
	if steps == nil {
		return false
	}
	x.frozen = steps
	x.run(ctx, time.Now())
	if x.stopped != "" || x.untriedNote() != "" {
		return false
	}
	x.store.dropTable()
	x.memo, x.memoOff = nil, true
	x.findTrap()
	f := x.findings[PropTermination]
	if f == nil {
		return false
	}
	what := make([]string, len(infos))
	for i, c := range infos {
		what[i] = c.String()
	}
	t.Verdict, t.Pos = Fail, f.pos
	t.Message = f.msg + "; " + strings.Join(what, "; ") + ": a livelock, which no budget ends"
	t.Trace = x.trace(f)
	t.Trace.Loop = f.loop
	b.Message = strings.Replace(b.Message, ": a livelock, unless a larger budget lets the loop end", ": a livelock (see termination)", 1)
	return true
}
