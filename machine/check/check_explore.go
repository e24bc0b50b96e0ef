package check

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/expr-lang/expr/vm"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// explorer is one model check in progress: breadth-first search over
// (state, values) pairs, where values holds the context variables in spec
// order followed by last_error.
type Explorer struct {
	m        *machine.Machine
	spec     *mspec.Spec
	maxState int
	maxDepth int
	progress func(CheckStats)
	// interpreted: no compiled evaluation (CheckOptions.Interpreted)
	interpreted bool

	Vars        []*mspec.Var
	nslots      int
	lastErr     int // slot of last_error
	slot        map[string]int
	defaults    []any
	States      []*Xstate
	stateIdx    map[string]int
	Events      []*xevent
	globalTaken map[*machine.Ctrans]bool      // top-level event transitions some path took
	sampled     []string                      // events whose payload values were cut at maxPayloads
	untried     []string                      // writes whose range was cut at maxRangeValues, as the report says them
	clock       string                        // the first expression that calls now() (clockRead), or ""
	declared    map[int]bool                  // slots an action writes only the values it declares (VarSpec.Values)
	frozen      map[*mspec.Assign]counterStep // counter steps that leave the counter as it is once past their bound (check_livelock.go)
	Cmp         compared
	relevant    slotSet               // slots whose value can change a verdict (see relevance)
	fallible    map[*vm.Program][]int // per expression: the slots whose value can make it fail (fallibleSlots)
	initial     []any                 // the values the run starts from, but for the free inputs (check_inputs.go)
	given       slotSet               // slots CheckOptions.Initial gives a value
	free        []int                 // slots of the free inputs, in spec order
	freeDoms    [][]any               // aligned with free: the values each starts from
	roots       [][]any               // the initial pairs' values (canonical), by root index

	env map[string]any // the pair being expanded (see load, setEnv, restoreEnv)
	// envState is the value of `state` in env, written by syncEnv
	envState any
	invEnv   map[string]any // a pair being added, for its invariants
	vm       vm.VM

	arena     *arena      // where the store, nodes and successors live (check_arena.go): ModelCheck releases it
	store     *pairStore  // the stored pairs, exact (check_store.go)
	values    *valueTable // the values their records refer to
	stored    []int       // the slots a record holds: those live in some state
	isStored  []bool      // by slot: in stored
	defIDs    []uint32    // by slot: the id of its default
	rec       []uint32    // scratch: the record of a pair being looked up
	nodes     chunked[xnode]
	levels    []int32        // levels[d]: the first node of depth d (breadth first: depths only grow)
	succStart chunked[int32] // node i's successors are succ's elements succStart.at(i) to succStart.at(i+1)-1
	succ      chunked[int32]
	flags     chunked[uint8]
	trans     int
	stopped   string
	expanded  int // nodes expanded so far

	findings map[string]*finding
	tracing  bool // computing a trace: moves note what changed

	// Memoised evaluation (check_memo.go).
	envIDs    []uint32 // by slot: the id of its value in env (what env holds once synced: check_env.go)
	envVals   []any    // by slot: that value
	mapIDs    []uint32 // by slot: the id of the value the map env holds
	memoProgs map[*vm.Program]*memoProg
	memoSigs  map[string]uint32 // a program's text and code → its index
	memo      []memoEntry       // nil until a memoised program runs
	// The expansion under way (expand): the ordinal of its next move, its
	// visitor (nil: the search's), and the node expanded and its depth.
	ord, from, fromDepth int32
	visitFn              func(ord int32, mv *move) bool
	// guardCache: by edge of the state being expanded, its hoisted guard's
	// value once evaluated (0: not yet, 1: false, 2: true)
	guardCache []int8
	memoOff    bool   // the search is over: memoise nothing more
	restoreGC  func() // puts back the collector's target (check_gc.go), nil while not lowered

	// Buffers reused by expand.
	curIDs, nextIDs []uint32
	outcomeIDs      []uint32
	names           []string // slot → name in env
	dirty           []int    // slots of env set since the last load
	news            []any
	newIDs          []uint32
	odometer        []int
	outcomeBuf      []any
	choices         []choice
	mv              move
	end             move
	errMove         move
	// emitVal is the event the state being expanded emits with a payload
	// (evalParams), emitLabel how traces show its payload.
	emitVal   any
	emitLabel string
}

