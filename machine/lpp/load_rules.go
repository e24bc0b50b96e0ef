package lpp

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/lppctl/lppctl/machine/lpp/gate"
	"github.com/lppctl/lppctl/machine/lpp/jsonpos"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// This file decodes the rules of a blueprint: gates, actions, transitions,
// and checks how they refer to each other.

func (d *decoder) gates(n *jsonpos.Node, bp *Blueprint) {
	for _, m := range n.Members {
		if bp.Gate(m.Key) != nil {
			continue
		}
		d.declare("gates", m.Key)
		what := fmt.Sprintf("gate %q", m.Key)
		if !d.want(m.Val, jsonpos.Object, what) {
			continue
		}
		g := &Gate{ID: m.Key, Pos: m.KeyPos}
		typ, tn := GateExpression, (*jsonpos.Node)(nil) // lpp's loader: a missing type is an expression
		if m.Val.Get("type") != nil {
			typ, tn = d.reqString(m.Val, "type", what, `"type": "expression" or "compute"`)
		}
		if im := m.Val.Member("input_map"); im != nil && typ == GateCompute {
			// lpp's format has it (lpp-format.md §7); lpp never runs a compute gate
			d.warnf(im.KeyPos, len("input_map")+2, "the unit reads the context's properties and the event by name",
				"input_map of %s is not used: lppctl gives a compute gate's unit every context property and the event (lpp never runs the unit: a compute gate is true)", what)
			d.unknownKeys(m.Val, what, "type", "expression", "compute_unit", "input_map", "description")
		} else {
			d.unknownKeys(m.Val, what, "type", "expression", "compute_unit", "description")
		}
		switch typ {
		case GateExpression:
			g.Type = typ
			g.Expression, g.exprNode = d.reqString(m.Val, "expression", what, `add "expression": "x is not None"`)
		case GateCompute:
			g.Type = typ
			g.ComputeUnit, _ = d.unit(m.Val, what)
		case "":
			continue
		default:
			d.errorf(tn.Pos, len([]rune(typ))+2, cmp.Or(mspec.DidYouMeanHint(typ, []string{GateExpression, GateCompute}), `use "expression" or "compute"`),
				"unknown type %q of %s", typ, what)
			continue
		}
		bp.Gates = append(bp.Gates, g)
	}
}

// unit reads a compute_unit member. lpp splits it at ":" and runs only a
// text of exactly two parts (any characters after the colon:
// "impl:json.load"); any other text, or no compute_unit (some blueprints
// write "unit"), makes lpp skip the action: skipped is then true, with a
// warning.
func (d *decoder) unit(obj *jsonpos.Node, what string) (unit string, skipped bool) {
	un := obj.Get("compute_unit")
	if un == nil || un.Kind != jsonpos.String {
		p, hint := obj.Pos, `add "compute_unit": "namespace:operation"`
		if m := obj.Member("unit"); m != nil {
			p, hint = m.KeyPos, `rename "unit" to "compute_unit"`
		} else if un != nil {
			p = un.Pos
		}
		d.warnf(p, 1, hint, "%s has no compute_unit: lpp skips it, and lppctl runs it as a no-op", what)
		return "", true
	}
	u := un.Str
	if strings.Count(u, ":") != 1 {
		d.warnf(un.Pos, 1, `write it as "namespace:operation", e.g. "pricing:quote"`,
			"compute_unit of %s is not namespace:operation (one colon): lpp skips it, and lppctl runs it as a no-op", what)
		return "", true
	}
	if l := len([]rune(u)); l > maxName {
		d.errorf(un.Pos, 1, "shorten it", "compute_unit is %d characters long: lppctl takes names of at most %d characters", l, maxName)
		return "", false
	}
	return u, false
}

