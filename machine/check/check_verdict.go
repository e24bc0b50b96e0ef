package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lppctl/lppctl/internal/textx"
	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// verdicts decides every property from what the exploration found.
func (x *Explorer) verdicts() []PropertyResult {
	if x.findings[PropTermination] == nil {
		x.findTrap()
	}
	complete := x.stopped == ""
	var out []PropertyResult
	for _, prop := range propertyOrder {
		r := PropertyResult{Property: prop, Title: propertyTitles[prop], Verdict: Pass}
		if prop == PropReachable {
			x.reachability(&r)
		} else if f := x.findings[prop]; f != nil {
			r.Verdict, r.Message, r.Pos = Fail, f.msg, f.pos
			r.Trace = x.trace(f)
			r.Trace.Loop = f.loop
			if f.budget {
				r.Message += budgetLoop(r.Trace)
			}
		} else if !complete && x.passNote(prop) != "none declared" { // nothing declared: nothing to decide
			r.Verdict, r.Message = Unknown, "the exploration stopped before deciding it ("+x.stopped+")"
		} else if u := x.untriedNote(); u != "" && x.passNote(prop) != "none declared" {
			r.Verdict, r.Message = Unknown, u
		}
		if r.Verdict == Pass {
			r.Message = x.passNote(prop)
		}
		out = append(out, r)
	}
	return out
}

// untriedNote says which values the check left untried (ranges wider than
// maxRangeValues, events with more than maxPayloads payloads), or "".
func (x *Explorer) untriedNote() string {
	parts := slices.Clone(x.untried)
	hint := "narrow the range to decide it"
	for _, ev := range slices.Compact(slices.Clone(x.sampled)) {
		parts = append(parts, fmt.Sprintf("event %s: the first %d of its payloads", ev, maxPayloads))
		hint = "narrow the ranges, or the payload fields' values, to decide it"
	}
	if x.clock != "" {
		if len(parts) == 0 {
			hint = "to decide it, compute the time in an action (its write takes every value) or take it as an input (--inputs)"
		} else {
			hint += "; compute the time in an action or take it as an input"
		}
		parts = append(parts, x.clock+" calls now(): the check read the clock once, a run reads it at another time")
	}
	if len(parts) == 0 {
		return ""
	}
	return "not every value was tried (" + strings.Join(parts, "; ") + "); " + hint
}

// passNote says what a PASS covered, when there is something to say.
func (x *Explorer) passNote(prop string) string {
	switch prop {
	case PropInvariants:
		if len(x.spec.Invariants) == 0 {
			return "none declared"
		}
		return textx.Count(len(x.spec.Invariants), "invariant", "invariants") + " " + textx.Plural(len(x.spec.Invariants), "holds", "hold")
	case PropFinalRequires:
		n := 0
		for _, st := range x.spec.States {
			n += len(st.FinalRequires)
		}
		if n == 0 {
			return "none declared"
		}
		return textx.Count(n, "condition", "conditions") + " " + textx.Plural(n, "holds", "hold")
	}
	return ""
}

// reachability reports the states no explored path reached.
func (x *Explorer) reachability(r *PropertyResult) {
	var missed []string
	var first *mspec.State
	finals := 0
	for _, st := range x.States {
		if st.reached {
			if st.final {
				finals++
			}
			continue
		}
		missed = append(missed, st.Cs.St.Name)
		if first == nil {
			first = st.Cs.St
		}
	}
	switch {
	case len(missed) == 0 && finals > 0:
		return
	case x.stopped != "":
		r.Verdict, r.Message = Unknown, fmt.Sprintf("%s not reached yet when the exploration stopped (%s)", mspec.QuoteList(missed), x.stopped)
	case x.untriedNote() != "":
		r.Verdict, r.Message = Unknown, fmt.Sprintf("%s not reached under the values tried: %s", mspec.QuoteList(missed), x.untriedNote())
	case len(missed) == 0:
		r.Verdict, r.Message = Fail, "the spec has no final state"
	default:
		r.Verdict, r.Pos = Fail, first.Pos
		var finalsMissed []string
		for _, name := range missed {
			if x.spec.State(name).Final {
				finalsMissed = append(finalsMissed, name)
			}
		}
		if len(missed) == 1 {
			r.Message = fmt.Sprintf("no path reaches state %q under the values explored", missed[0])
		} else {
			r.Message = fmt.Sprintf("no path reaches states %s under the values explored", mspec.QuoteList(missed))
		}
		if len(finalsMissed) > 0 {
			r.Message += fmt.Sprintf(" (final: %s)", mspec.QuoteList(finalsMissed))
		}
		if finals == 0 {
			r.Message += "; no final state is reachable"
		}
	}
}