// Node flags.
const (
	flagFinal   uint8 = 1 << iota // the run ends here
	flagStops                     // some outcome stops the run (deadlock, error, bound, a failed action)
	flagHorizon                   // not expanded: max_transitions reached, or the check stopped
)

// xnode is how a pair was reached; its state and values are its record in
// explorer.store, its depth is given by explorer.levels.
type xnode struct {
	parent int32 // -1 for an initial node
	move   int32 // ordinal of the move of parent that leads here; of an initial node, its index in explorer.roots
}

// xstate is a compiled state with what the check needs of it.
type Xstate struct {
	idx          int
	name         any // Cs.St.Name, boxed once: the value of `state` in env
	Cs           *machine.Cstate
	final        bool
	Writes       []int    // slots its action writes
	Domains      [][]any  // values of each write
	ErrVals      []any    // last_error values of a failure (nil: no on_error route)
	errIDs       []uint32 // their ids
	Events       []*xevent
	invs         []*xcond
	reqs         []*xcond
	edges        []edge     // the ways out, in the order they are tried (see edgesOf)
	outcomes     [][]any    // per write: its domain when read later, else its default alone
	outcomeIDs   [][]uint32 // their ids
	setMemo      *setProgs  // memosOf(Cs.Set)
	live         slotSet
	keyBase      []uint32   // its record with every stored slot at its default (key)
	keyLive      [][2]int32 // the stored slots live here: (word of the record, slot)
	afterAction  slotSet
	actionWrites slotSet
	// emits is the event the state's action (the built-in emit, of an event
	// with no payload) sends: when one of its transitions holds after the
	// set, it is taken, and nothing else (see enabled); nil otherwise.
	emits *xevent
	// emitCe is the event of the built-in emit when it declares a payload:
	// the payload is evaluated from the parameters (evalParams), and emits
	// (when the state handles the event) takes it.
	emitCe *machine.Cevent
	// params are the action's expression parameters (check_params.go);
	// paramErrVals, the last_error values of their failure when the action
	// cannot fail otherwise (its declaration says NeverFails: noop, log,
	// wait, emit), with their ids.
	params       []xparam
	paramErrVals []any
	paramErrIDs  []uint32
	// fails: the state's action is the built-in fail, which never succeeds.
	fails     bool
	reached   bool
	nextTaken []bool
	errTaken  bool
}

// xevent is one event as it may arrive in a state: the transitions it can
// take there, in the order the run tries them (the state's on: first, then
// the top-level ones that apply), and the values `event` takes (one per
// payload the check tries).
type xevent struct {
	Name      string
	Trans     []*machine.Ctrans
	to        []*Xstate        // aligned with trans
	taken     []bool           // aligned with trans (top-level ones are also in explorer.globalTaken)
	Payloads  []any            // values of `event` to try, each a typed struct
	guardMemo []*memoProg      // aligned with trans: memoOf(its guard)
	setMemo   []*setProgs      // aligned with trans: memosOf(its set)
	labels    []string         // aligned with payloads: how traces show each ("" for no payload)
	given     []map[string]any // aligned with payloads: each as JSON gives it (TraceStep.Payload)
	// sampled: Payloads are the first maxPayloads values; sampledNoted:
	// the report says so (a state took the event from outside).
	sampled, sampledNoted bool
}

type xcond struct {
	c     *mspec.Condition
	label string
	prog  *vm.Program
}

// finding is the first violation of a property: the node it happened at and,
// when a move of that node caused it, the move's ordinal (-1 otherwise).
type finding struct {
	node int32
	move int32
	msg  string
	pos  mspec.Pos
	loop []string
	// budget: the path spent max_transitions (verdicts names the loop
	// its end goes round, budgetLoop)
	budget bool
}

