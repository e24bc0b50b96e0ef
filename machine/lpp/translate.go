package lpp

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/lppctl/lppctl/machine/lpp/gate"
	"github.com/lppctl/lppctl/machine/lpp/mapfile"
	"github.com/lppctl/lppctl/machine/lpp/yamltext"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// ToSpecYAML translates a blueprint into an lppctl spec, as YAML text with
// comments (docs/lpp.md describes the mapping). m places the compute units
// and sets the driver rule (nil: DefaultMapping); a unit the blueprint uses
// that m does not map is a *mapfile.MissingUnitsError naming every such unit
// (unless m.Unmapped).
func ToSpecYAML(bp *Blueprint, m *mapfile.Mapping) ([]byte, error) {
	if m == nil {
		m = mapfile.Default()
	}
	t, err := Translate(bp, m)
	if err != nil {
		return nil, err
	}
	return t.Text(), nil
}

// Names the translation adds; every one starts with lpp_ or holds "__".
const (
	payloadVar = gate.PayloadVar // the last event's payload, for helper states
	gateVarPre = "lpp_gate_"     // the result of a compute gate
	startState = "lpp_start"     // fires the start event when the entry state accepts it
	functionIn = "lpp_function"  // the input key naming a compute unit's function
	genDoc     = "lppctl import: "
)

// sTrans is one transition of the output (an on: entry, a next entry or a
// top-level event transition).
type sTrans struct {
	from string // top-level events only
	to   string
	when string
	set  []kvExpr
	note string
	pos  mspec.Pos // where in the blueprint it comes from (zero: its state's)
}

type kvExpr struct{ k, v string }

// sState is one state of the output.
type sState struct {
	name    string
	comment string
	note    string
	do      string
	with    []string // rendered `key: value` flow entries
	set     []kvExpr
	on      []onList
	next    []sTrans
	final   bool
	reqs    []sReq    // final_requires: the terminal contract
	pos     mspec.Pos // where in the blueprint it comes from
}

// sReq is one final_requires condition: an output_schema field with
// non_null, named after it and positioned at it.
type sReq struct {
	name, cond string
	pos        mspec.Pos
}

type onList struct {
	event string
	list  []sTrans
}

type translator struct {
	long   *yamltext.Texts // the long free texts the YAML holds as placeholders
	bp     *Blueprint
	m      *mapfile.Mapping
	types  map[string]string // property → L++ type
	taken  map[string]bool
	states []*sState
	// lists[state][event]: the transitions tried, own and "*", in array order.
	lists  map[string]map[string][]*Transition
	events map[string][]string // state → its events, in order of first appearance
	// topLevel: "*" transitions written as top-level events (not inlined).
	topLevel map[*Transition]bool
	gateVars []string
	usesPay  bool
	// payHelpers are the first helper states of transitions whose later
	// actions read the event's payload (through lpp_payload).
	payHelpers map[string]bool
	fields     map[string][]kvExpr // event → payload field → lppctl type
	emitted    []string
	emitTarget map[string]bool
	gateMemo   map[[3]string]string
	fieldEnum  map[string]string // "EVENT/FIELD" → the enum of the property the field is stored into
	warnings   mspec.Diagnostics
	top        []topTrans // top-level "*" transitions, in array order // expression gate translated in a context
	// usesWhole: some guard or set reads an event's payload as a whole (a
	// token until resolveWhole); wholeGates are the gates the spec holds
	// otherwise than translated at load (the payload read whole or by
	// index, an event the driver fires or the import renamed), for
	// writing the blueprint's text back.
	usesWhole  bool
	wholeGates []gateTextMeta
	// refs are the set entries of value_from actions (see refMeta).
	refs []refMeta
	// eventInputs are the input_map entries of compute actions that read
	// the event itself, passed as a literal (see quotedMeta).
	eventInputs []quotedMeta
	// unmapped are the compute actions written as no-ops (no mapping).
	unmapped []*Action
	// capturing: the transitions being translated read the event's
	// payload through lpp_payload, which the list's first step copies.
	capturing bool
	// startWait: while lpp_start's lists are written, the state where the
	// run waits when none of them passes (see build).
	startWait string
	// refire: while the other driver events of a state that never waits
	// are written (otherDriverEvents), that state: when none of their
	// transitions passes, the run goes back to it, and it fires its own.
	refire string
}

