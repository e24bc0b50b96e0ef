package validate

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// events checks the top-level events: each transition (its target, from
// states, and its when and set against the event's payload), transitions
// that can never fire, and events that nothing can make fire.
func (v *validator) events() {
	for _, ev := range v.spec.Events {
		v.event(ev)
	}
	v.deadEventTransitions()
}

// unhandledEvents reports the declared events that nothing can make fire.
// It runs only on a spec that decoded whole (a dropped part may handle them).
func (v *validator) unhandledEvents() {
	for _, d := range v.spec.EventDecls {
		if v.handled(d.Name) {
			continue
		}
		if st, on := v.misspeltOn(d.Name); on != nil {
			v.errorf(on.Pos, len(on.Event), fmt.Sprintf("did you mean %q?", d.Name),
				"event %q in the on: of state %q is not declared under events:, and the declared event %q is handled nowhere", on.Event, st.Name, d.Name)
			continue
		}
		v.errorf(d.Pos, len(d.Name), fmt.Sprintf("give it a transition (`%s: {from: STATE, to: STATE}`), or handle it in a state's on: (`on: {%s: STATE}`)", d.Name, d.Name),
			"event %q can never fire: it has no transition, and no state's on: handles it", d.Name)
	}
}

// handled reports whether an event has a transition somewhere.
// misspeltOn returns the state and the on: entry whose event name is not
// declared under events: and is nearest to the declared event decl, which
// nothing handles: one misspelling, reported once, there.
func (v *validator) misspeltOn(decl string) (*mspec.State, *mspec.OnEvent) {
	var declared []string
	for _, d := range v.spec.EventDecls {
		declared = append(declared, d.Name)
	}
	for _, st := range v.spec.States {
		for _, on := range st.On {
			if v.spec.EventDecl(on.Event) != nil {
				continue
			}
			if near, ok := mspec.DidYouMean(on.Event, declared); ok && near == decl {
				return st, on
			}
		}
	}
	return nil, nil
}

// misspeltEvent reports whether the event name, which no events: entry
// declares, is a misspelling that unhandledEvents reports at its on:.
func (v *validator) misspeltEvent(name string) bool {
	if v.damage != nil || v.spec.EventDecl(name) != nil {
		return false
	}
	for _, d := range v.spec.EventDecls {
		if !v.handled(d.Name) {
			if _, on := v.misspeltOn(d.Name); on != nil && on.Event == name {
				return true
			}
		}
	}
	return false
}

func (v *validator) handled(name string) bool {
	if v.spec.Event(name) != nil {
		return true
	}
	for _, st := range v.spec.States {
		for _, on := range st.On {
			if on.Event == name {
				return true
			}
		}
	}
	return false
}

func (v *validator) event(ev *mspec.Event) {
	noStates := len(v.spec.States) == 0 // "missing key states" says it: every name would be unknown
	switch {
	case noStates:
	case ev.To == "" && isQuotedAt(v.spec.Source, ev.ToPos):
		v.errorf(ev.ToPos, 2, "states are: "+mspec.ListNames(v.spec.StateNames(), 12), "event %q goes to an empty state name", ev.Name)
	case ev.To != "" && v.spec.State(ev.To) == nil:
		v.errorf(ev.ToPos, len(ev.To), v.stateHint(ev.To), "event %q goes to unknown state %q", ev.Name, ev.To)
	}
	for _, from := range ev.From {
		p := findWord(v.spec.Source, ev.FromPos, from)
		st := v.spec.State(from)
		switch {
		case noStates:
		case st == nil:
			v.errorf(p, len(from), v.stateHint(from), "event %q comes from unknown state %q", ev.Name, from)
		case st.Final:
			v.errorf(p, len(from), "a final state ends the run before events are considered; remove it from from:", "event %q can never fire from final state %q", ev.Name, from)
		}
	}
	v.withEvent(ev.Name, func() {
		if ev.When != "" {
			v.guard(ev.When, ev.WhenPos)
		}
		for _, a := range ev.Set {
			v.assign(a)
		}
	})
}

// deadEventTransitions reports a top-level event's transition listed after
// an unguarded one of the same event that applies in all of its states.
func (v *validator) deadEventTransitions() {
	byName := map[string][]*mspec.Event{}
	for _, ev := range v.spec.Events {
		byName[ev.Name] = append(byName[ev.Name], ev)
	}
	for _, evs := range byName {
		for i, ev := range evs {
			if ev.When != "" || ev.WhenPos.IsValid() {
				continue
			}
			for _, later := range evs[i+1:] {
				if len(ev.From) == 0 || len(later.From) > 0 && !slices.ContainsFunc(later.From, func(f string) bool { return !mspec.Contains(ev.From, f) }) {
					v.errorf(later.ToPos, len(later.To), fmt.Sprintf("give the transition to %q a when:, or list it before", ev.To),
						"transition of event %q to %q can never fire: the unguarded transition to %q above always fires first", later.Name, later.To, ev.To)
				}
			}
			break
		}
	}
}