func NewExplorer(m *machine.Machine, opts CheckOptions) *Explorer {
	spec := m.Spec()
	x := &Explorer{
		m: m, spec: spec, maxState: opts.MaxStates, maxDepth: opts.MaxDepth, progress: opts.Progress, interpreted: opts.Interpreted,
		Vars: spec.Context, slot: map[string]int{}, stateIdx: map[string]int{},
		findings: map[string]*finding{},
	}
	if x.maxState <= 0 {
		x.maxState = DefaultMaxStates
	}
	if x.maxDepth <= 0 {
		x.maxDepth = Cmp0(spec.Limits.MaxTransitions, mspec.DefaultMaxTransitions)
	}
	for i, v := range spec.Context {
		x.slot[v.Name] = i
		x.defaults = append(x.defaults, machine.CloneValue(v.Default))
	}
	x.lastErr = len(spec.Context)
	x.slot[mspec.VarLastError] = x.lastErr
	x.defaults = append(x.defaults, "")
	x.nslots = len(x.defaults)
	x.env = make(map[string]any, x.nslots+1)
	x.invEnv = make(map[string]any, x.nslots+1)
	x.Cmp = comparedValues(spec, opts.Initial)
	x.startValues(opts)
	env := mspec.TypeEnv(spec)
	for i, st := range spec.States {
		x.stateIdx[st.Name] = i
		x.States = append(x.States, &Xstate{idx: i, name: st.Name, Cs: m.States[st.Name], final: st.Final,
			nextTaken: make([]bool, len(st.Next))})
	}
	domains := map[string][]any{} // by variable, and whether the write may be null
	specDir := filepath.Dir(spec.File)
	x.declared = map[int]bool{}
	noted := map[string]bool{}
	for _, st := range x.States {
		if a := st.Cs.Action; a != nil {
			for _, w := range a.WritesOfIn(st.Cs.St, specDir, specDir) { // a schema file beside the spec is read
				s, ok := x.slot[w.Name]
				if !ok {
					continue // Validate reports an undeclared write
				}
				key := w.Name
				if writesNull(x.Vars[s], w) {
					key += "\x00null"
				}
				if len(w.Values) > 0 {
					// the action writes these and nothing else (tools.call's status)
					key = w.Name + "\x00values " + string(appendValue(nil, w.Values))
					if domains[key] == nil {
						for _, val := range w.Values { // one the variable refuses fails the action: on_error, ErrVals
							cv, err := x.Vars[s].Coerce(val)
							if str, ok := cv.(string); err == nil && (!ok || len(x.Vars[s].Enum) == 0 || mspec.Contains(x.Vars[s].Enum, str)) {
								domains[key] = append(domains[key], cv)
							}
						}
						if domains[key] == nil {
							domains[key] = []any{x.Vars[s].Default}
						}
						x.declared[s] = true
					}
				}
				if domains[key] == nil {
					domains[key], _ = x.Cmp.Domain(x.Vars[s])
					if key != w.Name {
						domains[key] = withNull(domains[key])
					}
					if r := x.Vars[s].Range; r != nil && uint64(r.Hi)-uint64(r.Lo) >= maxRangeValues && !noted[w.Name] {
						noted[w.Name] = true
						x.untried = append(x.untried, fmt.Sprintf("%s: the first %d of the %d values of its range", w.Name, maxRangeValues, uint64(r.Hi)-uint64(r.Lo)+1))
					}
				}
				st.Writes = append(st.Writes, s)
				st.Domains = append(st.Domains, domains[key])
			}
			if st.Cs.OnError != nil {
				if a.NeverFails {
					// Only a parameter that cannot be evaluated fails it
					// (check_params.go): a run takes on_error for nothing else.
					st.paramErrVals = x.Cmp.ErrorValues()
				} else {
					st.ErrVals = x.Cmp.ErrorValues()
				}
			}
		}
		for _, c := range st.Cs.St.FinalRequires {
			st.reqs = append(st.reqs, x.condition(c, mspec.RequirementLabel(c, st.Cs.St.Name), env))
		}
	}
	x.globalTaken = map[*machine.Ctrans]bool{}
	payloads := map[string]*xevent{} // by event: its payload values, computed once
	for _, st := range x.States {
		if st.final {
			continue
		}
		for _, name := range m.Accepts(st.Cs.St.Name) {
			ce := m.Events[name]
			pv := payloads[name]
			if pv == nil {
				pv = &xevent{}
				pv.Payloads, pv.labels, pv.given, pv.sampled = x.payloadValues(ce)
				payloads[name] = pv
			}
			xe := &xevent{Name: name, Payloads: pv.Payloads, labels: pv.labels, given: pv.given, sampled: pv.sampled}
			xe.Trans = append(xe.Trans, st.Cs.On[name]...)
			for _, ct := range ce.Global {
				if ct.AppliesIn(st.Cs.St) {
					xe.Trans = append(xe.Trans, ct)
				}
			}
			for _, ct := range xe.Trans {
				xe.to = append(xe.to, x.States[x.stateIdx[ct.Target]])
			}
			xe.taken = make([]bool, len(xe.Trans))
			st.Events = append(st.Events, xe)
			x.Events = append(x.Events, xe)
		}
	}
	for _, c := range spec.Invariants {
		xc := x.condition(c, fmt.Sprintf("invariant %q", c.Name), env)
		for _, st := range x.States {
			if len(c.In) == 0 || slices.Contains(c.In, st.Cs.St.Name) {
				st.invs = append(st.invs, xc)
			}
		}
	}
	for _, st := range x.States {
		st.edges = x.edgesOf(st)
		x.builtinAction(st)
		if !st.fails {
			x.actionParams(st, env)
		}
	}
	x.liveness()
	x.clock = clockRead(spec, func(name string) bool { s, ok := x.slot[name]; return ok && x.relevant[s] })
	for _, st := range x.States {
		for i, s := range st.Writes {
			if st.afterAction[s] {
				st.outcomes = append(st.outcomes, st.Domains[i])
			} else {
				st.outcomes = append(st.outcomes, []any{x.defaults[s]})
			}
		}
	}
	for _, v := range x.Vars {
		x.names = append(x.names, v.Name)
	}
	x.names = append(x.names, mspec.VarLastError)
	x.values = newValueTable()
	x.isStored = make([]bool, x.nslots)
	for s := range x.nslots {
		x.defIDs = append(x.defIDs, x.values.id(x.defaults[s]))
		for _, st := range x.States {
			if st.live[s] {
				x.stored = append(x.stored, s)
				x.isStored[s] = true
				break
			}
		}
	}
	x.arena = &arena{}
	x.nodes.arena, x.succStart.arena, x.succ.arena, x.flags.arena = x.arena, x.arena, x.arena, x.arena
	x.store = newPairStore(1+len(x.stored), x.maxState, x.arena)
	for _, st := range x.States {
		st.keyBase = append(st.keyBase, uint32(st.idx))
		for j, s := range x.stored {
			st.keyBase = append(st.keyBase, x.defIDs[s])
			if st.live[s] {
				st.keyLive = append(st.keyLive, [2]int32{int32(j + 1), int32(s)})
			}
		}
	}
	x.rec = make([]uint32, 1+len(x.stored))
	for _, st := range x.States {
		for _, dom := range st.outcomes {
			var ids []uint32
			for _, v := range dom {
				ids = append(ids, x.values.id(v))
			}
			st.outcomeIDs = append(st.outcomeIDs, ids)
		}
		for _, v := range st.ErrVals {
			st.errIDs = append(st.errIDs, x.values.id(v))
		}
		for _, v := range st.paramErrVals {
			st.paramErrIDs = append(st.paramErrIDs, x.values.id(v))
		}
	}
	x.memoProgs = map[*vm.Program]*memoProg{}
	x.memoSigs = map[string]uint32{}
	for _, st := range x.States {
		st.setMemo = x.memosOf(st.Cs.Set)
		for i := range st.params {
			st.params[i].memo = x.memoOf(st.params[i].prog)
		}
		for i := range st.edges {
			e := &st.edges[i]
			e.guardMemo, e.setMemo = x.memoOf(e.guard), x.memosOf(e.set)
			e.hoisted = e.ev == nil && e.guardMemo != nil && len(st.Cs.Set) == 0 &&
				!slices.ContainsFunc(e.guardMemo.reads, func(s int) bool { return slices.Contains(st.Writes, s) })
		}
		x.guardCache = append(x.guardCache, make([]int8, max(0, len(st.edges)-len(x.guardCache)))...)
	}
	for _, ev := range x.Events {
		for _, ct := range ev.Trans {
			ev.guardMemo = append(ev.guardMemo, x.memoOf(ct.Guard))
			ev.setMemo = append(ev.setMemo, x.memosOf(ct.Set))
		}
	}
	x.envIDs, x.mapIDs = make([]uint32, x.nslots), make([]uint32, x.nslots)
	for i := range x.envIDs {
		x.envIDs[i], x.mapIDs[i] = noID, noID // env holds nothing yet
	}
	x.envVals = make([]any, x.nslots)
	return x
}

