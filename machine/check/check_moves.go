package check

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr/vm"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

type moveKind int

const (
	moveNext  moveKind = iota // a next transition
	moveError                 // the on_error route of a failed action
	moveEvent                 // an external event
	moveEnd                   // the run ends (final state) or stops (a violation)
)

// move is one way out of a (state, values) pair: an outcome of the state's
// action followed by a transition, or the end of the run there.
type move struct {
	kind    moveKind
	outcome []any  // values the action wrote (aligned with the state's writes); nil when it failed or writes nothing
	errVal  string // the failure's last_error (moveError)
	trans   *machine.Ctrans
	ev      *xevent   // an event's move: trans is the transition it takes
	evTrans int       // index of trans in ev.trans
	payload int       // index of the event's value in ev.payloads
	to      *Xstate   // nil for moveEnd
	vals    []any     // the values entering to (scratch: valid during the callback)
	ids     []uint32  // their ids (valueTable), aligned with vals
	changed []int     // slots a set changed (for traces)
	setMemo *setProgs // memosOf(trans.Set)
	prop    string    // moveEnd: the property it violates ("" for a clean end)
	failed  bool      // moveEnd: the run fails there (an action that always fails, no on_error)
	msg     string
	pos     mspec.Pos
	// emitted: the event the state's action emitted with a payload, shown
	// by traces as emitLabel
	emitted   bool
	emitLabel string
}

// expand calls visit for every move out of (st, values), in a fixed order
// (the order a trace's ordinals refer to): for each outcome of the action
// (each combination of the values its writes take, then each failure when
// the state has on_error), the moves enabled after it. visit returns false
// to stop. The move and its values are valid only during the call.
//
// The values are given by their ids (valueTable); a move carries the ids
// of the values it leads to, and, while a trace is computed, the values
// (mv.vals): the search itself never copies a value.
//
// visit nil is the search's: Explorer.visit of the node x.from at depth
// x.fromDepth (a direct call: this is the check's innermost loop).
func (x *Explorer) expand(st *Xstate, ids []uint32, visit func(ord int32, mv *move) bool) {
	x.ord, x.visitFn = 0, visit
	x.load(st, ids)
	clear(x.guardCache[:len(st.edges)])
	if len(st.params) > 0 || st.emitCe != nil {
		if serr := x.evalParams(st); serr != nil {
			x.paramFailure(st, ids, serr)
			return
		}
	}
	doms := st.outcomes
	idx := x.odometer[:0]
	for range doms {
		idx = append(idx, 0)
	}
	x.odometer = idx
	outcome := x.outcomeBuf[:0]
	outIDs := x.outcomeIDs[:0]
	for range doms {
		outcome = append(outcome, nil)
		outIDs = append(outIDs, 0)
	}
	x.outcomeBuf, x.outcomeIDs = outcome, outIDs
	for !st.fails {
		for i := range doms {
			outcome[i] = doms[i][idx[i]]
			outIDs[i] = st.outcomeIDs[i][idx[i]]
		}
		if !x.outcome(st, ids, outcome, outIDs) {
			return
		}
		i := 0
		for ; i < len(idx); i++ {
			idx[i]++
			if idx[i] < len(doms[i]) {
				break
			}
			idx[i] = 0
		}
		if i == len(idx) {
			break
		}
	}
	for i, ev := range st.ErrVals {
		if !x.failure(st, ids, ev.(string), st.errIDs[i]) {
			return
		}
	}
	if st.fails && st.Cs.OnError == nil {
		x.end = move{kind: moveEnd, failed: true, ids: ids}
		x.emit(&x.end)
	}
}

