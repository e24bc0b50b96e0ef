package check

import (
	"context"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check/loopvar"
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

// counterStep is a set `c: c + k` of a counter the check may freeze (or
// `items: concat(items, [x])` of a list, read through len): once c is past
// bound (above it when up, below when down), the step leaves c as it is;
// or, when period is not 0 (an int read as `c % M` too), takes it round
// the period's first values past bound, which read alike with it.
type counterStep struct {
	slot   int
	up     bool
	bound  float64 // the last number a comparison reads c against (±Inf: none)
	period int64   // the least common multiple of the M of every `c % M` (0: none)
	list   bool
	state  string // the state whose set or transition steps it ("": an event's)
}

// past reports whether v is past the step's bound, where no comparison
// tells values apart.
func (s counterStep) past(v any) bool {
	f, ok := asFloat(v)
	if l, isList := v.([]any); s.list && isList {
		f, ok = float64(len(l)), true
	}
	if !ok {
		return false
	}
	if s.up {
		return f > s.bound
	}
	return f < s.bound
}

// wrap takes an int n past the bound to the value among the period's first
// values past it that is n modulo the period: both read alike (every
// comparison holds or fails for both, and `c % M` is the same: the bound
// keeps them on one side of 0).
func (s counterStep) wrap(n int) int {
	l := int(s.period)
	if s.up {
		p0 := int(math.Floor(s.bound)) + 1
		if n >= p0+l {
			n = p0 + (n-p0)%l
		}
		return n
	}
	p0 := int(math.Ceil(s.bound)) - 1
	if n <= p0-l {
		n = p0 - (p0-n)%l
	}
	return n
}

// counters returns the steps of the variables of names the check may
// freeze (see above), and how the report names them; none when no variable
// of names qualifies.
func (x *Explorer) counters(names []string) (map[*mspec.Assign]counterStep, []loopvar.Info) {
	steps := map[*mspec.Assign]counterStep{}
	var infos []loopvar.Info
	for _, name := range names {
		s, ok := x.slot[name]
		v := x.spec.Var(name)
		if !ok || v == nil || v.Range != nil || (v.Type != mspec.TypeInt && v.Type != mspec.TypeFloat && v.Type != mspec.TypeList) {
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
func (x *Explorer) counter(slot int, v *mspec.Var) (map[*mspec.Assign]counterStep, loopvar.Info, bool) {
	list := v.Type == mspec.TypeList
	info := loopvar.Info{Name: v.Name, List: list}
	var stepSets []*mspec.Assign
	var bounds []loopvar.Bound
	dir := 0
	// reads checks an expression that is not a step of v: v may only be
	// compared with numbers or expressions of constants there, or read
	// through `v % M`.
	reads := func(src string) bool {
		u, ok := loopvar.Of(src, v.Name, list)
		bounds = append(bounds, u.Bounds...)
		info.Moduli = append(info.Moduli, u.Moduli...)
		return ok && u.Other == 0
	}
	owner := map[*mspec.Assign]string{}
	sets := func(as []*mspec.Assign, state string) bool {
		for _, a := range as {
			u, ok := loopvar.Of(a.Expr, v.Name, list)
			if !ok {
				return false
			}
			if a.Var != v.Name {
				if u.Total > 0 { // another variable computed from v
					return false
				}
				continue
			}
			if u.Total == 0 {
				continue // a reset
			}
			k, isStep := loopvar.Step(a.Expr, v.Name, list)
			if !isStep || k == 0 || (dir > 0 && k < 0) || (dir < 0 && k > 0) {
				return false
			}
			dir = 1
			if k < 0 {
				dir = -1
			}
			if info.Step == "" {
				info.Step = a.Expr
			}
			stepSets = append(stepSets, a)
			owner[a] = state
		}
		return true
	}
	for _, st := range x.spec.States {
		if !sets(st.Set, st.Name) {
			return nil, info, false
		}
		for _, t := range st.Transitions() {
			if !reads(t.When) || !sets(t.Set, st.Name) {
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
		if !reads(ev.When) || !sets(ev.Set, "") {
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
	if dir == 0 || len(info.Moduli) > 0 && v.Type != mspec.TypeInt {
		return nil, info, false
	}
	period, ok := loopvar.LCM(info.Moduli)
	if !ok {
		return nil, info, false
	}
	slices.Sort(info.Moduli)
	info.Up = dir > 0
	info.Bound = math.Inf(-dir)
	for _, b := range bounds {
		vals, ok := x.constValues(b.Expr)
		if !ok {
			return nil, info, false
		}
		for _, val := range vals {
			f := val - b.Shift
			if info.Up && f > info.Bound || !info.Up && f < info.Bound {
				info.Bound, info.From = f, ""
				if _, lit := loopvar.Number(mustParse(b.Expr)); !lit {
					info.From = b.Expr
				}
			}
		}
	}
	if period > 0 {
		// values past the bound on one side of 0, where c % M reads the
		// residue alike
		if info.Up {
			info.Bound = math.Max(info.Bound, -1)
		} else {
			info.Bound = math.Min(info.Bound, 1)
		}
	}
	out := map[*mspec.Assign]counterStep{}
	for _, a := range stepSets {
		out[a] = counterStep{slot: slot, up: info.Up, bound: info.Bound, period: period, list: list, state: owner[a]}
	}
	return out, info, true
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
	// Every loop variable of the spec is held, not only those the budget's
	// path changes at its end: that path is one of many (an event from
	// outside may end it), and holding a variable the loop does not step
	// changes no move.
	names := make([]string, len(m.Spec().Context))
	for i, v := range m.Spec().Context {
		names[i] = v.Name
	}
	x := NewExplorer(m, opts)
	defer x.arena.release()
	defer func() {
		if x.restoreGC != nil {
			x.restoreGC()
		}
	}()
	steps, infos := x.counters(names)
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
	var what, all []string
	for _, c := range infos {
		all = append(all, c.String())
		for _, st := range steps {
			if x.spec.Var(c.Name) == x.Vars[st.slot] && (st.state == "" || slices.Contains(f.loop, st.state)) {
				what = append(what, c.String()) // a variable the trap's cycle steps
				break
			}
		}
	}
	if len(what) == 0 {
		what = all
	}
	t.Verdict, t.Pos = Fail, f.pos
	t.Message = f.msg + "; " + strings.Join(what, "; ") + ": a livelock, which no budget ends"
	t.Trace = x.trace(f)
	t.Trace.Loop = f.loop
	if msg := strings.Replace(b.Message, ": a livelock, unless a larger budget lets the loop end", ": a livelock (see termination)", 1); msg != b.Message {
		b.Message = msg
	} else {
		b.Message += "; a livelock (see termination)"
	}
	return true
}

// constValues evaluates src, the other side of a comparison with a
// counter, at every value a run can start it from: it may read variables
// no set and no action writes (a limit), which keep the value the run
// starts from (their default, the value given, every value of a free
// input). ok is false when src reads anything else, or a value is not a
// number.
func (x *Explorer) constValues(src string) ([]float64, bool) {
	var names []string
	var doms [][]any
	for _, n := range loopvar.Names(src) {
		s, ok := x.slot[n]
		if !ok || s == x.lastErr || x.written(n, s) {
			return nil, false
		}
		dom := []any{x.initial[s]}
		if i := slices.Index(x.free, s); i >= 0 {
			dom = x.freeDoms[i]
		}
		names, doms = append(names, n), append(doms, dom)
	}
	var out []float64
	idx := make([]int, len(doms))
	for range 4096 {
		env := map[string]any{}
		for i, n := range names {
			env[n] = doms[i][idx[i]]
		}
		val, err := expr.Eval(src, env)
		f, ok := asFloat(val)
		if err != nil || !ok || math.IsNaN(f) {
			return nil, false
		}
		out = append(out, f)
		i := 0
		for ; i < len(idx); i++ {
			if idx[i]++; idx[i] < len(doms[i]) {
				break
			}
			idx[i] = 0
		}
		if i == len(idx) {
			return out, true
		}
	}
	return nil, false
}

// written reports whether a set or an action writes the variable name (at
// slot s).
func (x *Explorer) written(name string, s int) bool {
	by := func(as []*mspec.Assign) bool {
		return slices.ContainsFunc(as, func(a *mspec.Assign) bool { return a.Var == name })
	}
	for _, st := range x.spec.States {
		if by(st.Set) || slices.ContainsFunc(st.Transitions(), func(t *mspec.Transition) bool { return by(t.Set) }) {
			return true
		}
	}
	for _, ev := range x.spec.Events {
		if by(ev.Set) {
			return true
		}
	}
	for _, st := range x.States {
		if slices.Contains(st.Writes, s) {
			return true
		}
	}
	return false
}

// mustParse parses src (an expression printed from a parsed one).
func mustParse(src string) ast.Node {
	tree, err := parser.Parse(src)
	if err != nil {
		return nil
	}
	return tree.Node
}