// findTrap looks for a reached pair from which no final state (nor any stop
// of the run, already reported by other properties, nor any pair left
// unexplored) can be reached: the run would loop there for ever.
func (x *Explorer) findTrap() {
	n := x.nodes.len()
	good := make([]bool, n)
	for id := range n {
		good[id] = x.flags.at(id) != 0
	}
	if !x.reachGoodForward(good, trapForwardPasses) {
		x.reachGoodBackward(good)
	}
	for id := range n {
		if good[id] {
			continue
		}
		st := x.States[x.stateOf(int32(id))].Cs.St
		// The counterexample is the shortest path to the pair where the
		// cycle is entered, then the cycle: a path a reader can replay.
		entry, loop := x.loopFrom(int32(id))
		x.findings[PropTermination] = &finding{node: entry, move: -1, pos: st.Pos, loop: loop,
			msg: fmt.Sprintf("from state %q no final state can be reached: the run is caught in %s until max_transitions", st.Name, strings.Join(loop, " → "))}
		return
	}
}

// trapForwardPasses bounds the passes of reachGoodForward before the trap
// search falls back to reverse edges.
var trapForwardPasses = 8

// reachGoodForward marks good every expanded pair with a successor marked
// good, passing over the pairs from the last to the first until a pass
// changes nothing, and reports whether that happened within passes. Ids are
// in breadth-first order, so most edges lead to a later pair, already marked
// in the same pass: a pass or two usually settle it, and no memory beyond
// good is needed (reverse edges would take 4 bytes a successor and 4 a pair).
func (x *Explorer) reachGoodForward(good []bool, passes int) bool {
	for range passes {
		changed := false
		for id := x.expanded - 1; id >= 0; id-- {
			if good[id] {
				continue
			}
			for e, end := int(x.succStart.at(id)), int(x.succStart.at(id+1)); e < end; e++ {
				if good[x.succ.at(e)] {
					good[id], changed = true, true
					break
				}
			}
		}
		if !changed {
			return true
		}
	}
	return false
}

// reachGoodBackward marks good every pair from which a pair marked good can
// be reached, searching the reverse edges from the good pairs.
func (x *Explorer) reachGoodBackward(good []bool) {
	n := x.nodes.len()
	var queue []int32
	for id := range n {
		if good[id] {
			queue = append(queue, int32(id))
		}
	}
	// Reverse edges, in compressed rows.
	// start[i] is first the end of row i; each row is filled from its end,
	// which leaves start[i] at its beginning.
	start := make([]int32, n+1)
	for e := range x.succ.len() {
		start[x.succ.at(e)]++
	}
	for i := 1; i < n; i++ {
		start[i] += start[i-1]
	}
	start[n] = int32(x.succ.len())
	pred := make([]int32, x.succ.len())
	for from := x.expanded - 1; from >= 0; from-- {
		for e, end := int(x.succStart.at(from)), int(x.succStart.at(from+1)); e < end; e++ {
			to := x.succ.at(e)
			start[to]--
			pred[start[to]] = int32(from)
		}
	}
	for head := 0; head < len(queue); head++ {
		for _, p := range pred[start[queue[head]]:start[queue[head]+1]] {
			if !good[p] {
				good[p] = true
				queue = append(queue, p)
			}
		}
	}
}

// loopFrom follows the first successor of each pair from id until a pair
// repeats, and returns the pair the cycle starts at and the names of the
// cycle's states.
func (x *Explorer) loopFrom(id int32) (int32, []string) {
	at := map[int32]int{}
	var path []int32
	for {
		if i, ok := at[id]; ok {
			var names []string
			for _, p := range path[i:] {
				names = append(names, x.States[x.stateOf(p)].Cs.St.Name)
			}
			return id, append(names, names[0])
		}
		at[id] = len(path)
		path = append(path, id)
		if int(id) >= x.expanded || x.succStart.at(int(id)) == x.succStart.at(int(id)+1) {
			return id, []string{x.States[x.stateOf(int32(id))].Cs.St.Name}
		}
		id = x.succ.at(int(x.succStart.at(int(id))))
	}
}

// trace rebuilds the shortest path to a finding by replaying the moves from
// its initial pair (expansion is deterministic, so ordinals identify moves).
func (x *Explorer) trace(f *finding) *Trace {
	var ords []int32
	for id := f.node; x.nodes.at(int(id)).parent >= 0; id = x.nodes.at(int(id)).parent {
		ords = append(ords, x.nodes.at(int(id)).move)
	}
	slices.Reverse(ords)
	if f.move >= 0 {
		ords = append(ords, f.move)
	}
	st := x.States[x.stateIdx[x.spec.Initial]]
	vals, inputs := x.rootOf(f.node)
	tr := &Trace{Steps: []TraceStep{}, Inputs: inputs}
	x.tracing = true
	defer func() { x.tracing = false }()
	var offered [][]eventOffer // by step: the events from outside the state takes after the action did what the step says
	for _, ord := range ords {
		var step TraceStep
		var to *Xstate
		var next []any
		var offers []eventOffer
		chosen := ""
		x.expand(st, x.idsOf(vals), func(o int32, mv *move) bool {
			if mv.kind == moveEvent && !mv.emitted {
				var given map[string]any
				if mv.payload < len(mv.ev.given) {
					given = mv.ev.given[mv.payload]
				}
				offers = append(offers, eventOffer{ev: mv.ev.Name, payload: givenKey(given), outcome: outcomeKey(mv)})
			}
			if o == ord {
				step, to, next = x.traceStep(st, mv), mv.to, slices.Clone(mv.vals)
				chosen = outcomeKey(mv)
			}
			return true
		})
		offers = slices.DeleteFunc(offers, func(e eventOffer) bool { return e.outcome != chosen })
		tr.Steps = append(tr.Steps, step)
		offered = append(offered, offers)
		if to == nil {
			break
		}
		x.canon(to, next)
		st, vals = to, next
	}
	x.deliveries(tr, offered)
	return tr
}