// paramFailure explores st's action failing because a parameter cannot be
// evaluated: its on_error route with each error text, or the run fails
// there ("expressions evaluate").
func (x *Explorer) paramFailure(st *Xstate, ids []uint32, serr *stopErr) {
	if st.Cs.OnError == nil {
		x.end = move{kind: moveEnd, ids: ids, prop: PropEvaluation, msg: serr.msg, pos: serr.pos}
		x.emit(&x.end)
		return
	}
	vals, vids := st.ErrVals, st.errIDs
	if vals == nil {
		vals, vids = st.paramErrVals, st.paramErrIDs
	}
	for i, ev := range vals {
		if !x.failure(st, ids, ev.(string), vids[i]) {
			return
		}
	}
}

// emit hands a move to expand's visitor, with its ordinal.
func (x *Explorer) emit(mv *move) bool {
	var ok bool
	if x.visitFn == nil {
		ok = x.visit(x.from, x.fromDepth, x.ord, mv)
	} else {
		if x.tracing && mv.ids != nil {
			mv.vals = x.valuesOf(mv.ids)
		}
		ok = x.visitFn(x.ord, mv)
	}
	x.ord++
	return ok
}

// valuesOf returns the values of ids (a new slice: traces keep it).
func (x *Explorer) valuesOf(ids []uint32) []any {
	vals := make([]any, len(ids))
	for s, id := range ids {
		vals[s] = x.values.values[id]
	}
	return vals
}

// idsOf interns vals and returns their ids.
func (x *Explorer) idsOf(vals []any) []uint32 {
	ids := make([]uint32, len(vals))
	for s, v := range vals {
		ids[s] = x.values.id(v)
	}
	return ids
}

// outcome explores one successful outcome of st's action.
func (x *Explorer) outcome(st *Xstate, ids []uint32, outcome []any, outIDs []uint32) bool {
	x.restoreEnv(ids, 0)
	curIDs := append(x.curIDs[:0], ids...)
	x.curIDs = curIDs
	for i, s := range st.Writes {
		curIDs[s] = outIDs[i]
		x.setEnv(s, outcome[i], outIDs[i])
	}
	changed, bad := x.assign(st.Cs.Set, st.setMemo, curIDs, assignState, st, nil)
	if bad != nil {
		bad.outcome = outcome
		return x.emit(bad)
	}
	if st.final {
		mv := &x.end
		*mv = move{kind: moveEnd, outcome: outcome, changed: changed, ids: curIDs}
		for _, c := range st.reqs {
			if c.prog == nil {
				continue
			}
			ok, err := x.eval(c.prog)
			if err != nil {
				msg, pos := x.evalFailure(err, c.c.Expr, c.c.ExprPos)
				mv.prop, mv.msg, mv.pos = PropEvaluation, fmt.Sprintf("%s cannot be evaluated: %s", c.label, msg), pos
				break
			}
			if ok != true {
				mv.prop, mv.msg, mv.pos = PropFinalRequires, fmt.Sprintf("the run ends in %q but %s (%s) is false: %s", st.Cs.St.Name, c.label, c.c.Expr, saw(x.syncEnv(), c.prog)), c.c.Pos
				break
			}
		}
		return x.emit(mv)
	}
	choices, err := x.enabled(st)
	if err != nil {
		x.end = move{kind: moveEnd, outcome: outcome, changed: changed, ids: curIDs, prop: PropEvaluation, msg: err.msg, pos: err.pos}
		return x.emit(&x.end)
	}
	if len(choices) == 0 {
		x.end = move{kind: moveEnd, outcome: outcome, changed: changed, ids: curIDs, prop: PropDeadlock, msg: x.stuckMessage(st), pos: st.Cs.St.Pos}
		return x.emit(&x.end)
	}
	if len(st.Cs.Next) > 0 && choices[len(choices)-1].e == nil && !choices[0].byAction {
		// Only events from outside can move it: a state with next does not
		// wait for one (spec.md, "How a spec runs"), so a run with no event
		// pending fails here. The events are still explored, as the runs
		// that had one pending.
		x.end = move{kind: moveEnd, outcome: outcome, changed: changed, ids: curIDs, prop: PropDeadlock, msg: x.stuckUnlessPending(st, choices), pos: st.Cs.St.Pos}
		if !x.emit(&x.end) {
			return false
		}
	}
	mark := len(x.dirty)
	for _, c := range choices {
		x.restoreEnv(curIDs, mark)
		nextIDs := append(x.nextIDs[:0], curIDs...)
		x.nextIDs = nextIDs
		mv := &x.mv
		var more []int
		var bad *move
		if c.ev != nil {
			*mv = move{kind: moveEvent, ev: c.ev, trans: c.ev.Trans[c.evTrans], evTrans: int(c.evTrans), payload: int(c.payload), to: c.ev.to[c.evTrans], setMemo: c.ev.setMemo[c.evTrans]}
			mv.ev.taken[mv.evTrans] = true
			if mv.trans.Global {
				x.globalTaken[mv.trans] = true
			}
			x.env[mspec.VarEvent] = mv.ev.Payloads[mv.payload]
			if c.emitted {
				x.env[mspec.VarEvent] = x.emitVal
				mv.emitted, mv.emitLabel = true, x.emitLabel
			}
			more, bad = x.assign(mv.trans.Set, mv.setMemo, nextIDs, assignEvent, st, mv)
			delete(x.env, mspec.VarEvent)
		} else {
			*mv = move{kind: moveNext, trans: c.e.trans, to: c.e.to, setMemo: c.e.setMemo}
			st.nextTaken[mv.trans.Index] = true
			more, bad = x.assign(mv.trans.Set, mv.setMemo, nextIDs, assignTransition, st, mv)
		}
		if bad != nil {
			bad.outcome = outcome
			if !x.emit(bad) {
				return false
			}
			continue
		}
		nextIDs[x.lastErr] = x.defIDs[x.lastErr] // a handled error is cleared by the next normal step
		mv.outcome, mv.ids = outcome, nextIDs
		if x.tracing {
			mv.changed = append(slices.Clone(changed), more...)
		}
		if !x.emit(mv) {
			return false
		}
	}
	return true
}