// stateOn checks a state's on: transitions.
func (v *validator) stateOn(st *mspec.State) {
	if !st.OnPos.IsValid() {
		return
	}
	if st.Final {
		v.errorf(st.OnPos, len("on"), "a final state ends the run before events are considered: remove on:, or remove final: true", "final state %q has on: events", st.Name)
	} else if len(st.On) == 0 && len(st.Next) == 0 && !v.damaged(st.Name) && !slices.ContainsFunc(v.spec.Events, func(ev *mspec.Event) bool { return len(ev.From) == 0 || mspec.Contains(ev.From, st.Name) }) {
		v.errorf(st.OnPos, len("on"), "name the events it waits for: `on: {EVENT: STATE}`, or give it next:", "state %q waits for an event, but no event leaves it: its on: names none, and no event of events: applies in it", st.Name)
	}
	for _, on := range st.On {
		v.withEvent(on.Event, func() {
			for i, t := range on.Transitions {
				v.transition(t)
				if i+1 < len(on.Transitions) && i == firstUnguarded(on.Transitions) && t.To != "" && on.Transitions[i+1].To != "" {
					dead := on.Transitions[i+1]
					v.errorf(dead.Pos, transitionSpan(dead),
						fmt.Sprintf("give the transition to %q a when:, or move it to the end of the list", t.To),
						"transition of event %q to %q can never fire: the unguarded transition to %q above always fires first", on.Event, dead.To, t.To)
				}
			}
		})
	}
}

// withEvent runs check with `event` typed as event name's in expressions.
func (v *validator) withEvent(name string, check func()) {
	env, prev := v.env, v.inEvent
	if v.eventEnvs == nil {
		v.eventEnvs = map[string]map[string]any{}
	}
	if v.eventEnvs[name] == nil {
		v.eventEnvs[name] = machine.EventEnv(v.spec, name)
	}
	v.env, v.inEvent = v.eventEnvs[name], name
	defer func() { v.env, v.inEvent = env, prev }()
	check()
}

var noFieldRE = regexp.MustCompile(`^type struct \{.*\} has no field ([A-Za-z_][A-Za-z0-9_]*)$`)

// eventExprError rewrites expr's messages about `event` in the spec's terms:
// a payload field that is not declared, `event` read outside an event's
// transitions. ok is false when the message is about something else.
func (v *validator) eventExprError(e *mspec.ExprError, what string) (ok bool) {
	if m := unknownNameRE.FindStringSubmatch(e.Msg); m != nil && m[1] == mspec.VarEvent && v.inEvent == "" {
		v.errorf(e.Pos, len(mspec.VarEvent), "it is readable only in the when and set of an event's transitions (a state's on:, or events:); an action reads the event that entered its state from its call",
			"%s: unknown name event", what)
		return true
	}
	if m := unknownNameRE.FindStringSubmatch(e.Msg); m != nil && m[1] == "payload" && v.inEvent != "" && v.spec.Var("payload") == nil && !v.unknownVarsUncertain() {
		v.errorf(e.Pos, len(m[1]), "an event's payload is read through event: write event.payload (event.payload.FIELD)",
			"%s: unknown name payload", what)
		return true
	}
	m := noFieldRE.FindStringSubmatch(e.Msg)
	if m == nil || v.inEvent == "" {
		return false
	}
	field := m[1]
	if strings.HasPrefix(e.Msg, "type struct { Name string") {
		v.errorf(e.Pos, len(field), "an event has name and payload: event.name, event.payload.FIELD", "%s: event has no field %q", what, field)
		return true
	}
	decl := v.spec.EventDecl(v.inEvent)
	if decl == nil && v.misspeltEvent(v.inEvent) {
		return true // the misspelt name is the error (unhandledEvents), not what it cannot read
	}
	if !decl.HasPayload() {
		declares := "declares no payload"
		if decl == nil {
			declares = "is not declared under events:"
		}
		v.errorf(e.Pos, len(field), fmt.Sprintf("declare its payload under events: `%s: {payload: {%s: TYPE}}`", v.inEvent, field),
			"%s: event %q %s, so event.payload has no field %q", what, v.inEvent, declares, field)
		return true
	}
	names := make([]string, len(decl.Payload))
	for i, f := range decl.Payload {
		names[i] = f.Name
	}
	hint := mspec.DidYouMeanHint(field, names)
	if hint == "" {
		hint = "its payload fields are " + mspec.ListNames(names, 12)
	}
	v.errorf(e.Pos, len(field), hint, "%s: the payload of event %q has no field %q", what, v.inEvent, field)
	return true
}