// kvs reads an object of strings, in file order.
func (d *decoder) kvs(obj *jsonpos.Node, key, what string) []KV {
	v := obj.Get(key)
	if v == nil || v.Kind == jsonpos.Null {
		return nil
	}
	if !d.want(v, jsonpos.Object, key+" of "+what) {
		return nil
	}
	var out []KV
	for _, m := range v.Members {
		if m.Val.Kind != jsonpos.String {
			if key == "input_map" && d.badInput != nil {
				*d.badInput = m.Val.Pos
				if nf := d.nonFiniteIn(m.Val); len(nf) > 0 {
					d.warnf(nf[0].Pos, len(nf[0].Str), "write the name of a context property or event.payload.NAME",
						"input_map of %s maps %q to %s, not a path: lpp cannot run the action (its path lookup fails); %s, and passes nil", what, m.Key, pyReads(nf[0]), cannotCarry)
					out = append(out, KV{Key: m.Key, Value: literalRef + "nil"})
					continue
				}
				d.warnf(m.Val.Pos, 1, "write the name of a context property or event.payload.NAME",
					"input_map of %s maps %q to %s, not a path: lpp cannot run the action (its path lookup fails); lppctl passes the value", what, m.Key, m.Val.Describe())
				out = append(out, KV{Key: m.Key, Value: literalRef + string(d.src[m.Val.Off:m.Val.End])})
				continue
			}
			d.errorf(m.Val.Pos, 1, "", "%s of %s must map names to strings, and %q is %s", key, what, m.Key, m.Val.Describe())
			continue
		}
		if key == "input_map" && quotedLiteral(m.Val.Str) {
			d.warnf(m.Val.Pos, len([]rune(m.Val.Str))+2, "lpp looks a quoted text up as a key: pass the value in a property",
				"input_map of %s passes %s, which lpp reads as a name: the unit receives None (lppctl passes nil)", what, m.Val.Str)
		}
		out = append(out, KV{Key: m.Key, Value: m.Val.Str})
	}
	return out
}

func (d *decoder) actions(n *jsonpos.Node, bp *Blueprint) {
	for _, m := range n.Members {
		if bp.Action(m.Key) != nil {
			continue
		}
		d.declare("actions", m.Key)
		what := fmt.Sprintf("action %q", m.Key)
		if !d.want(m.Val, jsonpos.Object, what) {
			continue
		}
		a := &Action{ID: m.Key, Pos: m.KeyPos}
		typ, tn := ActionSet, (*jsonpos.Node)(nil) // lpp's loader: a missing type is a set
		if m.Val.Get("type") != nil {
			typ, tn = d.reqString(m.Val, "type", what, `"type": "set", "compute" or "emit"`)
		}
		switch typ {
		case ActionSet:
			d.unknownKeys(m.Val, what, "type", "target", "value", "value_from", "description")
			d.setAction(m.Val, a, bp, what)
		case ActionCompute:
			d.unknownKeys(m.Val, what, "type", "compute_unit", "unit", "input_map", "output_map", "description")
			a.ComputeUnit, a.Skipped = d.unit(m.Val, what)
			d.badInput = &a.BadInput
			a.InputMap = d.kvs(m.Val, "input_map", what)
			d.badInput = nil
			a.OutputMap = d.kvs(m.Val, "output_map", what)
		case ActionEmit:
			d.unknownKeys(m.Val, what, "type", "event", "payload_map", "description")
			var en *jsonpos.Node
			a.Event, en = d.reqString(m.Val, "event", what, `add "event": "NAME"`)
			if en != nil {
				a.Event = d.eventID(bp, a.Event)
			}
			a.PayloadMap = d.kvs(m.Val, "payload_map", what)
		case "":
			continue
		default:
			// lpp's loader refuses it, its compiler skips it: refused when
			// a transition uses it (transitions), else a warning.
			a.Unknown, a.TypePos = true, tn.Pos
		}
		a.Type = typ
		bp.Actions = append(bp.Actions, a)
	}
}

func (d *decoder) setAction(obj *jsonpos.Node, a *Action, bp *Blueprint, what string) {
	target, _ := d.reqString(obj, "target", what, `add "target": "PROPERTY"`)
	a.Target = target
	v, vf := obj.Get("value"), obj.Get("value_from")
	switch {
	case v != nil && vf != nil && v.Kind == jsonpos.Null:
		// lpp's compiled operator takes value unless it is null, run_frame
		// value_from: with a null value both read value_from.
		d.warnf(v.Pos, 1, "keep one of them", "%s has both value and value_from: its value is null, so lpp reads value_from (lppctl too)", what)
		d.setAction(withoutKey(obj, "value"), a, bp, what)
	case v != nil && vf != nil:
		d.warnf(vf.Pos, 1, "keep one of them", "%s has both value and value_from: lpp's compiled operator (its interactive tools) uses value, which is not null, and lppctl does too; its run_frame uses value_from", what)
		d.setAction(withoutKey(obj, "value_from"), a, bp, what)
	case v != nil:
		a.Value, a.HasValue = v.Value(), true
		if nf := d.nonFiniteIn(v); len(nf) > 0 {
			a.nonFinite = nf[0] // refused if a transition runs it (transitions), else a warning (unusedRules)
			return
		}
		if p := bp.Property(d.propID(target)); p != nil && v.Kind != jsonpos.Null && !typeAccepts(p.Type, v) {
			d.errorf(v.Pos, 1, "", "value of %s must be %s (the type of %q), not %s", what, gate.TypeArticle(p.Type), target, v.Describe())
		}
	case vf != nil:
		if vf.Kind != jsonpos.String || vf.Str == "" {
			d.errorf(vf.Pos, 1, `write "event.payload.NAME" or a property name`, "value_from of %s must be a string, not %s", what, vf.Describe())
			return
		}
		a.ValueFrom = vf.Str
	default:
		d.errorf(obj.Pos, 1, `add "value": LITERAL or "value_from": "event.payload.NAME"`, "%s has neither value nor value_from", what)
	}
}