// noID is no value's id.
const noID = ^uint32(0)

// key fills x.rec with the record of (st, vals), ids the ids of vals: the
// slots dead in st have their default.
func (x *Explorer) key(st *Xstate, ids []uint32) []uint32 {
	r := x.rec[:len(st.keyBase)]
	copy(r, st.keyBase)
	for _, l := range st.keyLive {
		r[l[0]] = ids[l[1]]
	}
	return r
}

// decode fills ids with the ids of a record's values.
func (x *Explorer) decode(r []uint32, ids []uint32) []uint32 {
	ids = append(ids[:0], x.defIDs...)
	for j, s := range x.stored {
		ids[s] = r[j+1]
	}
	return ids
}

// stateOf returns the index of node id's state.
func (x *Explorer) stateOf(id int32) int32 { return int32(x.store.word(id, 0)) }

func Cmp0(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}

func (x *Explorer) condition(c *mspec.Condition, label string, env map[string]any) *xcond {
	p, err := mspec.CompileGuard(c.Expr, env)
	if err != nil {
		p = nil // Validate reports it; a spec that compiled has none
	}
	return &xcond{c: c, label: label, prog: p}
}

// canon resets the slots dead at st's entry to their defaults, in place.
func (x *Explorer) canon(st *Xstate, vals []any) {
	for i, live := range st.live {
		if !live {
			vals[i] = x.defaults[i]
		}
	}
}

