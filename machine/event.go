package machine

import (
	"encoding/json"
	"fmt"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// cevent is a compiled event: every name the spec knows (declared under
// events:, or named by a state's on:).
type Cevent struct {
	Name   string
	Decl   *mspec.EventDecl // nil: the event is only named by states' on:
	Global []*Ctrans        // its top-level transitions, in file order
	Typ    reflect.Type
	Env    map[string]any // the expression environment of its transitions
}

// delivery is an event on its way into a run: its name, its payload as
// checked (defaults filled in) and the value expressions read as `event`.
type delivery struct {
	name    string
	payload map[string]any
	value   any
	dropped []string // the payload's fields the event does not declare, left out (extra_payload_fields: drop)
	rank    int      // its rank in the caller's list of queued events (Queue); 0: not queued so
}

// eventFieldTag names the Go struct fields of an event's expression type
// for expr (`event.name`, `event.payload.x`).
const eventFieldTag = "expr"

// eventType builds the type expressions see as `event` for an event: a
// struct {name string; payload struct{...}} whose payload fields have the
// declared types, so that `event.payload.x` type-checks (and a field that is
// not declared is an error).
func eventType(decl *mspec.EventDecl) reflect.Type {
	var fields []reflect.StructField
	if decl != nil {
		for i, f := range decl.Payload {
			fields = append(fields, reflect.StructField{
				Name: fmt.Sprintf("F%d", i),
				Type: mspec.PayloadFieldType(f),
				Tag:  reflect.StructTag(fmt.Sprintf(`%s:%q`, eventFieldTag, f.Name)),
			})
		}
	}
	return reflect.StructOf([]reflect.StructField{
		{Name: "Name", Type: reflect.TypeOf(""), Tag: `expr:"name"`},
		{Name: "Payload", Type: reflect.StructOf(fields), Tag: `expr:"payload"`},
	})
}

// EventEnv returns the typed environment the `when` and `set` of the
// transitions of event name are compiled against: TypeEnv(spec) and `event`.
func EventEnv(spec *mspec.Spec, name string) map[string]any {
	env := mspec.TypeEnv(spec)
	env[mspec.VarEvent] = reflect.Zero(eventType(spec.EventDecl(name))).Interface()
	return env
}

// declareEvents makes a cevent for every event the spec knows.
func (c *compiler) declareEvents(m *Machine) {
	for _, name := range c.spec.EventNames() {
		ce := &Cevent{Name: name, Decl: c.spec.EventDecl(name)}
		ce.Typ = eventType(ce.Decl)
		ce.Env = maps.Clone(c.env)
		ce.Env[mspec.VarEvent] = reflect.Zero(ce.Typ).Interface()
		m.Events[name] = ce
	}
}

// stateEvents compiles a state's on: transitions.
func (c *compiler) stateEvents(m *Machine, cs *Cstate) {
	for _, on := range cs.St.On {
		ce := m.Events[on.Event]
		for i, t := range on.Transitions {
			ct := c.transition(t, i, ce.Env)
			ct.event = on.Event
			ct.Via = fmt.Sprintf("on %s[%d]", on.Event, i)
			ct.fsmEv = ct.Via
			if cs.On == nil {
				cs.On = map[string][]*Ctrans{}
			}
			cs.On[on.Event] = append(cs.On[on.Event], ct)
			m.addMove(ct, cs.St.Name)
		}
	}
}

// globalEvents compiles the transitions of the top-level events.
func (c *compiler) globalEvents(m *Machine) {
	spec := c.spec
	for i, ev := range spec.Events {
		ce := m.Events[ev.Name]
		t := &mspec.Transition{To: ev.To, ToPos: ev.ToPos, When: ev.When, WhenPos: ev.WhenPos, Set: ev.Set, Note: ev.Note, Pos: ev.Pos}
		ct := &Ctrans{T: t, Index: len(ce.Global), Via: "event " + ev.Name, Target: ev.To, event: ev.Name, Global: true,
			fsmEv: fmt.Sprintf("event %s#%d", ev.Name, i), Set: c.assigns(ev.Set, ce.Env)}
		if spec.State(ev.To) == nil {
			c.errorf(ev.ToPos, "event %q goes to undefined state %q", ev.Name, ev.To)
		}
		if ev.When != "" {
			ct.Guard = c.guard(ev.When, ev.WhenPos, ce.Env)
			ct.reads = mspec.Identifiers(ct.Guard)
		}
		var src []string
		if len(ev.From) > 0 {
			ct.from = map[string]bool{}
			for _, f := range ev.From {
				ct.from[f] = true
				src = append(src, f)
			}
		} else {
			for _, st := range spec.States {
				if !st.Final {
					src = append(src, st.Name)
				}
			}
		}
		ce.Global = append(ce.Global, ct)
		m.addMove(ct, src...)
	}
}

// appliesIn reports whether a top-level event's transition applies in state.
func (ct *Ctrans) AppliesIn(st *mspec.State) bool {
	if ct.from != nil {
		return ct.from[st.Name]
	}
	return !st.Final
}

// EventNames returns the names of the events the machine knows, sorted.
func (m *Machine) EventNames() []string {
	return slices.Sorted(maps.Keys(m.Events))
}

// Accepts returns the events that can move the run out of state, in order:
// those of its on:, then the top-level events that apply in it.
func (m *Machine) Accepts(state string) []string {
	cs := m.States[state]
	if cs == nil {
		return nil
	}
	var out []string
	for _, on := range cs.St.On {
		out = mspec.AppendUnique(out, on.Event)
	}
	for _, ev := range m.spec.Events {
		if ce := m.Events[ev.Name]; ce != nil && slices.ContainsFunc(ce.Global, func(ct *Ctrans) bool { return ct.AppliesIn(cs.St) }) {
			out = mspec.AppendUnique(out, ev.Name)
		}
	}
	return out
}

// prepare checks an event and its payload against the spec and returns it
// ready for delivery. Its errors read "the spec defines no such event...",
// "its payload ...".
func (m *Machine) prepare(name string, payload map[string]any) (*delivery, error) {
	ce := m.Events[name]
	if ce == nil {
		return nil, fmt.Errorf("the spec defines no such event%s", mspec.HintSuffix(mspec.DidYouMeanHint(name, m.EventNames())))
	}
	full, dropped, err := ce.checkPayload(payload, m.spec.DropExtraPayload)
	if err != nil {
		return nil, err
	}
	v := reflect.New(ce.Typ).Elem()
	v.Field(0).SetString(name)
	if ce.Decl != nil {
		pv := v.Field(1)
		for i, f := range ce.Decl.Payload {
			if x := full[f.Name]; x != nil {
				pv.Field(i).Set(reflect.ValueOf(x))
			}
		}
	}
	return &delivery{name: name, payload: full, value: v.Interface(), dropped: dropped}, nil
}

// checkPayload checks a payload against the event's declared fields and
// returns it with its values converted to the fields' types and the
// defaults of the optional fields it leaves out. With drop
// (extra_payload_fields: drop), a field the event does not declare is
// left out and named in dropped instead of refused.
func (ce *Cevent) checkPayload(payload map[string]any, drop bool) (full map[string]any, dropped []string, err error) {
	if drop {
		for _, k := range slices.Sorted(maps.Keys(payload)) {
			if ce.Decl.Field(k) == nil {
				dropped = append(dropped, k)
			}
		}
	}
	if !ce.Decl.HasPayload() {
		if len(payload) > len(dropped) {
			return nil, nil, fmt.Errorf("it takes no payload (declare its fields under events: %s: payload:)", ce.Name)
		}
		return nil, dropped, nil
	}
	names := make([]string, len(ce.Decl.Payload))
	for i, f := range ce.Decl.Payload {
		names[i] = f.Name
	}
	for _, k := range slices.Sorted(maps.Keys(payload)) {
		if ce.Decl.Field(k) == nil && !drop {
			hint := mspec.DidYouMeanHint(k, names)
			if hint == "" {
				hint = "its fields are " + mspec.ListNames(names, 12)
			}
			return nil, nil, fmt.Errorf("its payload has no field %q; %s", k, hint)
		}
	}
	full = make(map[string]any, len(ce.Decl.Payload))
	for _, f := range ce.Decl.Payload {
		x, given := payload[f.Name]
		cv, err := CheckPayloadField(f, x, given)
		if err != nil {
			return nil, nil, err
		}
		full[f.Name] = cv
	}
	return full, dropped, nil
}

// CheckPayloadField checks the value x of one payload field as an event's
// payload check does (given: the payload has the field) and returns the
// value the event carries: x converted to the field's type, or the field's
// default when it is left out or null. Its errors are the payload check's
// ("payload field \"n\": the string \"abc\" is not an int"), which resume
// shows after "cannot fire event NAME: ".
func CheckPayloadField(f *mspec.PayloadField, x any, given bool) (any, error) {
	if !given || x == nil {
		if f.Required && given {
			return nil, fmt.Errorf("payload field %q is null, but it is required (%s)", f.Name, f.Type)
		}
		if f.Required {
			return nil, fmt.Errorf("its payload lacks the required field %q (%s)", f.Name, f.Type)
		}
		return CloneValue(f.Default), nil
	}
	if f.Type == mspec.TypeAny {
		cv, err := mspec.PayloadValue(x)
		if err != nil {
			return nil, fmt.Errorf("payload field %q: %w", f.Name, err)
		}
		return cv, nil
	}
	cv, err := f.Type.Coerce(x)
	if err != nil {
		return nil, fmt.Errorf("payload field %q: %s is not %s", f.Name, describeJSONValue(x), f.Type.Article())
	}
	if s, ok := cv.(string); ok && len(f.Enum) > 0 && !mspec.Contains(f.Enum, s) {
		return nil, fmt.Errorf("payload field %q: %q is not one of %s%s", f.Name, s, mspec.QuoteList(f.Enum), mspec.HintSuffix(mspec.DidYouMeanHint(s, f.Enum)))
	}
	return cv, nil
}

// droppedNote is the warning of a step that took an event whose payload
// had fields the event does not declare (extra_payload_fields: drop).
func droppedNote(d *delivery) mspec.Note {
	q := make([]string, len(d.dropped))
	for i, k := range d.dropped {
		q[i] = strconv.Quote(k)
	}
	what, it := "field", "it"
	if len(q) > 1 {
		what, it = "fields", "them"
	}
	return mspec.Note{Severity: mspec.NoteWarning,
		Text: fmt.Sprintf("event %s: payload %s %s left out: the event does not declare %s (extra_payload_fields: drop)", d.name, what, strings.Join(q, ", "), it)}
}

// describeJSONValue names a payload value in JSON's terms (a payload is
// JSON: it has numbers, not ints and floats).
func describeJSONValue(v any) string {
	switch x := v.(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64, json.Number:
		return fmt.Sprintf("the number %v", x)
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	case string:
		return fmt.Sprintf("the string %q", x)
	case map[string]any:
		return "an object"
	}
	return mspec.DescribeValue(v)
}

// describePayload renders an event's payload fields for messages:
// "text: string, score: int (optional)".
func describePayload(decl *mspec.EventDecl) string {
	if !decl.HasPayload() {
		return ""
	}
	parts := make([]string, len(decl.Payload))
	for i, f := range decl.Payload {
		parts[i] = f.Name + ": " + string(f.Type)
		if !f.Required {
			parts[i] += " (optional)"
		}
	}
	return strings.Join(parts, ", ")
}

// FormatPayload renders a payload as compact JSON with sorted keys ("" for
// none), for journals and progress output.
func FormatPayload(payload map[string]any) string {
	if len(payload) == 0 {
		return ""
	}
	b, err := json.Marshal(payload)
	if err != nil {
		return fmt.Sprint(payload)
	}
	return string(b)
}