var transitionKeys = []string{"id", "from", "to", "on_event", "gates", "actions", "description", "guard", "gate"}

func (d *decoder) transitions(n *jsonpos.Node, bp *Blueprint) {
	ids, refused := map[string]bool{}, map[string]bool{}
	written := map[string]bool{} // every id the array spells, for the name of a duplicate
	for _, it := range n.Items {
		if id := it.Get("id"); id != nil && id.Kind == jsonpos.String {
			written[id.Str] = true
		}
	}
	for i, it := range n.Items {
		what := fmt.Sprintf("transition %d", i+1)
		if !d.want(it, jsonpos.Object, what) {
			continue
		}
		t := &Transition{Pos: it.Pos, ID: fmt.Sprintf("transition_%d", i)} // lpp's loader's default id
		if it.Get("id") == nil {
			// lpp's loader names it transition_N
		} else if id, idn := d.reqString(it, "id", what, `add "id": "t`+fmt.Sprint(i+1)+`"`); idn != nil {
			t.ID = id
			what = fmt.Sprintf("transition %q", id)
			if ids[id] {
				// lpp keeps transitions in a list and never looks one up by
				// id: it reads both; lppctl's names must differ
				k := 2
				for written[fmt.Sprintf("%s_%d", id, k)] || ids[fmt.Sprintf("%s_%d", id, k)] {
					k++
				}
				t.ID, t.Written = fmt.Sprintf("%s_%d", id, k), id
				d.warnf(idn.Pos, len([]rune(id))+2, "give each transition its own id",
					"duplicate transition id %q: lpp reads both transitions (it never looks one up by id); lppctl calls this one %q, and export writes %q back", id, t.ID, id)
				what = fmt.Sprintf("transition %q", t.ID)
			}
			ids[t.ID] = true
		}
		oldEvent := it.Get("on_event") == nil && it.Member("event") != nil // v0.1.0's key
		if oldEvent {
			d.unknownKeys(it, what, append(slices.Clone(transitionKeys), "event")...)
		} else {
			d.unknownKeys(it, what, transitionKeys...)
		}
		for _, k := range []string{"guard", "gate"} {
			if m := it.Member(k); m != nil {
				d.warnf(m.KeyPos, len(k)+2, `name its gates in "gates": [...]`,
					"%q of %s is ignored: lpp reads only \"gates\", so the transition is unguarded (in lppctl too)", k, what)
			}
		}
		if from, fn := d.reqString(it, "from", what, `add "from": "STATE" (or "*" for every state)`); fn != nil {
			t.From, t.FromPos = from, fn.Pos
			if from != Any {
				t.From = d.stateID(from)
			}
			if from != Any && bp.State(t.From) == nil && len(bp.States) > 0 && !d.refusedTerminals[from] {
				d.errorf(fn.Pos, len([]rune(from))+2, d.stateHint(bp, from), "%s starts in %q, which is not a state (lpp's loader refuses it too)", what, from)
			}
		}
		if to, tn := d.reqString(it, "to", what, `add "to": "STATE"`); tn != nil {
			t.To, t.ToPos = d.stateID(to), tn.Pos
			if bp.State(t.To) == nil && len(bp.States) > 0 && !d.refusedTerminals[to] {
				d.errorf(tn.Pos, len([]rune(to))+2, d.stateHint(bp, to), "%s goes to %q, which is not a state (lpp's loader refuses it too)", what, to)
			}
		}
		if oldEvent {
			m := it.Member("event")
			d.errorf(m.KeyPos, len("event")+2, `rename "event" to "on_event"`,
				`%s has "event", the lpp/v0.1.0 spelling of "on_event" (renamed in lpp/v0.1.1): lpp's loader requires "on_event"`, what)
		} else if ev, en := d.reqString(it, "on_event", what, `add "on_event": "EVENT"`); en != nil {
			t.Event, t.EventPos = d.eventID(bp, ev), en.Pos
		}
		t.Gates = d.refs(it, "gates", what, func(id string) bool { return bp.Gate(id) != nil }, gateIDs(bp))
		t.Actions = d.refs(it, "actions", what, func(id string) bool { return bp.Action(id) != nil }, actionIDs(bp))
		for _, id := range t.Gates {
			bp.Gate(id).Used = true
		}
		if acts := it.Get("actions"); acts != nil {
			for _, id := range t.Actions {
				a := bp.Action(id)
				p := acts.Items[slices.IndexFunc(acts.Items, func(n *jsonpos.Node) bool { return n.Kind == jsonpos.String && n.Str == id })].Pos
				switch {
				case a.Unknown:
					d.errorf(p, len([]rune(id))+2, `use "set", "compute" or "emit"`,
						"%s runs action %q of unknown type %q: lpp's loader refuses it too", what, id, a.Type)
				case a.nonFinite != nil && !refused[a.ID]:
					refused[a.ID] = true
					n := a.nonFinite
					d.errorf(n.Pos, len(n.Str), insteadHint(n), "the value of action %q is %s: %s, and %s runs the action", id, pyReads(n), cannotCarry, what)
				}
			}
		}
		bp.Transitions = append(bp.Transitions, t)
	}
}