// run explores breadth first from the initial pairs.
func (x *Explorer) run(ctx context.Context, start time.Time) {
	x.addRoots()
	lastReport := start
	x.succStart.push(0)
	var rec []uint32 // the record of the pair being expanded
	var ids []uint32 // the ids of its values
	depth := int32(0)
	for x.expanded < x.nodes.len() && x.stopped == "" {
		id := int32(x.expanded)
		if int(depth)+1 < len(x.levels) && id >= x.levels[depth+1] {
			depth++
		}
		if x.expanded&1023 == 0 {
			if ctx.Err() != nil {
				x.stopped = "interrupted"
				break
			}
			if x.progress != nil && time.Since(lastReport) >= time.Second {
				lastReport = time.Now()
				x.progress(x.stats(time.Since(start)))
			}
		}
		rec = x.store.record(id, rec)
		st := x.States[rec[0]]
		ids = x.decode(rec, ids)
		if int(depth) >= x.maxDepth && !st.final { // a run may enter a final state with its last transition
			*x.flags.ptr(int(id)) |= flagHorizon
			x.note(PropBounds, id, -1, fmt.Sprintf("the run can make max_transitions (%d) transitions without ending: it would fail with %q in state %q", x.maxDepth, machine.ErrBudget.Error(), st.Cs.St.Name), x.budgetPos())
			if f := x.findings[PropBounds]; f.node == id {
				f.budget = true
			}
		} else {
			x.from, x.fromDepth = id, depth
			x.expand(st, ids, nil)
		}
		x.expanded++
		x.succStart.push(int32(x.succ.len()))
		if x.stopped != "" {
			*x.flags.ptr(int(id)) |= flagHorizon // its successors are only partly known
			break
		}
	}
	if x.stopped != "" {
		for id := x.expanded; id < x.nodes.len(); id++ {
			*x.flags.ptr(int(id)) |= flagHorizon
		}
	}
}

func (x *Explorer) budgetPos() mspec.Pos {
	if x.spec.Limits.Pos.IsValid() {
		return x.spec.Limits.Pos
	}
	return x.States[x.stateIdx[x.spec.Initial]].Cs.St.Pos
}

