package lpp

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/lppctl/lppctl/machine"
)

// This file decodes the rules of a blueprint: gates, actions, transitions,
// and checks how they refer to each other.

func (d *decoder) gates(n *node, bp *Blueprint) {
	d.duplicates(n, "gates")
	for _, m := range n.members {
		if bp.Gate(m.key) != nil {
			continue
		}
		d.declare("gates", m.key)
		what := fmt.Sprintf("gate %q", m.key)
		if !d.want(m.val, kObject, what) {
			continue
		}
		g := &Gate{ID: m.key, Pos: m.keyPos}
		d.unknownKeys(m.val, what, "type", "expression", "compute_unit", "description")
		typ, tn := d.reqString(m.val, "type", what, `"type": "expression" or "compute"`)
		switch typ {
		case GateExpression:
			g.Type = typ
			g.Expression, g.exprNode = d.reqString(m.val, "expression", what, `add "expression": "x is not None"`)
		case GateCompute:
			g.Type = typ
			g.ComputeUnit = d.unit(m.val, what)
		case "":
			continue
		default:
			d.errorf(tn.pos, len([]rune(typ))+2, cmp.Or(machine.DidYouMeanHint(typ, []string{GateExpression, GateCompute}), `use "expression" or "compute"`),
				"unknown type %q of %s", typ, what)
			continue
		}
		bp.Gates = append(bp.Gates, g)
	}
}

// unit reads and checks a compute_unit member.
func (d *decoder) unit(obj *node, what string) string {
	u, un := d.reqString(obj, "compute_unit", what, `add "compute_unit": "namespace:operation"`)
	if un != nil && !unitRE.MatchString(u) {
		d.errorf(un.pos, len([]rune(u))+2, `write it as "namespace:operation", e.g. "pricing:quote"`, "compute_unit %q of %s is not of the form namespace:operation", u, what)
		return ""
	}
	return u
}

// kvs reads an object of strings, in file order.
func (d *decoder) kvs(obj *node, key, what string) []KV {
	v := obj.get(key)
	if v == nil || v.kind == kNull {
		return nil
	}
	if !d.want(v, kObject, key+" of "+what) {
		return nil
	}
	d.duplicates(v, key+" of "+what)
	var out []KV
	for _, m := range v.members {
		if m.val.kind != kString {
			d.errorf(m.val.pos, 1, "", "%s of %s must map names to strings, and %q is %s", key, what, m.key, m.val.describe())
			continue
		}
		out = append(out, KV{Key: m.key, Value: m.val.str})
	}
	return out
}

func (d *decoder) actions(n *node, bp *Blueprint) {
	d.duplicates(n, "actions")
	for _, m := range n.members {
		if bp.Action(m.key) != nil {
			continue
		}
		d.declare("actions", m.key)
		what := fmt.Sprintf("action %q", m.key)
		if !d.want(m.val, kObject, what) {
			continue
		}
		a := &Action{ID: m.key, Pos: m.keyPos}
		typ, tn := d.reqString(m.val, "type", what, `"type": "set", "compute" or "emit"`)
		switch typ {
		case ActionSet:
			d.unknownKeys(m.val, what, "type", "target", "value", "value_from", "description")
			d.setAction(m.val, a, bp, what)
		case ActionCompute:
			d.unknownKeys(m.val, what, "type", "compute_unit", "input_map", "output_map", "description")
			a.ComputeUnit = d.unit(m.val, what)
			a.InputMap = d.kvs(m.val, "input_map", what)
			a.OutputMap = d.kvs(m.val, "output_map", what)
			om := m.val.get("output_map")
			for _, kv := range a.OutputMap {
				if bp.Property(kv.Key) == nil {
					d.errorf(om.member(kv.Key).keyPos, len([]rune(kv.Key))+2, d.propHint(bp, kv.Key), "output_map of %s writes %q, which is not a context property", what, kv.Key)
				}
			}
			im := m.val.get("input_map")
			for _, kv := range a.InputMap {
				if p := im.get(kv.Key); !d.readable(bp, kv.Value) {
					d.errorf(p.pos, len([]rune(kv.Value))+2, d.propHint(bp, kv.Value), "input_map of %s reads %q, which is neither a context property nor event.payload.NAME", what, kv.Value)
				}
			}
		case ActionEmit:
			d.unknownKeys(m.val, what, "type", "event", "payload_map", "description")
			var en *node
			a.Event, en = d.reqString(m.val, "event", what, `add "event": "NAME"`)
			if en != nil && !identRE.MatchString(a.Event) {
				d.errorf(en.pos, len([]rune(a.Event))+2, "use letters, digits and underscores (lppctl event names are identifiers)", "event name %q of %s is not an identifier", a.Event, what)
			}
			a.PayloadMap = d.kvs(m.val, "payload_map", what)
		case "":
			continue
		default:
			d.errorf(tn.pos, len([]rune(typ))+2, cmp.Or(machine.DidYouMeanHint(typ, []string{ActionSet, ActionCompute, ActionEmit}), `use "set", "compute" or "emit"`),
				"unknown type %q of %s", typ, what)
			continue
		}
		a.Type = typ
		bp.Actions = append(bp.Actions, a)
	}
}

