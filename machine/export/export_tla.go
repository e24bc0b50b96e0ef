package export

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TLAModule is a spec written as a TLA+ module, for TLC, and TLC's
// configuration for it.
type TLAModule struct {
	Name   string // the module's name: TLC wants it in Name.tla (and the config in Name.cfg)
	Module []byte
	Config []byte
}

// ExportTLA writes the machine as a TLA+ module with the abstraction of
// ModelCheck (docs/check.md, "TLA+ export"):
//
//   - VARIABLES state, phase, steps, last_error and every context variable;
//     Init gives them their defaults.
//   - A state is entered in phase "enter"; its action step (phase "act")
//     gives each variable its action writes every value of the domain the
//     checker uses (\E over it), then applies the state's set. A state with
//     on_error may instead fail, once per error text, taking its route.
//   - From phase "act", each event that applies (with each payload the
//     checker tries), and the first next transition whose guard holds (the
//     negation of the earlier guards encodes the order) move to the next
//     state's phase "enter", counting a step.
//   - A final state stutters once its action ran; TLC's deadlock check finds
//     the states no step leaves, NotStuck the states with next where no
//     guard holds but an event from outside could fire (a run with no event
//     pending fails there: lppctl check reports both as deadlocks), and
//     invariants carry the spec's invariants,
//     final_requires (state = "f" /\ phase = "act" => cond), enums and
//     ranges (TypeOK) and the transition budget (Budget).
//
// An expression with no TLA+ equivalent (see export_tla_expr.go) or a float
// is an error naming where it is.
func ExportTLA(m *machine.Machine) (*TLAModule, error) {
	w := newTLAWriter(m)
	if err := w.write(); err != nil {
		return nil, err
	}
	return &TLAModule{Name: w.module, Module: w.moduleText(), Config: w.config()}, nil
}

// tlaReserved are the words a TLA+ identifier of the module may not be:
// keywords (with those of TLAPS proofs), the operators of the modules it
// extends, and its own names: its operators and the names they bind (the
// helpers' parameters s, t and i, the binders err and payload). TLA+ refuses
// a bound name or a parameter that redeclares a symbol in scope, so a
// context variable named so gets ctx_.
var tlaReserved = strings.Fields(`ACTION ASSUME ASSUMPTION AXIOM BOOLEAN BY CASE CHOOSE CONSTANT CONSTANTS
	COROLLARY DEF DEFINE DEFS DOMAIN ELSE ENABLED EXCEPT EXTENDS FALSE HAVE HIDE IF IN INSTANCE LAMBDA LEMMA
	LET LOCAL MODULE NEW OBVIOUS OMITTED ONLY OTHER PICK PROOF PROPOSITION PROVE QED RECURSIVE SF_ STATE
	STRING SUBSET SUFFICES TAKE TEMPORAL THEN THEOREM TRUE UNCHANGED UNION USE VARIABLE VARIABLES WF_ WITH
	WITNESS Nat Int Real Infinity Seq Len Head Tail Append SubSeq
	SelectSeq Cardinality IsFiniteSet Print PrintT Assert JavaTime TLCGet TLCSet TLCEval Permutations
	SortSeq RandomElement Any ToString
	state phase steps last_error vars Init Next Spec Done Nil MaxTransitions FinalStates ErrorValues
	TypeOK Budget NotStuck SetOf Contains HasPrefix HasSuffix Join s t i sep err payload emitted`)

var tlaIdentChars = regexp.MustCompile(`[^A-Za-z0-9_]+`)

type tlaWriter struct {
	m      *machine.Machine
	spec   *mspec.Spec
	x      *check.Explorer
	module string

	taken   map[string]bool
	varName map[string]string // context variable → its TLA+ variable
	bound   map[string]string // context variable → the name \E binds to what an action writes
	dom     map[string]string // context variable → the name of its domain
	payload map[string]string // event → the name of its payload set
	// emitted is the variable holding the payload an emit with a payload
	// sent ("" when no state emits one): its state's action step builds it
	// from the parameter's expressions, on the values the state is entered
	// with; every move clears it (Nil).
	emitted string
	uses    map[string]bool

	defs    bytes.Buffer // constant definitions: domains, payloads
	body    bytes.Buffer // Init and the actions
	inv     bytes.Buffer // the invariants
	actions []string
	invs    []string
	// stuck holds, per state with next and no fallback, the condition under
	// which it is stuck: no next guard holds (nor the event its emit sends).
	stuck []string
}