// traceStep describes one move for a trace.
func (x *Explorer) traceStep(st *Xstate, mv *move) TraceStep {
	s := TraceStep{From: st.Cs.St.Name, Via: mv.via(), Pos: st.Cs.St.Pos}
	if mv.to != nil {
		s.To = mv.to.Cs.St.Name
	}
	switch {
	case mv.trans != nil:
		s.Guard, s.Pos = mv.trans.T.When, mv.trans.T.Pos
	}
	if mv.kind == moveEvent && !mv.emitted {
		s.Event = mv.ev.Name
		if mv.payload < len(mv.ev.given) && len(mv.ev.given[mv.payload]) > 0 {
			s.Payload = mv.ev.given[mv.payload]
		}
	}
	if mv.kind == moveError || mv.errVal != "" {
		s.Error = mv.errVal
	} else {
		for i, slot := range st.Writes {
			if i < len(mv.outcome) && st.afterAction[slot] {
				if s.Wrote == nil {
					s.Wrote = map[string]any{}
				}
				s.Wrote[x.slotName(slot)] = mv.outcome[i]
			}
		}
	}
	for _, slot := range mv.changed {
		if s.Vars == nil {
			s.Vars = map[string]any{}
		}
		s.Vars[x.slotName(slot)] = mv.vals[slot]
	}
	return s
}

func (x *Explorer) slotName(slot int) string {
	if slot == x.lastErr {
		return mspec.VarLastError
	}
	return x.Vars[slot].Name
}

// deadTransitions lists what no explored path took, in reached states (only
// when the exploration is complete: otherwise a later path might).
func (x *Explorer) deadTransitions() []DeadTransition {
	out := []DeadTransition{}
	if x.stopped != "" {
		return out
	}
	for _, st := range x.States {
		if !st.reached {
			continue
		}
		for i, taken := range st.nextTaken {
			// A fail state's next is never taken, but validation wants one:
			// not a warning its author could act on.
			if !taken && !st.fails {
				ct := st.Cs.Next[i]
				out = append(out, DeadTransition{State: st.Cs.St.Name, Via: ct.Via, To: ct.Target, Guard: ct.T.When, Pos: ct.T.Pos})
			}
		}
		if oe := st.Cs.OnError; oe != nil && !st.errTaken {
			out = append(out, DeadTransition{State: st.Cs.St.Name, Via: "on_error", To: oe.Target, Pos: oe.T.Pos})
		}
	}
	reported := map[*machine.Ctrans]bool{}
	for _, st := range x.States {
		if !st.reached {
			continue
		}
		for _, ev := range st.Events {
			for i, ct := range ev.Trans {
				switch {
				case ct.Global && (x.globalTaken[ct] || reported[ct]):
				case ct.Global:
					reported[ct] = true
					out = append(out, DeadTransition{Via: "event " + ev.Name, To: ct.Target, Guard: ct.T.When, Pos: ct.T.Pos})
				case !ev.taken[i]:
					out = append(out, DeadTransition{State: st.Cs.St.Name, Via: ct.Via, To: ct.Target, Guard: ct.T.When, Pos: ct.T.Pos})
				}
			}
		}
	}
	return out
}

// DomainSource says where the values an action's write of v takes come
// from: "declared" (the action writes only these: machine.VarSpec.Values),
// else Domain's source ("enum", "compared", ...).
func (x *Explorer) DomainSource(v *mspec.Var) string {
	if s, ok := x.slot[v.Name]; ok && x.declared[s] {
		return "declared"
	}
	_, src := x.Cmp.Domain(v)
	return src
}

// domainReport lists the values given to every variable an action writes,
// and to last_error on error routes.
func (x *Explorer) domainReport() []VarDomain {
	out := []VarDomain{}
	seen := map[int]bool{}
	var errVals []any // the failures' texts, every state's (a fail's is its message)
	for _, st := range x.States {
		for _, v := range st.ErrVals {
			if !slices.Contains(errVals, v) {
				errVals = append(errVals, v)
			}
		}
		for i, slot := range st.Writes {
			if seen[slot] {
				continue
			}
			seen[slot] = true
			out = append(out, VarDomain{Var: x.Vars[slot].Name, Values: st.Domains[i], Source: x.DomainSource(x.Vars[slot])})
		}
	}
	slices.SortFunc(out, func(a, b VarDomain) int { return x.slot[a.Var] - x.slot[b.Var] })
	if errVals != nil {
		out = append(out, VarDomain{Var: mspec.VarLastError, Values: errVals, Source: "error"})
	}
	return out
}