func (d *decoder) setAction(obj *node, a *Action, bp *Blueprint, what string) {
	target, tn := d.reqString(obj, "target", what, `add "target": "PROPERTY"`)
	a.Target = target
	if tn != nil && bp.Property(target) == nil {
		d.errorf(tn.pos, len([]rune(target))+2, d.propHint(bp, target), "target %q of %s is not a context property", target, what)
	}
	v, vf := obj.get("value"), obj.get("value_from")
	switch {
	case v != nil && vf != nil:
		d.errorf(vf.pos, 1, "keep one of them", "%s has both value and value_from", what)
	case v != nil:
		a.Value, a.HasValue = v.value(), true
		if p := bp.Property(target); p != nil && v.kind != kNull && !typeAccepts(p.Type, v) {
			d.errorf(v.pos, 1, "", "value of %s must be %s (the type of %q), not %s", what, typeArticle(p.Type), target, v.describe())
		}
	case vf != nil:
		if vf.kind != kString || vf.str == "" {
			d.errorf(vf.pos, 1, `write "event.payload.NAME" or a property name`, "value_from of %s must be a string, not %s", what, vf.describe())
			return
		}
		a.ValueFrom = vf.str
		if !d.readable(bp, vf.str) {
			d.errorf(vf.pos, len([]rune(vf.str))+2, d.propHint(bp, vf.str), "value_from of %s reads %q, which is neither a context property nor event.payload.NAME", what, vf.str)
		}
	default:
		d.errorf(obj.pos, 1, `add "value": LITERAL or "value_from": "event.payload.NAME"`, "%s has neither value nor value_from", what)
	}
}

// readable reports whether a value_from or input_map source names
// something this package can read: a property or event.payload.NAME.
func (d *decoder) readable(bp *Blueprint, src string) bool {
	if f, ok := payloadField(src); ok {
		return identRE.MatchString(f)
	}
	return bp.Property(src) != nil
}

// payloadField returns X of "event.payload.X".
func payloadField(src string) (string, bool) {
	return strings.CutPrefix(src, "event.payload.")
}

func (d *decoder) propHint(bp *Blueprint, name string) string {
	names := make([]string, len(bp.Context))
	for i, p := range bp.Context {
		names[i] = p.Name
	}
	return cmp.Or(machine.DidYouMeanHint(name, names), "declare it in context_schema.properties, or read event.payload.NAME")
}

var transitionKeys = []string{"id", "from", "to", "on_event", "gates", "actions", "description"}