// failure explores st's action failing with last_error errVal.
func (x *Explorer) failure(st *Xstate, ids []uint32, errVal string, errID uint32) bool {
	x.restoreEnv(ids, 0)
	curIDs := append(x.curIDs[:0], ids...)
	x.curIDs = curIDs
	curIDs[x.lastErr] = errID
	x.setEnv(x.lastErr, errVal, errID)
	oe := st.Cs.OnError
	st.errTaken = true
	errMove := &x.errMove
	*errMove = move{kind: moveError, errVal: errVal, trans: oe}
	changed, bad := x.assign(oe.Set, nil, curIDs, assignTransition, st, errMove)
	if bad != nil {
		bad.errVal = errVal
		return x.emit(bad)
	}
	errMove.to, errMove.ids, errMove.changed = x.States[x.stateIdx[oe.Target]], curIDs, changed
	return x.emit(errMove)
}

// stopErr is a guard that could not be evaluated.
type stopErr struct {
	msg string
	pos mspec.Pos
}

// edge is a way out of a state as the spec writes it: an event (ev set) or
// a next transition (trans set). newExplorer lists a state's edges once, in
// the order they are tried; enabled decides which fire, and the liveness and
// relevance analyses read their guards and sets. A new kind of edge (such as
// a waiting state's on: list) is a new case here and in enabled.
type edge struct {
	guard *vm.Program
	set   []machine.Cassign
	to    *Xstate
	ev    *xevent         // an event's transition (trans is it): per event and payload, the first whose guard holds fires
	trans *machine.Ctrans // else a next transition: only the first whose guard holds fires

	guardMemo *memoProg // memoOf(guard)
	setMemo   *setProgs // memosOf(set)
	// hoisted: the guard reads nothing the state's action or set writes, so
	// every outcome of an expansion sees the same value: it is evaluated
	// once per expansion (Explorer.guardCache).
	hoisted bool
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// edgesOf lists the edges out of st: its events, then its next transitions.
func (x *Explorer) edgesOf(st *Xstate) []edge {
	var out []edge
	for _, ev := range st.Events {
		for i, ct := range ev.Trans {
			out = append(out, edge{guard: ct.Guard, set: ct.Set, to: ev.to[i], ev: ev, trans: ct})
		}
	}
	for _, ct := range st.Cs.Next {
		out = append(out, edge{guard: ct.Guard, set: ct.Set, to: x.States[x.stateIdx[ct.Target]], trans: ct})
	}
	return out
}

// choice is a way out enabled in a state: a next transition's edge, or
// an event's transition (ev.Trans[evTrans]) with one of its payloads.
type choice struct {
	e                *edge
	ev               *xevent
	evTrans, payload int32
	emitted          bool // the event the action emitted with a payload (Explorer.emitVal)
	byAction         bool // the event the action emitted (with a payload or not)
}

// enabled returns the ways out that can fire in st with the values in env,
// after the action and the state's set: every event that applies (its
// guard holds), then the first next transition whose guard holds. It is the
// one place that decides how a state is left.
func (x *Explorer) enabled(st *Xstate) ([]choice, *stopErr) {
	out := x.choices[:0]
	if ev := st.emits; ev != nil {
		// The event the action emitted comes first: when it applies, it is
		// taken, and neither other events nor next are looked at (spec.md,
		// "How a spec runs"); when it does not, it is dropped.
		val := ev.Payloads[0]
		if st.emitCe != nil {
			val = x.emitVal
		}
		i, serr := x.eventTakes(st, ev, val)
		if serr != nil {
			return nil, serr
		}
		if i >= 0 {
			out = append(out, choice{ev: ev, evTrans: int32(i), emitted: st.emitCe != nil, byAction: true})
			x.choices = out[:0]
			return out, nil
		}
	}
	for _, ev := range st.Events {
		if ev.sampled && !ev.sampledNoted {
			x.noteSampled(ev)
		}
		for p, val := range ev.Payloads {
			i, serr := x.eventTakes(st, ev, val)
			if serr != nil {
				return nil, serr
			}
			if i >= 0 {
				out = append(out, choice{ev: ev, evTrans: int32(i), payload: int32(p)})
			}
		}
	}
	defer func() { x.choices = out[:0] }() // the buffer, grown, for the next call
	for i := range st.edges {
		e := &st.edges[i]
		if e.trans == nil || e.ev != nil {
			continue // events were tried above
		}
		if e.guard != nil {
			var ok bool
			if c := x.guardCache[i]; e.hoisted && c != 0 {
				ok = c == 2
			} else {
				var err error
				ok, err = x.holds(e.guard, e.guardMemo)
				if err != nil && !x.spec.GuardErrorsFalse {
					return nil, x.guardError(st, e, err)
				}
				ok = ok && err == nil // guard_errors: as_false, as the run takes it
				if e.hoisted {
					x.guardCache[i] = 1 + int8(b2i(ok))
				}
			}
			if !ok {
				continue
			}
		}
		out = append(out, choice{e: e})
		break
	}
	return out, nil
}

// stuckUnlessPending describes a state with next whose guards are all
// false, which only an event already pending can move on.
func (x *Explorer) stuckUnlessPending(st *Xstate, choices []choice) string {
	var names []string
	for _, c := range choices {
		if !slices.Contains(names, c.ev.Name) {
			names = append(names, c.ev.Name)
		}
	}
	return fmt.Sprintf("state %q is stuck: every guard is false: %s; only an event pending from outside (%s) could move it, and a state with next does not wait for one", st.Cs.St.Name, machine.GuardsSaw(st.Cs, x.syncEnv()), strings.Join(names, ", "))
}

// guardError describes an edge's guard that could not be evaluated.
func (x *Explorer) guardError(st *Xstate, e *edge, err error) *stopErr {
	msg, pos := x.evalFailure(err, e.trans.T.When, e.trans.T.WhenPos)
	if e.ev != nil {
		return &stopErr{fmt.Sprintf("guard %q of event %q cannot be evaluated in state %q: %s", e.trans.T.When, e.ev.Name, st.Cs.St.Name, msg), pos}
	}
	return &stopErr{fmt.Sprintf("guard %q of state %q cannot be evaluated: %s", e.trans.T.When, st.Cs.St.Name, msg), pos}
}

func (x *Explorer) stuckMessage(st *Xstate) string {
	var why string
	switch {
	case len(st.Cs.Next) == 0 && st.Cs.St.Waits():
		why = "it waits for an event"
	case len(st.Cs.Next) == 0:
		why = "it has no next transition"
	default:
		why = "every guard is false: " + machine.GuardsSaw(st.Cs, x.syncEnv())
	}
	if len(st.Events) == 0 {
		return fmt.Sprintf("state %q is stuck: %s, and no event applies", st.Cs.St.Name, why)
	}
	return fmt.Sprintf("state %q is stuck: %s, and no event's guard holds", st.Cs.St.Name, why)
}

type assignKind int

const (
	assignState assignKind = iota
	assignTransition
	assignEvent
)

// assignWhat names a set in messages: "set of state \"a\"".
func assignWhat(kind assignKind, st *Xstate, mv *move) string {
	switch kind {
	case assignEvent:
		return fmt.Sprintf("set of event %q", mv.ev.Name)
	case assignTransition:
		return fmt.Sprintf("set of %s of state %q", mv.trans.Via, st.Cs.St.Name)
	}
	return fmt.Sprintf("set of state %q", st.Cs.St.Name)
}

// assign applies a set to vals as the interpreter does: every expression is
// evaluated against env as it was before the set, converted to the
// variable's type and checked against its enum; the check also holds ranges.
// It updates env, vals and their ids, and returns the slots that changed
// (only when tracing). A failure is returned as an end move. memo is
// memosOf(set), or nil (looked up).
func (x *Explorer) assign(set []machine.Cassign, memo *setProgs, ids []uint32, kind assignKind, st *Xstate, mv *move) ([]int, *move) {
	if len(set) == 0 {
		return nil, nil
	}
	news, newIDs := x.news[:0], x.newIDs[:0]
	if memo == nil {
		memo = x.memosOf(set)
	}
	for i, a := range set {
		c, frozen := x.frozen[a.A]
		if frozen && a.A != nil && c.period == 0 && c.past(x.envVals[c.slot]) {
			// A counter past every bound its comparisons read stays as it
			// is (check_livelock.go).
			news, newIDs = append(news, x.envVals[c.slot]), append(newIDs, x.envIDs[c.slot])
			continue
		}
		if f := memo.progs[i]; !frozen && f != nil && f.fast != nil && f.fast.intFn != nil && a.V.Type == mspec.TypeInt {
			// A compiled int for an int variable: what Coerce and the size
			// limit would do to it is nothing; no box, and its id directly.
			if n, ok := f.fast.intFn(x.envVals); ok {
				if a.V.Range != nil && !a.V.Range.Contains(n) {
					x.end = move{kind: moveEnd, ids: ids, prop: PropBounds, pos: x.assignPos(a),
						msg: fmt.Sprintf("%s: %s becomes %d, outside its range [%d, %d]", assignWhat(kind, st, mv), a.V.Name, n, a.V.Range.Lo, a.V.Range.Hi)}
					return nil, &x.end
				}
				id := x.values.intID(n)
				news, newIDs = append(news, x.values.values[id]), append(newIDs, id)
				continue
			}
		}
		v, err := x.evalM(a.Prog, memo.progs[i])
		if err == nil {
			// null through when nullable, as the run does, and refused as
			// the run refuses it (machine.SetValueMessage) when not.
			cv, cerr := a.V.Coerce(v)
			if cerr != nil {
				x.end = move{kind: moveEnd, ids: ids, prop: PropEvaluation, pos: x.assignPos(a),
					msg: fmt.Sprintf("%s: %s: %s", assignWhat(kind, st, mv), a.V.Name, machine.SetValueMessage(&set[i], v, cerr))}
				return nil, &x.end
			}
			v = cv
		}
		if err == nil {
			err = mspec.ValueTooLarge(v)
		}
		if err == nil {
			if s, ok := v.(string); ok && len(a.V.Enum) > 0 && !mspec.Contains(a.V.Enum, s) {
				err = fmt.Errorf("%q is not one of %s", s, mspec.QuoteList(a.V.Enum))
			}
		}
		if err != nil {
			text := ""
			if a.A != nil {
				text = a.A.Expr
			}
			msg, pos := x.evalFailure(err, text, x.assignPos(a))
			x.end = move{kind: moveEnd, ids: ids, prop: PropEvaluation, msg: fmt.Sprintf("%s: %s: %s", assignWhat(kind, st, mv), a.V.Name, msg), pos: pos}
			return nil, &x.end
		}
		if n, ok := v.(int); ok && a.V.Range != nil && !a.V.Range.Contains(n) {
			x.end = move{kind: moveEnd, ids: ids, prop: PropBounds, pos: x.assignPos(a),
				msg: fmt.Sprintf("%s: %s becomes %d, outside its range [%d, %d]", assignWhat(kind, st, mv), a.V.Name, n, a.V.Range.Lo, a.V.Range.Hi)}
			return nil, &x.end
		}
		if n, ok := v.(int); ok && frozen && c.period > 0 && a.A != nil {
			v = c.wrap(n) // round the period past the bound (check_livelock.go)
		}
		news, newIDs = append(news, v), append(newIDs, x.values.id(v))
	}
	x.news, x.newIDs = news[:0], newIDs[:0]
	var changed []int
	for i, s := range memo.slots {
		id := newIDs[i]
		if x.tracing && ids[s] != id { // equal values have one id: their canonical encodings are equal
			changed = append(changed, s)
		}
		ids[s] = id
		x.setEnv(s, news[i], id)
	}
	return changed, nil
}

// assignPos finds where a compiled assignment is written.
func (x *Explorer) assignPos(a machine.Cassign) mspec.Pos {
	if a.A != nil {
		return a.A.ExprPos
	}
	return a.V.Pos
}

// via names a move as traces and messages do.
func (mv *move) via() string {
	switch mv.kind {
	case moveEvent:
		if mv.emitted {
			return "event " + mv.ev.Name + " " + mv.emitLabel
		}
		if l := mv.ev.labels[mv.payload]; l != "" {
			return "event " + mv.ev.Name + " " + l
		}
		return "event " + mv.ev.Name
	case moveError, moveNext:
		return mv.trans.Via
	}
	return ""
}

// QuoteValue is how a value is shown in traces and reports: a string
// quoted (cut past maxShownValue bytes), a list or a map by its first
// items, each quoted the same way.
func QuoteValue(v any) string {
	if s, ok := v.(string); ok {
		if len(s) > maxShownValue {
			cut := maxShownValue
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			return strconv.Quote(s[:cut]) + fmt.Sprintf("… (%d bytes)", len(s))
		}
		return strconv.Quote(s)
	}
	out := mspec.FormatValue(v)
	switch x := v.(type) {
	case []any: // its items, so two lists of one length read apart
		parts := make([]string, 0, min(len(x), maxShownItems)+1)
		for _, e := range x[:min(len(x), maxShownItems)] {
			parts = append(parts, QuoteValue(e))
		}
		if len(x) > maxShownItems {
			parts = append(parts, fmt.Sprintf("… (%d items)", len(x)))
		}
		out = "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		parts := make([]string, 0, min(len(keys), maxShownItems)+1)
		for _, k := range keys[:min(len(keys), maxShownItems)] {
			parts = append(parts, strconv.Quote(k)+": "+QuoteValue(x[k]))
		}
		if len(keys) > maxShownItems {
			parts = append(parts, fmt.Sprintf("… (%d keys)", len(keys)))
		}
		out = "{" + strings.Join(parts, ", ") + "}"
	}
	if len(out) > 2*maxShownValue {
		cut := 2 * maxShownValue
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = out[:cut] + fmt.Sprintf("… (%d characters)", len(out))
	}
	return out
}

// maxShownValue is how much of a string value a counterexample shows;
// maxShownItems, how many items of a list or a map.
const (
	maxShownValue = 100
	maxShownItems = 5
)

// builtinAction notes what the check knows of a built-in action: fail never
// succeeds (its state's set and next are never reached: a failure only,
// through on_error with its message as last_error, or the run fails there); emit
// fails only when its payload does (check_params.go, as its declaration's
// NeverFails says), and the event it sends comes before anything else.
func (x *Explorer) builtinAction(st *Xstate) {
	a := st.Cs.Action
	if a == nil || st.final {
		return
	}
	switch a.Name {
	case machine.ActionFail:
		st.fails = true
		if st.ErrVals == nil {
			return
		}
		// Its error text is its message, unless a value is appended to it.
		msg, _ := paramDefault(a, "message").(string)
		for _, p := range st.Cs.St.With {
			switch p.Name {
			case "message":
				msg, _ = p.Value.(string)
			case "value":
				return
			}
		}
		st.ErrVals = []any{msg}
	case machine.ActionEmit:
		var name string
		for _, p := range st.Cs.St.With {
			if p.Name == "event" {
				name, _ = p.Value.(string)
			}
		}
		ce := x.m.Events[name]
		if ce == nil {
			return
		}
		if ce.Decl.HasPayload() {
			st.emitCe = ce // its payload is built, and may fail, in evalParams
		}
		for _, ev := range st.Events {
			if ev.Name == name {
				st.emits = ev
			}
		}
	}
}

// eventTakes returns the transition of ev that takes it in st with the
// payload val: the first whose guard holds, -1 when none does.
func (x *Explorer) eventTakes(st *Xstate, ev *xevent, val any) (int, *stopErr) {
	x.env[mspec.VarEvent] = val
	defer delete(x.env, mspec.VarEvent)
	for i, ct := range ev.Trans {
		if ct.Guard == nil {
			return i, nil
		}
		ok, err := x.holds(ct.Guard, ev.guardMemo[i])
		if err != nil && x.spec.GuardErrorsFalse {
			continue // false, as the run takes it (guard_errors: as_false)
		}
		if err != nil {
			msg, pos := x.evalFailure(err, ct.T.When, ct.T.WhenPos)
			return -1, &stopErr{fmt.Sprintf("guard %q of event %q cannot be evaluated in state %q: %s", ct.T.When, ev.Name, st.Cs.St.Name, msg), pos}
		}
		if ok {
			return i, nil
		}
	}
	return -1, nil
}

// paramDefault returns the default of an action's parameter (nil if none).
func paramDefault(a *machine.Action, name string) any {
	for _, p := range a.Params {
		if p.Name == name {
			return p.Default
		}
	}
	return nil
}

// Emitted returns the event the state's action (the built-in emit) sends
// when the state handles it (nil otherwise), and whether its payload is
// built from the action's payload parameter: the event is taken first,
// when one of its transitions holds after the state's set (enabled).
func (s *Xstate) Emitted() (ev *xevent, withPayload bool) { return s.emits, s.emitCe != nil }

// evalFailure says why an expression failed as the run says it: expr's
// message without its own "(line:col)" and snippet, at the failing
// operation's position (the expression text written at start); start when
// the error does not say or text is not known.
func (x *Explorer) evalFailure(err error, text string, start mspec.Pos) (string, mspec.Pos) {
	msg, from, _ := mspec.EvalFailure(err)
	if from >= 0 && text != "" && x.spec != nil && x.spec.Source != nil {
		start = mspec.ExprPos(x.spec.Source, start, text, from)
	}
	return msg, start
}