func newTranslator(bp *Blueprint, m *mapfile.Mapping) *translator {
	tr := &translator{bp: bp, m: m, types: propertyTypesOf(bp), taken: map[string]bool{startState: true},
		lists: map[string]map[string][]*Transition{}, events: map[string][]string{}, topLevel: map[*Transition]bool{},
		fields: map[string][]kvExpr{}, fieldEnum: map[string]string{}, emitTarget: map[string]bool{}, gateMemo: map[[3]string]string{},
		long: yamltext.NewTexts()}
	for _, s := range bp.States {
		tr.taken[s.ID] = true
	}
	for _, a := range bp.Actions {
		if a.Type == ActionEmit && !slices.Contains(tr.emitted, a.Event) {
			tr.emitted = append(tr.emitted, a.Event)
			tr.emitTarget[a.Event] = true
		}
	}
	return tr
}

// unique returns an unused state name built from base.
func (tr *translator) unique(base string) string {
	base = sanitize(base)
	name := base
	for n := 2; tr.taken[name]; n++ {
		name = base + "_" + strconv.Itoa(n)
	}
	tr.taken[name] = true
	return name
}

// sanitize makes an identifier of s.
func sanitize(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' && i > 0:
			b.WriteRune(r)
		case r >= '0' && r <= '9':
			b.WriteString("_")
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

func (tr *translator) build() {
	tr.route()
	bp := tr.bp
	start := tr.startEvent()
	if start != "" && tr.reentered() {
		// When no START transition passes, lpp stays in the entry state,
		// where the run waits for START and the entry's other events: in
		// the entry state itself when the driver fires nothing there, else
		// in ENTRY__start (entering the entry state would fire its DONE or
		// AUTO, which the driver fires only once a transition enters it).
		tr.startWait = bp.Entry
		if tr.autoEvent(bp.Entry) != "" {
			tr.startWait = tr.unique(bp.Entry + "__start")
		}
		st := &sState{name: startState, comment: fmt.Sprintf("the run starts by firing %s in the entry state %s", start, bp.Entry),
			note: genDoc + "fires " + start, do: "noop", pos: bp.EntryPos}
		// next: the driver fires START, without a payload; on: a START
		// queued with the run (lppctl run --event START --payload JSON)
		// is taken first, with its payload.
		st.next = tr.dispatch(bp.Entry, start, tr.lists[bp.Entry][start], startState, true)
		st.set = tr.resetPayload(st.next)
		st.on = tr.startLists(start, startState)
		tr.states = append(tr.states, st)
		if needsFallback(st.next) {
			note := "no " + start + " transition passed: enter " + bp.Entry
			if tr.startWait != bp.Entry {
				note = "no " + start + " transition passed: wait in " + bp.Entry
			}
			st.next = append(st.next, sTrans{to: tr.startWait, note: note})
		}
		if tr.startWait != bp.Entry && tr.leadsTo(tr.startWait) {
			tr.states = append(tr.states, &sState{name: tr.startWait, pos: bp.EntryPos,
				note: genDoc + bp.Entry + " waiting for an event (no " + start + " transition passed when the run started)",
				on:   tr.startLists(start, tr.startWait)})
		}
		tr.startWait = ""
	}
	for _, s := range bp.States {
		if t := bp.Terminal(s.ID); t != nil {
			st := &sState{name: s.ID, note: cmpOr(s.Description, t.Description), final: true, comment: "terminal state", pos: t.Pos}
			for _, f := range t.Outputs {
				if _, ok := tr.types[f.Name]; f.NonNull && ok && gate.IdentRE.MatchString(f.Name) { // another output has no variable to check (a warning)
					st.reqs = append(st.reqs, sReq{name: f.Name, cond: f.Name + " != nil", pos: f.Pos})
				}
			}
			tr.states = append(tr.states, st)
			continue
		}
		tr.waitingState(s)
	}
	// "*" transitions kept top-level (their helper states, if any, are
	// states of the spec like the others).
	for _, t := range bp.Transitions {
		if tr.topLevel[t] {
			st := tr.transition(t, tr.gateEnv("event.payload", t.Event), t.Event)
			st.from = Any
			tr.top = append(tr.top, topTrans{event: t.Event, t: st})
		}
	}
}

// startLists are the on: lists of a state that stands for the entry state
// before START was taken: START (with the payload a queued START has) and
// the entry state's other events, DONE and AUTO included (the driver has
// not fired them: it fires START first).
func (tr *translator) startLists(start, from string) []onList {
	bp := tr.bp
	out := []onList{{event: start, list: tr.dispatch(bp.Entry, start, tr.lists[bp.Entry][start], from, false)}}
	for _, e := range tr.events[bp.Entry] {
		if e != start && len(tr.ownList(bp.Entry, e)) > 0 {
			out = append(out, onList{event: e, list: tr.dispatch(bp.Entry, e, tr.ownList(bp.Entry, e), from, false)})
		}
	}
	return out
}

// topTrans is a transition of a top-level event.
type topTrans struct {
	event string
	t     sTrans
}

// waitingState writes a blueprint state: a waiting state with on: lists,
// or, when the driver fires an event it accepts, a state that tries that
// event's transitions and otherwise waits in its twin S__wait.
func (tr *translator) waitingState(s *State) {
	auto := tr.autoEvent(s.ID)
	st := &sState{name: s.ID, note: s.Description, pos: s.Pos}
	tr.states = append(tr.states, st)
	waiting := st
	if auto != "" {
		st.comment = fmt.Sprintf("the driver fires %s on entering %s", auto, s.ID)
		st.do = "noop"
		st.next = tr.dispatch(s.ID, auto, tr.lists[s.ID][auto], s.ID, true)
		st.set = tr.resetPayload(st.next)
		name := tr.waitName(s.ID)
		startWait := s.ID == tr.bp.Entry && auto == tr.startEvent()
		if startWait {
			// A START queued with the run (lppctl run --event START
			// --payload JSON) is taken first, with its payload; else the
			// driver fires START without one (next). So is any other event
			// of the entry state queued first: lpp's caller decides what it
			// sends first (and START's transitions, when one always fires,
			// would otherwise leave the others out of the spec).
			st.on = []onList{{event: auto, list: tr.dispatch(s.ID, auto, tr.ownList(s.ID, auto), s.ID, false)}}
			for _, e := range tr.waitingEvents(s.ID) {
				st.on = append(st.on, onList{event: e, list: tr.dispatch(s.ID, e, tr.ownList(s.ID, e), s.ID, false)})
			}
		}
		// a transition of the driver's event always fires, and the state
		// never waits, unless its list goes through compute gates, whose
		// choosing state falls back to the twin
		fallback := needsFallback(st.next)
		switch {
		case !fallback && !tr.leadsTo(name):
			tr.otherDriverEvents(st, s.ID, auto)
			return
		case len(tr.waitingEvents(s.ID)) > 0 || tr.anyTopLevel() || startWait:
			waiting = &sState{name: name, note: genDoc + s.ID + " waiting for an event (no " + auto + " transition passed)", pos: s.Pos}
			if fallback {
				st.next = append(st.next, sTrans{to: name, note: "no " + auto + " transition passed: wait"})
			}
			tr.states = append(tr.states, waiting)
		default:
			if fallback {
				st.next = append(st.next, sTrans{to: name, note: "no " + auto + " transition passed"})
			}
			tr.states = append(tr.states, &sState{name: name, do: "fail", note: genDoc + s.ID + " accepts no other event", pos: s.Pos,
				with: []string{"message: " + yamltext.Quote(fmt.Sprintf("no %s transition of state %s passed and it accepts no other event", auto, s.ID))},
				next: []sTrans{{to: s.ID, note: "never taken: fail always fails"}}})
			return
		}
	}
	if own := tr.ownList(s.ID, auto); auto != "" && len(own) > 0 && (s.ID == tr.bp.Entry && auto == tr.startEvent() || tr.gatesReadPayload(own)) {
		// No transition of the driver's event passed: lpp stays in the
		// state, where the event can be sent again: START after --var or
		// resume has set what its gates read, and any driver's event
		// whose gates read a payload (sent by a person with one: the
		// driver sends none)
		waiting.on = append(waiting.on, onList{event: auto, list: tr.dispatch(s.ID, auto, tr.ownList(s.ID, auto), waiting.name, false)})
	}
	for _, e := range tr.waitingEvents(s.ID) {
		waiting.on = append(waiting.on, onList{event: e, list: tr.dispatch(s.ID, e, tr.ownList(s.ID, e), waiting.name, false)})
	}
	if len(waiting.on) > 0 {
		return
	}
	// Only "*" transitions apply here: a waiting state needs an on: of its
	// own, so they are written into it (and stay top-level for the others).
	for _, e := range tr.events[s.ID] {
		if !tr.isAuto(e) && e != tr.autoEvent(s.ID) {
			waiting.on = append(waiting.on, onList{event: e, list: tr.dispatch(s.ID, e, tr.lists[s.ID][e], waiting.name, false)})
		}
	}
}

// otherDriverEvents lists, in a state whose driver's event always fires
// (it never waits), the state's other driver events (AUTO where the
// driver fires DONE): their transitions would otherwise be left out of the
// spec (and of export --format lpp). An on: list of a state that runs
// takes a pending event before its next:, so such an event queued with
// the run or emitted is taken there, as lpp takes it when its caller
// sends it.
func (tr *translator) otherDriverEvents(st *sState, s, auto string) {
	tr.refire = s
	defer func() { tr.refire = "" }()
	for _, e := range tr.events[s] {
		listed := slices.ContainsFunc(st.on, func(o onList) bool { return o.event == e }) // the entry state's, before START
		if e != auto && tr.isAuto(e) && !listed && len(tr.ownList(s, e)) > 0 {
			st.on = append(st.on, onList{event: e, list: tr.dispatch(s, e, tr.ownList(s, e), s, false)})
		}
	}
}

func (tr *translator) anyTopLevel() bool { return len(tr.topLevel) > 0 }

// leadsTo reports whether a state written so far has a transition to name.
func (tr *translator) leadsTo(name string) bool {
	to := func(t sTrans) bool { return t.to == name }
	for _, st := range tr.states {
		if slices.ContainsFunc(st.next, to) || slices.ContainsFunc(st.on, func(o onList) bool { return slices.ContainsFunc(o.list, to) }) {
			return true
		}
	}
	return false
}

// gatesReadPayload reports whether a gate of the transitions may depend on
// the event's payload: it reads it, or it is a compute gate (its unit gets
// the event).
func (tr *translator) gatesReadPayload(list []*Transition) bool {
	for _, t := range list {
		for _, id := range t.Gates {
			if g := tr.bp.Gate(id); g != nil && (g.Type == GateCompute || strings.Contains(g.Expr, "event.payload")) {
				return true
			}
		}
	}
	return false
}

// waitName is the state that waits for s's events after a driver event
// found no transition.
func (tr *translator) waitName(s string) string {
	if tr.autoEvent(s) == "" {
		return s
	}
	name := sanitize(s) + "__wait"
	tr.taken[name] = true
	return name
}

// dispatch returns the transitions for event e of state s: directly when
// no transition of the list has a compute gate, else one entry to helper
// states that evaluate the compute gates and then choose. inNext: the
// entries go in a next list (the driver fired e: there is no event).
func (tr *translator) dispatch(s, e string, list []*Transition, from string, inNext bool) []sTrans {
	ctx := tr.gateEnv("event.payload", e)
	if inNext {
		ctx = tr.gateEnv(payloadVar, e)
	}
	if !slices.ContainsFunc(list, tr.hasComputeGate) {
		out := make([]sTrans, 0, len(list))
		for _, t := range list {
			out = append(out, tr.transition(t, ctx, e))
		}
		return out
	}
	// compute gates: capture the payload, evaluate each gate, then choose.
	base := sanitize(s) + "__" + sanitize(e)
	var gates []string
	for _, t := range list {
		for _, id := range t.Gates {
			if g := tr.bp.Gate(id); g.Type == GateCompute && !slices.Contains(gates, id) {
				gates = append(gates, id)
			}
		}
	}
	choose := &sState{name: tr.unique(base), do: "noop", note: genDoc + "chooses the " + e + " transition of " + s, pos: list[0].Pos}
	names := make([]string, len(gates))
	for i, id := range gates {
		names[i] = tr.unique(base + "_gate_" + id)
	}
	for i, id := range gates {
		g := tr.bp.Gate(id)
		u, mapped := tr.m.Units[g.ComputeUnit]
		v := gateVarPre + sanitize(id)
		if !slices.Contains(tr.gateVars, v) {
			tr.gateVars = append(tr.gateVars, v)
		}
		next := choose.name
		if i+1 < len(names) {
			next = names[i+1]
		}
		in := []kvExpr{{functionIn, strconv.Quote(u.Function)}}
		for _, p := range tr.bp.Context {
			in = append(in, kvExpr{p.Name, p.Name})
		}
		in = append(in, kvExpr{"event", payloadVar})
		hs := &sState{name: names[i], do: "script.run", note: genDoc + "compute gate " + id + " (" + g.ComputeUnit + ")", pos: g.Pos,
			with: []string{"script: " + yamltext.Quote(u.Script), "input: " + flowMap(in), "output: " + flowMap([]kvExpr{{v, "result"}})},
			next: []sTrans{{to: next}}}
		if !mapped {
			hs.do, hs.with, hs.note = "noop", nil, genDoc+"compute gate "+id+" ("+g.ComputeUnit+": no compute mapping, needed to run it)"
		}
		tr.states = append(tr.states, hs)
	}
	hctx := tr.gateEnv(payloadVar, e)
	tr.capturing = !inNext // the payload of the event (a driver's has none)
	for _, t := range list {
		choose.next = append(choose.next, tr.transition(t, hctx, e))
	}
	tr.capturing = false
	if needsFallback(choose.next) {
		var wait string
		switch {
		case tr.startWait != "" && s == tr.bp.Entry: // a list of the entry state before START was taken
			wait = tr.startWait
		case tr.refire == s: // an event taken before the driver's: s fires it
			wait = s
		default:
			wait = tr.waitName(s)
		}
		choose.next = append(choose.next, sTrans{to: wait, note: "no " + e + " transition passed"})
	}
	tr.states = append(tr.states, choose)
	tr.usesPay = true
	pay := "{}"
	if !inNext {
		pay = tr.capture(e)
	}
	return []sTrans{{to: names[0], set: []kvExpr{{payloadVar, pay}}, note: "evaluate the compute gates of " + e, pos: list[0].Pos}}
}

var payloadRefRE = regexp.MustCompile(`event\.payload\??\.([A-Za-z_][A-Za-z0-9_]*)|event\.payload(?:\?\.)?\[("(?:[^"\\]|\\.)*")\]`)

// transition translates one blueprint transition in ctx: its guard, the
// sets that can run on it, and helper states for the rest of its actions.
func (tr *translator) transition(t *Transition, ctx *gate.Env, e string) sTrans {
	out := sTrans{to: t.To, note: t.ID, pos: t.Pos}
	var guards []string
	for _, id := range t.Gates {
		g := tr.bp.Gate(id)
		var x string
		if g.Type == GateCompute {
			x = gateVarPre + sanitize(id) + " == true"
		} else {
			x = tr.gateIn(g, ctx)
			tr.payloadFields(e, x, "") // before the rewrite below: read with [i], a field is a list
			if tr.capturing {
				// read through lpp_payload (after compute gates, the
				// event's payload captured): the fields the capture copies
				tr.payloadFields(e, g.Expr, "")
			}
			x = getPayloadIndex(x)
			if ctx.Payload == "event.payload" {
				if y, ok := replaceWholePayload(x, wholeToken(wholeGuard, e)); ok {
					x, tr.usesWhole = y, true
				}
			}
			// translated otherwise than at load (the payload read whole, a
			// driver's event, an event the import renamed): export writes
			// the gate back as the blueprint wrote it all the same
			if x != g.Expr && !slices.ContainsFunc(tr.wholeGates, func(m gateTextMeta) bool { return m.ID == g.ID && m.Expr == x }) {
				tr.wholeGates = append(tr.wholeGates, gateTextMeta{ID: g.ID, Src: g.Expression, Expr: x})
			}
		}
		if len(t.Gates) > 1 && (strings.Contains(x, "|") || strings.Contains(x, "&&")) { // one gate stays one conjunct (FromSpec splits at &&)
			x = "(" + x + ")"
		}
		guards = append(guards, x)
	}
	out.when = strings.Join(guards, " && ")
	// The longest prefix of set actions that reads nothing an earlier one
	// of them writes runs on the transition itself (lppctl's set entries
	// all see the context before the set).
	acts := make([]*Action, 0, len(t.Actions))
	for _, id := range t.Actions {
		if a := tr.bp.Action(id); !a.Skipped { // lpp skips it (a warning at load)
			acts = append(acts, a)
		}
	}
	written := map[string]bool{}
	if tr.bp.ReadsState { // written last: an action reading _state reads the state the transition leaves
		out.set = append(out.set, kvExpr{gate.StateVar, strconv.Quote(tr.bp.Spelling(t.To))})
	}
	n := 0
	for _, a := range acts {
		if a.Type != ActionSet || written[pathRoot(a.Target)] || written[pathRoot(a.ValueFrom)] || a.Target == gate.StateVar {
			break // a write of _state runs in a helper state: the transition itself writes the target
		}
		written[pathRoot(a.Target)] = true
		out.set = append(out.set, tr.noteRef(a, tr.setEntry(a, ctx.Payload, e)))
		if tr.capturing { // read through lpp_payload after compute gates: the capture copies it
			tr.readField(e, a.ValueFrom, tr.types[a.Target])
		}
		out.set = append(out.set, tr.defines(a.Target)...)
		n++
	}
	rest := acts[n:]
	if len(rest) == 0 {
		return out
	}
	capture := ctx.Payload == "event.payload" && slices.ContainsFunc(rest, readsPayload)
	// helper states, one per step, then the target.
	from := t.From
	if from == Any {
		from = "any"
	}
	base := sanitize(from) + "__" + sanitize(t.ID)
	var steps []*sState
	for i := 0; i < len(rest); {
		a := rest[i]
		st := &sState{name: tr.unique(fmt.Sprintf("%s_%d", base, len(steps)+1)), pos: a.Pos}
		switch a.Type {
		case ActionCompute:
			u, mapped := tr.m.Units[a.ComputeUnit]
			if !mapped { // validate, check, import: the mapping is needed only to run
				st.do, st.note = "noop", genDoc+"action "+a.ID+" (compute "+a.ComputeUnit+": no compute mapping, needed to run it)"
				if !slices.Contains(tr.unmapped, a) {
					tr.unmapped = append(tr.unmapped, a)
				}
				i++
				break
			}
			in := []kvExpr{{functionIn, strconv.Quote(u.Function)}}
			for _, kv := range a.InputMap {
				v := "nil" // a quoted text: lpp looks it up as a key, the unit gets None
				if lit, ok := strings.CutPrefix(kv.Value, literalRef); ok {
					v = lit // a number: lpp cannot run it (a warning at load)
				} else if !quotedLiteral(kv.Value) {
					v = tr.ref(kv.Value, payloadVar, e)
					if readsEvent(kv.Value) {
						q := quotedMeta{Action: a.ID, Key: kv.Key, Src: kv.Value, Expr: v}
						if !slices.Contains(tr.eventInputs, q) {
							tr.eventInputs = append(tr.eventInputs, q)
						}
					}
				}
				in = append(in, kvExpr{kv.Key, v})
				tr.readField(e, kv.Value, "")
			}
			st.do, st.note = "script.run", genDoc+"action "+a.ID+" (compute "+a.ComputeUnit+")"
			st.with = []string{"script: " + yamltext.Quote(u.Script), "input: " + flowMap(in), "lpp: true"}
			if len(a.OutputMap) > 0 {
				var outm, defs []kvExpr
				for _, kv := range a.OutputMap {
					outm = append(outm, kvExpr{kv.Key, kv.Value})
					if f := tr.bp.DefinedFlag(pathRoot(kv.Key)); f != "" && !slices.ContainsFunc(defs, func(d kvExpr) bool { return d.k == f }) {
						defs = append(defs, kvExpr{f, kv.Value}) // the output's key makes the property exist
					}
				}
				st.with = append(st.with, "output: "+flowMap(outm))
				if len(defs) > 0 {
					st.with = append(st.with, "defines: "+flowMap(defs))
				}
			}
			i++
		case ActionEmit:
			var pm []kvExpr
			for _, kv := range a.PayloadMap {
				pm = append(pm, kvExpr{kv.Key, tr.ref(kv.Value, payloadVar, e)})
				tr.readField(e, kv.Value, "")
			}
			if tr.handled(a.Event) {
				st.do, st.note = "emit", genDoc+"action "+a.ID+" (emit "+a.Event+")"
				st.with = []string{"event: " + yamltext.Key(a.Event)}
				if len(pm) > 0 {
					st.with = append(st.with, "payload: "+flowMap(pm))
					for _, kv := range a.PayloadMap {
						tr.addField(a.Event, kv.Key, tr.types[kv.Value])
					}
				}
			} else { // for the environment: the run records it
				st.do, st.note = "log", genDoc+"action "+a.ID+" (emit "+a.Event+" to the environment: no transition of the blueprint takes it)"
				st.with = []string{"message: " + yamltext.Quote("emit "+a.Event)}
				if len(pm) > 0 {
					parts := make([]string, len(pm))
					for i, kv := range pm {
						parts[i] = strconv.Quote(kv.k) + ": " + kv.v
					}
					st.with = append(st.with, "value: "+yamltext.Quote("{"+strings.Join(parts, ", ")+"}"))
				}
			}
			i++
		default: // a run of sets that read nothing written in the run
			st.do = "noop"
			w := map[string]bool{}
			var ids []string
			for ; i < len(rest) && rest[i].Type == ActionSet && !w[pathRoot(rest[i].Target)] && !w[pathRoot(rest[i].ValueFrom)]; i++ {
				w[pathRoot(rest[i].Target)] = true
				st.set = append(st.set, tr.noteRef(rest[i], tr.setEntry(rest[i], payloadVar, e)))
				st.set = append(st.set, tr.defines(rest[i].Target)...)
				tr.readField(e, rest[i].ValueFrom, tr.types[rest[i].Target])
				ids = append(ids, rest[i].ID)
			}
			st.note = genDoc + "action " + strings.Join(ids, ", ") + " (set)"
		}
		steps = append(steps, st)
	}
	var toState []kvExpr // _state: the target once the last step is done
	if tr.bp.ReadsState {
		toState = []kvExpr{out.set[0]}
		out.set = out.set[1:]
	}
	for i, st := range steps {
		to := t.To
		if i+1 < len(steps) {
			to = steps[i+1].name
		}
		st.next = []sTrans{{to: to}}
		if i+1 == len(steps) {
			st.next[0].set = toState
		}
		st.comment = fmt.Sprintf("step %d of %d of transition %s", i+1, len(steps), t.ID)
	}
	tr.states = append(tr.states, steps...)
	if slices.ContainsFunc(rest, readsPayload) {
		if tr.payHelpers == nil {
			tr.payHelpers = map[string]bool{}
		}
		tr.payHelpers[steps[0].name] = true
	}
	if capture {
		out.set = append(out.set, kvExpr{payloadVar, tr.capture(e)})
		tr.usesPay = true
	}
	out.note = t.ID + " (then " + steps[0].name + ")"
	out.to = steps[0].name
	return out
}

// resetPayload is the set of a state whose next list the driver fires
// (no payload): lpp_payload is empty there, for the list's guards and sets
// and for the helper states of its transitions (which would otherwise read
// the payload an earlier event left there).
func (tr *translator) resetPayload(next []sTrans) []kvExpr {
	for _, t := range next {
		if strings.Contains(t.when, payloadVar) || slices.ContainsFunc(t.set, func(kv kvExpr) bool { return strings.Contains(kv.v, payloadVar) }) || tr.payHelpers[t.to] {
			tr.usesPay = true
			return []kvExpr{{payloadVar, "{}"}}
		}
	}
	return nil
}

// needsFallback reports whether a next list can find no transition (its
// last one is guarded), so that a fallback after it can fire.
func needsFallback(next []sTrans) bool { return len(next) == 0 || next[len(next)-1].when != "" }

// capture is the map of the event's payload fields the helper states after
// it read (lppctl's payloads are typed records: each field is copied).
func (tr *translator) capture(e string) string {
	parts := make([]string, len(tr.fields[e]))
	for i, f := range tr.fields[e] {
		parts[i] = strconv.Quote(f.k) + ": " + fieldOf("event.payload", f.k, false)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// gateEnv is where a gate of a transition on event e is translated: the
// event's payload is payload (event.payload on the transition itself); its
// name is known statically, and written as the blueprint spells it, where
// the event is gone (a helper state, a driver's next list) or the import
// renamed it (GO-ON is GO_ON in the spec, but event.name == 'GO-ON' in lpp).
func (tr *translator) gateEnv(payload, e string) *gate.Env {
	name := tr.bp.Spelling(e)
	if payload == "event.payload" && name == e {
		name = ""
	}
	return gateEnvOf(tr.bp, payload, name)
}

// gateIn translates an expression gate where ctx says the event is (it
// translated at load, so it translates here too), once per context.
func (tr *translator) gateIn(g *Gate, ctx *gate.Env) string {
	if ctx.Payload == "event.payload" && ctx.EventName == "" {
		return g.Expr
	}
	k := [3]string{ctx.Payload, ctx.EventName, g.ID}
	if x, ok := tr.gateMemo[k]; ok {
		return x
	}
	x, _ := gate.TranslateIn(g.Expression, ctx)
	tr.gateMemo[k] = x
	return x
}