func (d *decoder) transitions(n *node, bp *Blueprint) {
	ids := map[string]bool{}
	for i, it := range n.items {
		what := fmt.Sprintf("transition %d", i+1)
		if !d.want(it, kObject, what) {
			continue
		}
		d.duplicates(it, what)
		t := &Transition{Pos: it.pos}
		if id, idn := d.reqString(it, "id", what, `add "id": "t`+fmt.Sprint(i+1)+`"`); idn != nil {
			t.ID = id
			what = fmt.Sprintf("transition %q", id)
			if ids[id] {
				d.errorf(idn.pos, len([]rune(id))+2, "give each transition its own id", "duplicate transition id %q", id)
			}
			ids[id] = true
		}
		d.unknownKeys(it, what, transitionKeys...)
		if from, fn := d.reqString(it, "from", what, `add "from": "STATE" (or "*" for every state)`); fn != nil {
			t.From, t.FromPos = from, fn.pos
			if from != Any && bp.State(from) == nil && len(bp.States) > 0 {
				d.errorf(fn.pos, len([]rune(from))+2, d.stateHint(bp, from), "%s starts in %q, which is not a state", what, from)
			}
		}
		if to, tn := d.reqString(it, "to", what, `add "to": "STATE"`); tn != nil {
			t.To, t.ToPos = to, tn.pos
			if bp.State(to) == nil && len(bp.States) > 0 {
				d.errorf(tn.pos, len([]rune(to))+2, d.stateHint(bp, to), "%s goes to %q, which is not a state", what, to)
			}
		}
		if ev, en := d.reqString(it, "on_event", what, `add "on_event": "EVENT"`); en != nil {
			t.Event, t.EventPos = ev, en.pos
			if !identRE.MatchString(ev) {
				d.errorf(en.pos, len([]rune(ev))+2, "use letters, digits and underscores (lppctl event names are identifiers)", "event name %q of %s is not an identifier", ev, what)
			}
		}
		t.Gates = d.refs(it, "gates", what, func(id string) bool { return bp.Gate(id) != nil }, gateIDs(bp))
		t.Actions = d.refs(it, "actions", what, func(id string) bool { return bp.Action(id) != nil }, actionIDs(bp))
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
func (d *decoder) refs(obj *node, key, what string, known func(string) bool, all []string) []string {
	v := obj.get(key)
	if v == nil || v.kind == kNull {
		return nil
	}
	if !d.want(v, kArray, key+" of "+what) {
		return nil
	}
	var out []string
	for _, it := range v.items {
		if it.kind != kString {
			d.errorf(it.pos, 1, "", "%s of %s must list ids, not %s", key, what, it.describe())
			continue
		}
		if !known(it.str) {
			if d.declared[key+"/"+it.str] {
				continue // declared but invalid: reported where it is declared
			}
			d.errorf(it.pos, len([]rune(it.str))+2, cmp.Or(machine.DidYouMeanHint(it.str, all), fmt.Sprintf("declare it under %q", key)),
				"%s of %s names %q, which is not declared in %s", key, what, it.str, key)
			continue
		}
		out = append(out, it.str)
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

// translateGates translates every expression gate, reporting refusals at
// their column inside the expression.
func (d *decoder) translateGates(bp *Blueprint) {
	types := propertyTypesOf(bp)
	for _, g := range bp.Gates {
		if g.Type != GateExpression || g.exprNode == nil {
			continue
		}
		out, err := TranslateGate(g.Expression, types)
		if err != nil {
			ge := err.(*GateError)
			p := g.exprNode.colOf(ge.Col - 1)
			d.errorf(p, ge.Span, ge.Hint, "cannot translate gate %q (column %d of its expression): %s", g.ID, ge.Col, ge.Msg)
			continue
		}
		g.Expr = out
	}
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
	if len(bp.Terminals) == 0 {
		d.warnf(machine.Pos{Line: 1, Col: 1}, 1, `add "terminal_states"`, "the blueprint has no terminal states: a run never ends")
	}
	types := propertyTypesOf(bp)
	for _, t := range bp.Terminals {
		for _, f := range t.Outputs {
			if _, ok := types[f.Name]; f.NonNull && !ok {
				d.warnf(f.Pos, len([]rune(f.Name))+2, "add it to context_schema.properties, or remove non_null",
					"output %q of terminal state %q is not a context property: its non_null cannot be checked", f.Name, t.ID)
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
			d.warnf(t.FromPos, len([]rune(t.From))+2, "a terminal state ends the run; remove the transition or the state from terminal_states",
				"transition %q leaves terminal state %q: it is never taken", t.ID, t.From)
		}
	}
	for _, s := range bp.States {
		if !bp.IsTerminal(s.ID) && !leaves[s.ID] && !anyFrom {
			d.warnf(s.Pos, len([]rune(s.ID))+2, "add a transition from it, or list it in terminal_states",
				"state %q is not terminal and no transition leaves it: a run that enters it waits forever", s.ID)
		}
		if !enters[s.ID] && !slices.ContainsFunc(bp.Transitions, func(t *Transition) bool { return t.To == s.ID }) {
			d.warnf(s.Pos, len([]rune(s.ID))+2, "", "no transition enters state %q and it is not the entry state", s.ID)
		}
	}
}