// declare records that id is written under key (gates or actions).
func (d *decoder) declare(key, id string) {
	if d.declared == nil {
		d.declared = map[string]bool{}
	}
	d.declared[key+"/"+id] = true
}

// refs reads a list of gate or action ids, reporting unknown ones.
func (d *decoder) refs(obj *jsonpos.Node, key, what string, known func(string) bool, all []string) []string {
	v := obj.Get(key)
	if v == nil || v.Kind == jsonpos.Null {
		return nil
	}
	if !d.want(v, jsonpos.Array, key+" of "+what) {
		return nil
	}
	var out []string
	for _, it := range v.Items {
		if it.Kind != jsonpos.String {
			d.errorf(it.Pos, 1, "", "%s of %s must list ids, not %s", key, what, it.Describe())
			continue
		}
		if !known(it.Str) {
			if d.declared[key+"/"+it.Str] {
				continue // declared but invalid: reported where it is declared
			}
			d.errorf(it.Pos, len([]rune(it.Str))+2, cmp.Or(mspec.DidYouMeanHint(it.Str, all), fmt.Sprintf("declare it under %q", key)),
				"%s of %s names %q, which is not declared in %s", key, what, it.Str, key)
			continue
		}
		out = append(out, it.Str)
	}
	return out
}

func gateIDs(bp *Blueprint) []string {
	out := make([]string, len(bp.Gates))
	for i, g := range bp.Gates {
		out[i] = g.ID
	}
	return out
}

func actionIDs(bp *Blueprint) []string {
	out := make([]string, len(bp.Actions))
	for i, a := range bp.Actions {
		out[i] = a.ID
	}
	return out
}

// unusedRules warns about actions of unknown types no transition runs
// (lpp's loader refuses them; its compiler skips them).
func (d *decoder) unusedRules(bp *Blueprint) {
	run := map[string]bool{}
	for _, t := range bp.Transitions {
		for _, id := range t.Actions {
			run[id] = true
		}
	}
	for _, a := range bp.Actions {
		if a.nonFinite != nil && !run[a.ID] {
			n := a.nonFinite
			d.warnf(n.Pos, len(n.Str), insteadHint(n), "the value of action %q is %s: %s; no transition runs the action (export writes null)", a.ID, pyReads(n), cannotCarry)
		}
		if a.Unknown && !run[a.ID] {
			d.warnf(a.TypePos, len([]rune(a.Type))+2, `use "set", "compute" or "emit"`,
				"unknown type %q of action %q: lpp's loader refuses it; no transition runs it", a.Type, a.ID)
		}
	}
}