// payloadParam checks an expr_map parameter that is the payload of the
// event another parameter names (emit's payload): its keys against the
// event's payload fields, its expressions against their types.
func (v *validator) payloadParam(st *mspec.State, a *machine.Action, ps *machine.ParamSpec, p *mspec.Param) {
	m, ok := p.Value.(map[string]any)
	if !ok {
		return // param reported it
	}
	event := ""
	for _, q := range st.With {
		if q.Name == ps.PayloadOf {
			event, _ = q.Value.(string)
		}
	}
	if !mspec.Contains(v.spec.EventNames(), event) {
		v.exprMap(ps, p, nil) // the event is reported; still check the expressions
		return
	}
	decl := v.spec.EventDecl(event)
	if !decl.HasPayload() {
		v.errorf(p.Pos, len(p.Name), fmt.Sprintf("declare its payload under events: `%s: {payload: {FIELD: TYPE}}`, or remove %s", event, p.Name),
			"parameter %q of action %q: event %q takes no payload", ps.Name, a.Name, event)
		return
	}
	var names []string
	for _, f := range decl.Payload {
		names = append(names, f.Name)
		if _, given := m[f.Name]; !given && f.Required {
			v.errorf(p.Pos, len(p.Name), fmt.Sprintf("add `%s: EXPRESSION` to %s", f.Name, p.Name),
				"parameter %q of action %q: the payload of event %q lacks the required field %q", ps.Name, a.Name, event, f.Name)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if decl.Field(k) == nil {
			hint := mspec.DidYouMeanHint(k, names)
			if hint == "" {
				hint = "its payload fields are " + mspec.ListNames(names, 12)
			}
			v.errorf(findWord(v.spec.Source, p.VPos, k), len(k), hint, "parameter %q of action %q: event %q has no payload field %q", ps.Name, a.Name, event, k)
		}
	}
	v.exprMap(ps, p, decl)
}

// missingPayload reports an action whose payload parameter is left out
// while the event it emits has required payload fields.
func (v *validator) missingPayload(st *mspec.State, a *machine.Action, given map[string]bool) {
	for _, ps := range a.Params {
		if ps.PayloadOf == "" || given[ps.Name] {
			continue
		}
		event := ""
		for _, q := range st.With {
			if q.Name == ps.PayloadOf {
				event, _ = q.Value.(string)
			}
		}
		decl := v.spec.EventDecl(event)
		for _, f := range payloadFields(decl) {
			if f.Required {
				v.errorf(st.DoPos, len(st.Do), fmt.Sprintf("add `%s: {%s: EXPRESSION}` under with:", ps.Name, f.Name),
					"action %q: the payload of event %q lacks the required field %q", a.Name, event, f.Name)
			}
		}
	}
}

// payloadFields are the payload fields d declares (none for a nil d).
func payloadFields(d *mspec.EventDecl) []*mspec.PayloadField {
	if d == nil {
		return nil
	}
	return d.Payload
}

// exprMap checks the expressions of an expr_map parameter; with decl, each
// against the type of the payload field it gives.
func (v *validator) exprMap(ps *machine.ParamSpec, p *mspec.Param, decl *mspec.EventDecl) {
	m, _ := p.Value.(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		at := findWord(v.spec.Source, p.VPos, k)
		what := fmt.Sprintf("parameter %q, key %q", ps.Name, k)
		src, ok := mspec.ExprSource(m[k])
		if !ok {
			v.errorf(at, len(k), "write the expression as text, e.g. retries + 1 or '\"PASS\"'", "%s must be an expression, not %s", what, mspec.DescribeValue(m[k]))
			continue
		}
		t := mspec.TypeAny
		if f := decl.Field(k); f != nil {
			t = f.Type
		}
		if _, err := mspec.CompileValue(src, t, v.env); err != nil {
			if vp, ok := valueAfterKey(v.spec.Source, at, k); ok {
				v.exprError(mspec.LocateExpr(err, v.spec.Source, mspec.ExprStart(v.spec.Source, vp), src), what)
				continue
			}
			v.exprError(&mspec.ExprError{Pos: at, Msg: mspec.LocateExprError(err, at).Msg}, what)
		}
	}
}

// valueAfterKey returns where the value of the mapping key written at p
// starts, when it starts on the key's line (`key: value`, `"key": value`).
func valueAfterKey(src []byte, p mspec.Pos, key string) (mspec.Pos, bool) {
	line := mspec.SourceLine(src, p.Line)
	i := p.Col - 1 + len(key)
	if p.Col < 1 || i > len(line) || line[p.Col-1:i] != key {
		return p, false
	}
	if i < len(line) && (line[i] == '"' || line[i] == '\'') {
		i++ // a quoted key's closing quote
	}
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if i >= len(line) || line[i] != ':' {
		return p, false
	}
	for i++; i < len(line) && line[i] == ' '; i++ {
	}
	if i >= len(line) || line[i] == '#' {
		return p, false // the value is on the next lines
	}
	return mspec.Pos{Line: p.Line, Col: len([]rune(line[:i])) + 1}, true
}