// add records a new node, the pair (st, vals) whose record find did not
// find (at slot), and returns its id. The node that fills the
// store (MaxStates) stops the search: x.stopped is set, and the callers
// expand nothing more, so no successor is evaluated past the bound.
func (x *Explorer) add(st *Xstate, rec []uint32, slot uint64, parent, ord, depth int32) int32 {
	id := x.store.insert(rec, slot)
	if x.nodes.len()+1 >= x.maxState {
		x.stopped = fmt.Sprintf("max-states: %d distinct (state, context) pairs explored; raise --max-states", x.maxState)
	}
	x.nodes.push(xnode{parent: parent, move: ord})
	if int(depth) == len(x.levels) {
		x.levels = append(x.levels, id)
	}
	if id&1023 == 0 {
		x.growMemo()
		x.maybeLowerGC()
	}
	x.flags.push(0)
	st.reached = true
	if st.final {
		*x.flags.ptr(int(id)) |= flagFinal
	}
	if len(st.invs) > 0 {
		// add runs while a move is being expanded: env is in use, so the
		// invariants see the new pair in an env of their own.
		env := x.invEnv
		for j, s := range x.stored { // the record's values: dead slots at their defaults
			env[x.names[s]] = x.values.values[rec[j+1]]
		}
		for s, name := range x.names {
			if !x.isStored[s] {
				env[name] = x.defaults[s]
			}
		}
		env[mspec.VarState] = st.name
		for _, c := range st.invs {
			if c.prog == nil {
				continue
			}
			ok, err := x.vm.Run(c.prog, env)
			switch {
			case err != nil:
				msg, pos := x.evalFailure(err, c.c.Expr, c.c.ExprPos)
				x.note(PropEvaluation, id, -1, fmt.Sprintf("%s cannot be evaluated in state %q: %s", c.label, st.Cs.St.Name, msg), pos)
			case ok != true:
				x.note(PropInvariants, id, -1, fmt.Sprintf("%s (%s) is false in state %q: %s", c.label, c.c.Expr, st.Cs.St.Name, saw(env, c.prog)), c.c.Pos)
			}
		}
	}
	return id
}

// visit handles one move out of node id (at depth): a pair reached (new or
// seen), or an end of the run.
func (x *Explorer) visit(id, depth, ord int32, mv *move) bool {
	x.trans++
	if mv.to == nil {
		if mv.kind == moveEnd && mv.prop == "" {
			if mv.failed {
				*x.flags.ptr(int(id)) |= flagStops
			}
			return true
		}
		*x.flags.ptr(int(id)) |= flagStops
		x.note(mv.prop, id, ord, mv.msg, mv.pos)
		return true
	}
	r := x.key(mv.to, mv.ids)
	to, slot := x.store.find(r)
	if to < 0 {
		to = x.add(mv.to, r, slot, id, ord, depth+1)
	}
	x.succ.push(to)
	return x.stopped == ""
}

// note keeps the first finding of a property: breadth-first order makes it
// one with a shortest path.
func (x *Explorer) note(prop string, node, ord int32, msg string, p mspec.Pos) {
	if _, ok := x.findings[prop]; ok {
		return
	}
	x.findings[prop] = &finding{node: node, move: ord, msg: msg, pos: p}
}

// load makes env hold the values of a pair in st, given by their ids.
// A slot whose value has the id env's has is not written again.
func (x *Explorer) load(st *Xstate, ids []uint32) {
	for i := range x.names {
		if x.envIDs[i] != ids[i] {
			x.put(i, x.values.values[ids[i]], ids[i])
		}
	}
	x.envState = st.name // written into env by syncEnv
	x.dirty = x.dirty[:0]
}

// saw renders the values an expression reads in env, for messages: "n=3, done=false".
func saw(env map[string]any, p *vm.Program) string {
	var parts []string
	for _, name := range mspec.Identifiers(p) {
		if v, ok := env[name]; ok && name != mspec.VarState {
			parts = append(parts, name+"="+mspec.FormatValue(v))
		}
	}
	return strings.Join(parts, ", ")
}

func (x *Explorer) stats(d time.Duration) CheckStats {
	return CheckStats{States: x.nodes.len(), Transitions: x.trans, Depth: max(len(x.levels)-1, 0), Duration: d}
}