func newTLAWriter(m *machine.Machine) *tlaWriter {
	w := &tlaWriter{m: m, spec: m.Spec(), x: check.NewExplorer(m, check.CheckOptions{}),
		taken: map[string]bool{}, varName: map[string]string{}, bound: map[string]string{},
		dom: map[string]string{}, payload: map[string]string{}, uses: map[string]bool{}}
	for _, r := range tlaReserved {
		w.taken[r] = true
	}
	w.module = tlaIdentChars.ReplaceAllString(m.Spec().Name, "_")
	if !strings.ContainsAny(w.module, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		w.module = "spec_" + w.module
	}
	w.taken[w.module] = true
	for _, v := range m.Spec().Context {
		name := v.Name
		if w.taken[name] || !strings.ContainsAny(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			name = "ctx_" + name
		}
		w.varName[v.Name] = w.ident(name)
	}
	for _, v := range m.Spec().Context {
		w.bound[v.Name] = w.ident("w_" + v.Name)
	}
	for _, xs := range w.x.States {
		if ev, withPayload := xs.Emitted(); ev != nil && withPayload && !xs.Cs.St.Final {
			w.emitted = "emitted" // reserved: a context variable so named is ctx_emitted
		}
	}
	return w
}

// ident returns base made a fresh TLA+ identifier (a suffix when taken).
func (w *tlaWriter) ident(base string) string {
	base = tlaIdentChars.ReplaceAllString(base, "_")
	name := base
	for i := 2; w.taken[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	w.taken[name] = true
	return name
}

// variables lists the module's variables in order.
func (w *tlaWriter) variables() []string {
	out := []string{"state", "phase", "steps", "last_error"}
	for _, v := range w.spec.Context {
		out = append(out, w.varName[v.Name])
	}
	if w.emitted != "" {
		out = append(out, w.emitted)
	}
	return out
}

func (w *tlaWriter) maxTransitions() int {
	return check.Cmp0(w.spec.Limits.MaxTransitions, mspec.DefaultMaxTransitions)
}

func (w *tlaWriter) errorf(p mspec.Pos, format string, args ...any) error {
	return fmt.Errorf("%s:%d:%d: cannot export to TLA+: %s", w.spec.File, p.Line, p.Col, fmt.Sprintf(format, args...))
}

func (w *tlaWriter) write() error {
	for _, v := range w.spec.Context {
		if v.Type == mspec.TypeFloat {
			return w.errorf(v.TypePos, "context variable %q is a float, and TLC has no floats; make it an int (e.g. hundredths)", v.Name)
		}
	}
	if err := w.domains(); err != nil {
		return err
	}
	if err := w.init(); err != nil {
		return err
	}
	for _, xs := range w.x.States {
		if err := w.state(xs); err != nil {
			return err
		}
	}
	if slices.ContainsFunc(w.spec.States, func(st *mspec.State) bool { return st.Final }) {
		fmt.Fprintf(&w.body, "\\* A run that reached a final state (and ran its action) has ended.\nDone ==\n    /\\ state \\in FinalStates\n    /\\ phase = \"act\"\n    /\\ UNCHANGED vars\n\n")
		w.actions = append(w.actions, "Done")
	}
	return w.invariants()
}

// domains writes the values each variable an action writes takes, the
// error texts and the payloads, as the checker chooses them.
func (w *tlaWriter) domains() error {
	written := map[string][]any{}
	errs := false
	for _, xs := range w.x.States {
		for i, s := range xs.Writes {
			written[w.x.Vars[s].Name] = xs.Domains[i]
		}
		errs = errs || xs.ErrVals != nil
	}
	for _, v := range w.spec.Context {
		vals, ok := written[v.Name]
		if !ok {
			continue
		}
		source := w.x.DomainSource(v)
		set, err := tlaSet(vals, v.Range)
		if err != nil {
			return w.errorf(v.Pos, "the values of %q: %v", v.Name, err)
		}
		w.dom[v.Name] = w.ident("Dom_" + v.Name)
		fmt.Fprintf(&w.defs, "%s == %s  \\* %s\n", w.dom[v.Name], set, source)
	}
	if errs {
		set, _ := tlaSet(w.x.Cmp.ErrorValues(), nil)
		fmt.Fprintf(&w.defs, "ErrorValues == %s  \\* last_error of a failed action\n", set)
	}
	done := map[string]bool{}
	for _, xe := range w.x.Events {
		ce := w.m.Events[xe.Name]
		if done[xe.Name] || ce.Decl == nil || len(ce.Decl.Payload) == 0 {
			continue
		}
		done[xe.Name] = true
		var recs []string
		for _, p := range xe.Payloads {
			fields := reflect.ValueOf(p).Field(1)
			var parts []string
			for i, f := range ce.Decl.Payload {
				if tlaIdentChars.MatchString(f.Name) {
					return w.errorf(f.Pos, "payload field %q of event %q is not a TLA+ record field name (letters, digits, _)", f.Name, xe.Name)
				}
				if f.Type == mspec.TypeAny {
					// The check sends it a value of every JSON kind; TLC stops
					// when a guard compares values of two kinds (a string with
					// a number), so the module could not explore those sends.
					return w.errorf(f.Pos, "payload field %q of event %q is of type any: a TLA+ module gives a field values of one kind (TLC stops when it compares a string with a number); give the field a type (string, int, float, bool, list, map) to export the spec, `lppctl check` checks it as it is", f.Name, xe.Name)
				}
				t, err := tlaValue(fields.Field(i).Interface())
				if err != nil {
					return w.errorf(f.Pos, "payload field %q of event %q: %v", f.Name, xe.Name, err)
				}
				parts = append(parts, f.Name+" |-> "+t)
			}
			recs = append(recs, "["+strings.Join(parts, ", ")+"]")
		}
		w.payload[xe.Name] = w.ident("Payloads_" + xe.Name)
		fmt.Fprintf(&w.defs, "%s == {%s}\n", w.payload[xe.Name], strings.Join(recs, ", "))
	}
	return nil
}

// tlaSet writes a set of values; a full range as lo..hi.
func tlaSet(vals []any, r *mspec.Range) (string, error) {
	if r != nil && len(vals) == r.Hi-r.Lo+1 {
		return fmt.Sprintf("%d..%d", r.Lo, r.Hi), nil
	}
	if len(vals) == 2 && vals[0] == false && vals[1] == true {
		return "BOOLEAN", nil
	}
	items := make([]string, 0, len(vals))
	for _, v := range vals {
		t, err := tlaValue(v)
		if err != nil {
			return "", err
		}
		items = append(items, t)
	}
	return "{" + strings.Join(items, ", ") + "}", nil
}

func (w *tlaWriter) init() error {
	fmt.Fprintf(&w.body, "Init ==\n    /\\ state = %s\n    /\\ phase = \"enter\"\n    /\\ steps = 0\n    /\\ last_error = \"\"\n", tlaString(w.spec.Initial))
	for _, v := range w.spec.Context {
		t, err := tlaValue(v.Default)
		if err != nil {
			return w.errorf(v.DefPos, "the default of %q: %v", v.Name, err)
		}
		fmt.Fprintf(&w.body, "    /\\ %s = %s\n", w.varName[v.Name], t)
	}
	if w.emitted != "" {
		fmt.Fprintf(&w.body, "    /\\ %s = Nil\n", w.emitted)
	}
	w.body.WriteString("\n")
	return nil
}

// names returns the translation of every identifier to the module's
// variables.
func (w *tlaWriter) names() map[string]string {
	out := map[string]string{mspec.VarState: "state", mspec.VarLastError: "last_error"}
	for _, v := range w.spec.Context {
		out[v.Name] = w.varName[v.Name]
	}
	return out
}

// tlaStep is one action of the module: conditions outside and inside the
// \E binders, and the variables it changes (the others are UNCHANGED).
type tlaStep struct {
	name, comment string
	pre           []string
	binders       []string
	conds         []string
	next          map[string]string // TLA+ variable → its new value
}

func (w *tlaWriter) step(s *tlaStep) {
	fmt.Fprintf(&w.body, "\\* %s\n%s ==\n", s.comment, s.name)
	for _, c := range s.pre {
		fmt.Fprintf(&w.body, "    /\\ %s\n", c)
	}
	indent := "    "
	if len(s.binders) > 0 {
		fmt.Fprintf(&w.body, "    /\\ \\E %s :\n", strings.Join(s.binders, ", "))
		indent = "        "
	}
	for _, c := range s.conds {
		fmt.Fprintf(&w.body, "%s/\\ %s\n", indent, c)
	}
	var same []string
	for _, v := range w.variables() {
		if t, ok := s.next[v]; ok {
			fmt.Fprintf(&w.body, "%s/\\ %s' = %s\n", indent, v, t)
		} else {
			same = append(same, v)
		}
	}
	if len(same) > 0 {
		fmt.Fprintf(&w.body, "    /\\ UNCHANGED <<%s>>\n", strings.Join(same, ", "))
	}
	w.body.WriteString("\n")
	w.actions = append(w.actions, s.name)
}

// state writes the actions of one state: its action step, its failure, its
// events and its next transitions.
func (w *tlaWriter) state(xs *check.Xstate) error {
	st, cs := xs.Cs.St, xs.Cs
	sid := tlaIdentChars.ReplaceAllString(st.Name, "_")
	inState := "state = " + tlaString(st.Name)

	// The action (with every value of what it writes), then the set.
	act := &tlaStep{name: w.ident(sid + "_act"), pre: []string{inState, `phase = "enter"`}, next: map[string]string{"phase": `"act"`}}
	if !st.Final {
		act.pre = append(act.pre, "steps < MaxTransitions")
	}
	names := w.names()
	var wrote []string
	for _, s := range xs.Writes {
		v := w.x.Vars[s]
		act.binders = append(act.binders, w.bound[v.Name]+" \\in "+w.dom[v.Name])
		names[v.Name] = w.bound[v.Name]
		act.next[w.varName[v.Name]] = w.bound[v.Name]
		wrote = append(wrote, v.Name)
	}
	act.comment = fmt.Sprintf("state %s (%s:%d:%d)", st.Name, w.spec.File, st.Pos.Line, st.Pos.Col)
	switch {
	case st.Do != "" && len(wrote) > 0:
		act.comment += fmt.Sprintf(": its action %s writes %s", st.Do, strings.Join(wrote, ", "))
	case st.Do != "":
		act.comment += fmt.Sprintf(": its action %s writes nothing", st.Do)
	default:
		act.comment += ": no action"
	}
	if len(cs.Set) > 0 {
		act.comment += "; then its set"
	}
	if err := w.assigns(st.Set, names, nil, "", fmt.Sprintf("set of state %q", st.Name), act.next); err != nil {
		return err
	}
	emit, err := w.emission(xs, act)
	if err != nil {
		return err
	}
	w.step(act)

	if xs.ErrVals != nil {
		oe := st.OnError
		fail := &tlaStep{name: w.ident(sid + "_on_error"),
			comment: fmt.Sprintf("on_error of %s (%s:%d:%d): its action fails", st.Name, w.spec.File, oe.Pos.Line, oe.Pos.Col),
			pre:     []string{inState, `phase = "enter"`, "steps < MaxTransitions"},
			binders: []string{"err \\in ErrorValues"},
			next:    w.move(oe.To)}
		fail.next["last_error"] = "err"
		names := w.names()
		names[mspec.VarLastError] = "err"
		if err := w.assigns(oe.Set, names, nil, "", fmt.Sprintf("set of on_error of state %q", st.Name), fail.next); err != nil {
			return err
		}
		w.step(fail)
	}
	if st.Final {
		return nil
	}
	if err := w.emittedSteps(xs, emit); err != nil {
		return err
	}

	for _, xe := range xs.Events {
		payload := ""
		if p := w.payload[xe.Name]; p != "" {
			payload = "payload"
		}
		tr := &tlaTranslator{names: w.names(), payload: payload, event: xe.Name, uses: w.uses}
		env := w.m.Events[xe.Name].Env
		var earlier []string
		for i, ct := range xe.Trans {
			what := fmt.Sprintf("%s of state %q", ct.Via, st.Name)
			ev := &tlaStep{name: w.ident(fmt.Sprintf("%s_%s_%d", sid, xe.Name, i)),
				comment: fmt.Sprintf("%s (%s:%d:%d): %s -> %s%s", ct.Via, w.spec.File, ct.T.Pos.Line, ct.T.Pos.Col, st.Name, ct.Target, whenComment(ct.T.When)),
				pre:     append([]string{inState, `phase = "act"`}, emit.notFor(xe.Name)...),
				next:    w.move(ct.Target)}
			if payload != "" {
				ev.binders = []string{"payload \\in " + w.payload[xe.Name]}
			}
			ev.conds = slices.Clone(earlier)
			if ct.T.When != "" {
				g, err := tr.translate(ct.T.When, env, tlaExprSite{w.spec.File, w.spec.Source, ct.T.WhenPos, "guard of " + what})
				if err != nil {
					return err
				}
				ev.conds = append(ev.conds, g)
				earlier = append(earlier, "~"+g)
			}
			if err := w.assigns(ct.T.Set, tr.names, tr, payload, "set of "+what, ev.next); err != nil {
				return err
			}
			ev.next["last_error"] = `""`
			w.step(ev)
			if ct.T.When == "" {
				break // the later transitions of the event never fire
			}
		}
	}

	tr := &tlaTranslator{names: w.names(), uses: w.uses}
	env := mspec.TypeEnv(w.spec)
	var earlier []string
	for i, ct := range cs.Next {
		what := fmt.Sprintf("next[%d] of state %q", i, st.Name)
		nx := &tlaStep{name: w.ident(fmt.Sprintf("%s_next_%d", sid, i)),
			comment: fmt.Sprintf("next[%d] (%s:%d:%d): %s -> %s%s", i, w.spec.File, ct.T.Pos.Line, ct.T.Pos.Col, st.Name, ct.Target, whenComment(ct.T.When)),
			pre:     append([]string{inState, `phase = "act"`}, emit.notFor("")...),
			next:    w.move(ct.Target)}
		nx.conds = slices.Clone(earlier)
		if ct.T.When != "" {
			g, err := tr.translate(ct.T.When, env, tlaExprSite{w.spec.File, w.spec.Source, ct.T.WhenPos, "guard of " + what})
			if err != nil {
				return err
			}
			nx.conds = append(nx.conds, g)
			earlier = append(earlier, "~"+g)
		}
		if err := w.assigns(ct.T.Set, tr.names, tr, "", "set of "+what, nx.next); err != nil {
			return err
		}
		nx.next["last_error"] = `""`
		w.step(nx)
		if ct.T.When == "" {
			break // the later transitions never fire
		}
	}
	if n := len(cs.Next); n > 0 && cs.Next[n-1].T.When != "" {
		// A state with next does not wait for events: with none pending, a
		// run fails where no guard holds, even if an event from outside
		// could move it (the event's steps above stay, as the runs that had
		// it pending). TLC's deadlock check cannot see that; NotStuck does.
		w.stuck = append(w.stuck, strings.Join(append(append([]string{inState, `phase = "act"`}, emit.notFor("")...), earlier...), " /\\ "))
	}
	return nil
}

func whenComment(when string) string {
	if when == "" {
		return ""
	}
	return " when " + strings.Join(strings.Fields(when), " ")
}

// move returns the changes of a transition to target.
func (w *tlaWriter) move(target string) map[string]string {
	next := map[string]string{"state": tlaString(target), "phase": `"enter"`, "steps": "steps + 1"}
	if w.emitted != "" {
		next[w.emitted] = "Nil"
	}
	return next
}

// assigns translates a set into next, against the identifiers of names (and
// an event's payload).
func (w *tlaWriter) assigns(set []*mspec.Assign, names map[string]string, tr *tlaTranslator, payload, what string, next map[string]string) error {
	if tr == nil {
		tr = &tlaTranslator{names: names, payload: payload, uses: w.uses}
	}
	for _, a := range set {
		v := w.spec.Var(a.Var)
		if v == nil {
			continue // Validate reports it
		}
		env := mspec.TypeEnv(w.spec)
		if tr.event != "" {
			env = w.m.Events[tr.event].Env
		}
		t, err := tr.translate(a.Expr, env, tlaExprSite{w.spec.File, w.spec.Source, a.ExprPos, what + ": " + a.Var})
		if err != nil {
			return err
		}
		next[w.varName[a.Var]] = t
	}
	return nil
}

// invariants writes TypeOK (enums, ranges, bools), Budget, the spec's
// invariants and its final_requires.
func (w *tlaWriter) invariants() error {
	var typeOK []string
	for _, v := range w.spec.Context {
		name := w.varName[v.Name]
		var set string
		switch {
		case len(v.Enum) > 0:
			vals := make([]any, len(v.Enum))
			for i, e := range v.Enum {
				vals[i] = e
			}
			set, _ = tlaSet(vals, nil)
		case v.Range != nil:
			set = fmt.Sprintf("%d..%d", v.Range.Lo, v.Range.Hi)
		case v.Type == mspec.TypeBool:
			set = "BOOLEAN"
		default:
			continue
		}
		if v.Nullable {
			set += " \\cup {Nil}"
		}
		typeOK = append(typeOK, name+" \\in "+set)
	}
	if len(typeOK) > 0 {
		fmt.Fprintf(&w.inv, "\\* Enums and ranges hold (a set outside them fails the run or the bounds property).\nTypeOK ==\n")
		for _, c := range typeOK {
			fmt.Fprintf(&w.inv, "    /\\ %s\n", c)
		}
		w.inv.WriteString("\n")
		w.invs = append(w.invs, "TypeOK")
	}
	fmt.Fprintf(&w.inv, "\\* The run does not exhaust max_transitions (it would fail with %q).\nBudget == state \\notin FinalStates => steps < MaxTransitions\n\n", machine.ErrBudget.Error())
	w.invs = append(w.invs, "Budget")
	if len(w.stuck) > 0 {
		w.inv.WriteString("\\* No state with next is stuck: a state with next does not wait for events, so\n" +
			"\\* where none of its guards holds (nor the event its emit sends) a run with no\n" +
			"\\* event pending fails, even when an event from outside could move it (a\n" +
			"\\* deadlock for lppctl check; TLC's deadlock check sees only the states no\n" +
			"\\* step leaves).\nNotStuck ==\n")
		for _, c := range w.stuck {
			fmt.Fprintf(&w.inv, "    /\\ ~(%s)\n", c)
		}
		w.inv.WriteString("\n")
		w.invs = append(w.invs, "NotStuck")
	}
	tr := &tlaTranslator{names: w.names(), uses: w.uses}
	env := mspec.TypeEnv(w.spec)
	for _, c := range w.spec.Invariants {
		what := fmt.Sprintf("invariant %q", c.Name)
		t, err := tr.translate(c.Expr, env, tlaExprSite{w.spec.File, w.spec.Source, c.ExprPos, what})
		if err != nil {
			return err
		}
		where := `phase = "enter"`
		if len(c.In) > 0 {
			states := make([]any, len(c.In))
			for i, s := range c.In {
				states[i] = s
			}
			set, _ := tlaSet(states, nil)
			where += " /\\ state \\in " + set
		}
		name := w.ident("Inv_" + c.Name)
		fmt.Fprintf(&w.inv, "\\* %s (%s:%d:%d)\n%s == %s => %s\n\n", what, w.spec.File, c.Pos.Line, c.Pos.Col, name, where, t)
		w.invs = append(w.invs, name)
	}
	for _, st := range w.spec.States {
		for i, c := range st.FinalRequires {
			what := mspec.RequirementLabel(c, st.Name)
			t, err := tr.translate(c.Expr, env, tlaExprSite{w.spec.File, w.spec.Source, c.ExprPos, what})
			if err != nil {
				return err
			}
			base := c.Name
			if strings.HasPrefix(base, "final_requires[") {
				base = fmt.Sprint(i)
			}
			name := w.ident(fmt.Sprintf("Final_%s_%s", st.Name, base))
			fmt.Fprintf(&w.inv, "\\* %s (%s:%d:%d): checked when the run ends there\n%s == state = %s /\\ phase = \"act\" => %s\n\n",
				what, w.spec.File, c.Pos.Line, c.Pos.Col, name, tlaString(st.Name), t)
			w.invs = append(w.invs, name)
		}
	}
	return nil
}

// tlaHelpers are the operators the translated expressions may use.
var tlaHelpers = []struct{ name, def string }{
	{"SetOf", "SetOf(s) == {s[i] : i \\in DOMAIN s}"},
	{"Contains", "Contains(s, t) == \\E i \\in 0..(Len(s) - Len(t)) : SubSeq(s, i + 1, i + Len(t)) = t"},
	{"HasPrefix", "HasPrefix(s, t) == Len(t) <= Len(s) /\\ SubSeq(s, 1, Len(t)) = t"},
	{"HasSuffix", "HasSuffix(s, t) == Len(t) <= Len(s) /\\ SubSeq(s, Len(s) - Len(t) + 1, Len(s)) = t"},
	{"Join", "RECURSIVE Join(_, _)\nJoin(s, sep) == IF Len(s) = 0 THEN \"\" ELSE IF Len(s) = 1 THEN Head(s) ELSE Head(s) \\o sep \\o Join(Tail(s), sep)"},
}

func (w *tlaWriter) moduleText() []byte {
	var b bytes.Buffer
	dashes := strings.Repeat("-", 4)
	fmt.Fprintf(&b, "%s MODULE %s %s\n", dashes, w.module, dashes)
	fmt.Fprintf(&b, "\\* Spec %q (%s), written by lppctl export --format tla with the\n", w.spec.Name, w.spec.File)
	b.WriteString("\\* abstraction of lppctl check: what an action writes takes every value of\n")
	b.WriteString("\\* the domains below. Check it with TLC and the configuration (.cfg) printed\n")
	b.WriteString("\\* with it; docs/check.md, \"TLA+ export\", tells how to read it.\n")
	b.WriteString("EXTENDS Integers, Sequences, FiniteSets, TLC\n\n")
	b.WriteString("CONSTANTS\n    MaxTransitions, \\* limits.max_transitions: a run that makes this many transitions fails\n    Nil             \\* the value nil (a model value)\n\n")
	vars := w.variables()
	b.WriteString("\\* phase: \"enter\" when the state is entered, \"act\" once its action ran and\n\\* its set applied; steps: the transitions taken.\n")
	fmt.Fprintf(&b, "VARIABLES %s\n\nvars == <<%s>>\n\n", strings.Join(vars, ", "), strings.Join(vars, ", "))
	var finals []any
	for _, st := range w.spec.States {
		if st.Final {
			finals = append(finals, st.Name)
		}
	}
	set, _ := tlaSet(finals, nil)
	fmt.Fprintf(&b, "FinalStates == %s\n", set)
	if w.defs.Len() > 0 {
		b.WriteString("\n\\* The values lppctl check gives what actions write, error texts and payloads.\n")
		b.Write(w.defs.Bytes())
	}
	b.WriteString("\n")
	used := false
	for _, h := range tlaHelpers {
		if w.uses[h.name] {
			b.WriteString(h.def + "\n")
			used = true
		}
	}
	if used {
		b.WriteString("\n")
	}
	b.Write(w.body.Bytes())
	b.WriteString("Next ==\n")
	for _, a := range w.actions {
		fmt.Fprintf(&b, "    \\/ %s\n", a)
	}
	b.WriteString("\nSpec == Init /\\ [][Next]_vars\n\n")
	b.Write(w.inv.Bytes())
	b.WriteString(strings.Repeat("=", 77) + "\n")
	return b.Bytes()
}

func (w *tlaWriter) config() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "\\* TLC configuration of %s.tla (lppctl export --format tla)\n", w.module)
	b.WriteString("SPECIFICATION Spec\n")
	fmt.Fprintf(&b, "CONSTANTS\n    MaxTransitions = %d\n    Nil = Nil\n", w.maxTransitions())
	b.WriteString("INVARIANTS\n")
	for _, name := range w.invs {
		fmt.Fprintf(&b, "    %s\n", name)
	}
	b.WriteString("CHECK_DEADLOCK TRUE\n")
	return b.Bytes()
}