// translateGates translates every expression gate, reporting refusals at
// their column inside the expression.
func (d *decoder) translateGates(bp *Blueprint) {
	for _, g := range bp.Gates {
		if g.Type != GateExpression || g.exprNode == nil {
			continue
		}
		env := gateEnvOf(bp, "event.payload", "")
		out, err := gate.TranslateIn(g.Expression, env)
		if err != nil {
			ge := err.(*gate.Error)
			p := g.exprNode.ColOf(ge.Col - 1)
			if !g.Used { // never evaluated for a transition (display rules, or nothing): kept as written
				d.warnf(p, ge.Span, "no transition uses the gate: it is kept as written",
					"gate %q does not translate (column %d of its expression: %s); no transition uses it", g.ID, ge.Col, ge.Msg)
				continue
			}
			d.errorf(p, ge.Span, ge.Hint, "cannot translate gate %q (column %d of its expression): %s", g.ID, ge.Col, ge.Msg)
			continue
		}
		for _, w := range env.LppFalse {
			if g.Used {
				d.warnf(g.exprNode.ColOf(w.Col-1), w.Span, w.Hint, "gate %q (column %d of its expression): %s", g.ID, w.Col, w.Msg)
			}
		}
		g.Expr = out
	}
}

// gateEnvOf is the translation context of a blueprint's gates: its
// properties' types, their internal names, `_state`.
func gateEnvOf(bp *Blueprint, payload, eventName string) *gate.Env {
	env := &gate.Env{Types: propertyTypesOf(bp), Payload: payload, EventName: eventName}
	for orig, n := range bp.propNames {
		if orig != n {
			if env.Rename == nil {
				env.Rename = map[string]string{}
			}
			env.Rename[orig] = n
		}
	}
	env.Defined = bp.definedFlags()
	return env
}

// propertyTypesOf maps each property to its L++ type, for the translator.
func propertyTypesOf(bp *Blueprint) map[string]string {
	out := make(map[string]string, len(bp.Context))
	for _, p := range bp.Context {
		out[p.Name] = p.Type
	}
	return out
}

// checkGraph reports what makes a blueprint's routing meaningless: no
// terminal state, transitions out of terminal states (never taken),
// non-terminal states no transition leaves, and states no transition enters.
func (d *decoder) checkGraph(bp *Blueprint) {
	if len(bp.States) == 0 {
		return
	}
	if len(bp.Terminals) == 0 && len(d.refusedTerminals) == 0 { // else refused where they are listed
		d.warnf(mspec.Pos{Line: 1, Col: 1}, 1, `add "terminal_states"`, "the blueprint has no terminal states: a run never ends")
	}
	types := propertyTypesOf(bp)
	for _, t := range bp.Terminals {
		for _, f := range t.Outputs {
			if _, ok := types[f.Name]; f.NonNull && !ok {
				d.warnf(f.Pos, len([]rune(f.Name))+2, "add it to context_schema.properties, or remove non_null",
					"output %q of terminal state %q is not a context property: its non_null cannot be checked", f.Name, bp.Spelling(t.ID))
			}
		}
	}
	leaves := map[string]bool{}
	enters := map[string]bool{bp.Entry: true}
	anyFrom := false
	for _, t := range bp.Transitions {
		leaves[t.From] = true
		enters[t.To] = true
		anyFrom = anyFrom || t.From == Any
		if bp.IsTerminal(t.From) {
			d.warnf(t.FromPos, len([]rune(bp.Spelling(t.From)))+2, "a terminal state ends the run; remove the transition or the state from terminal_states",
				"transition %q leaves terminal state %q: it is never taken", t.ID, bp.Spelling(t.From))
		}
	}
	for _, s := range bp.States {
		id := bp.Spelling(s.ID) // messages give the blueprint's spelling
		if !bp.IsTerminal(s.ID) && !leaves[s.ID] && !anyFrom {
			d.warnf(s.Pos, len([]rune(id))+2, "add a transition from it, or list it in terminal_states",
				"state %q is not terminal and no transition leaves it: lpp leaves a run that enters it there for good; lppctl stops the run there, failed", id)
		}
		if !enters[s.ID] && !slices.ContainsFunc(bp.Transitions, func(t *Transition) bool { return t.To == s.ID }) {
			d.warnf(s.Pos, len([]rune(id))+2, "", "no transition enters state %q and it is not the entry state", id)
		}
	}
}

// withoutKey is obj without its member key (a shallow copy).
func withoutKey(obj *jsonpos.Node, key string) *jsonpos.Node {
	c := *obj
	c.Members = nil
	for _, m := range obj.Members {
		if m.Key != key {
			c.Members = append(c.Members, m)
		}
	}
	return &c
}
