package spec

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// eventKeys are the keys of one transition of a top-level event.
var EventKeys = []string{"from", "to", "when", "set", "note"}

// eventDeclKeys are the keys of a top-level event written as a mapping: one
// transition (eventKeys), or a declaration with a payload and, optionally,
// a list of transitions.
var EventDeclKeys = []string{"from", "to", "when", "set", "note", "payload", "transitions"}

// events decodes the top-level `events:` mapping. Each event is one of:
//
//	RESET: {from: "*", to: start}             one transition (and optionally payload:)
//	RETRY: [{from: failed, to: work}, ...]    several transitions, tried in order
//	SUBMIT: {payload: {...}, transitions: [...]}
//	SUBMIT: {payload: {text: string}}         a declaration: states' on: handle it
func (d *decoder) events(n *yaml.Node, s *Spec) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if d.badKey(k, "events") {
			continue
		}
		name := k.Value
		if seen[name] {
			d.errorf(pos(k), span(k), "duplicate event %q", name)
			d.hintLast("give all of its transitions under one key, as a list")
			continue
		}
		seen[name] = true
		if !IdentRE.MatchString(name) {
			d.errorf(pos(k), span(k), "event name %q is not an identifier", name)
			continue
		}
		decl := &EventDecl{Name: name, Pos: pos(k)}
		switch {
		case v.Tag == "!!null": // `DONE:` declares an event without a payload
		case v.Kind == yaml.SequenceNode:
			for _, item := range v.Content {
				if ev := d.eventTransition(item, name, nil); ev != nil {
					s.Events = append(s.Events, ev)
				}
			}
		case v.Kind == yaml.MappingNode:
			d.eventMapping(k, v, decl, s)
		default:
			d.errorf(pos(v), span(v), "event %q must be a mapping (one transition, or payload: and transitions:) or a list of transitions, not %s", name, kindName(v))
			continue
		}
		s.EventDecls = append(s.EventDecls, decl)
	}
}

// eventMapping decodes an event written as a mapping.
func (d *decoder) eventMapping(k, v *yaml.Node, decl *EventDecl, s *Spec) {
	name := k.Value
	f := d.fields(v, fmt.Sprintf("event %q", name), EventDeclKeys...)
	if x, ok := f["payload"]; ok {
		decl.PayloadPos = pos(x.key)
		decl.Payload = d.payload(x.val, name)
	}
	single := false
	for _, key := range EventKeys[:4] { // from, to, when, set: one transition
		if _, ok := f[key]; ok {
			single = true
		}
	}
	x, list := f["transitions"]
	switch {
	case list && single:
		d.errorf(pos(x.key), span(x.key), "event %q has both transitions: and a transition of its own (from, to, when, set)", name)
		d.hintLast("move that transition into the transitions: list")
	case list:
		if note, ok := f["note"]; ok {
			decl.Note, _ = d.str(note.val, "note")
		}
		if x.val.Kind != yaml.SequenceNode {
			d.errorf(pos(x.val), span(x.val), "transitions of event %q must be a list of transitions, not %s", name, kindName(x.val))
			return
		}
		for _, item := range x.val.Content {
			if ev := d.eventTransition(item, name, nil); ev != nil {
				s.Events = append(s.Events, ev)
			}
		}
	case single:
		if ev := d.eventTransition(v, name, f); ev != nil {
			s.Events = append(s.Events, ev)
		}
	default: // a declaration: the states' on: say where the event goes
		if note, ok := f["note"]; ok {
			decl.Note, _ = d.str(note.val, "note")
		}
	}
}

// eventTransition decodes one transition of a top-level event; f holds the
// mapping's fields when the caller has read them already.
func (d *decoder) eventTransition(n *yaml.Node, name string, f map[string]field) *Event {
	if f == nil {
		if !d.wantMapping(n, fmt.Sprintf("a transition of event %q", name)) {
			return nil
		}
		f = d.fields(n, fmt.Sprintf("event %q", name), EventKeys...)
	}
	ev := &Event{Name: name, Pos: pos(n)}
	if n.Kind == yaml.MappingNode && len(n.Content) > 0 {
		ev.Pos = pos(n.Content[0])
	}
	if x, ok := f["from"]; ok {
		d.eventFrom(x.val, ev)
	}
	if x, ok := f["to"]; ok {
		ev.To, _ = d.str(x.val, "to")
		ev.ToPos = pos(x.val)
	} else {
		d.errorf(ev.Pos, 1, "event %q has no \"to\"", name)
		d.hintLast("add `to: STATE`")
		return nil
	}
	if x, ok := f["when"]; ok {
		ev.When, _ = d.exprText(x.val, "when")
		ev.WhenPos = pos(x.val)
		if x.val.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			ev.WhenPos.Col++ // point inside the quotes, as for transitions
		}
	}
	if x, ok := f["set"]; ok {
		ev.Set = d.assigns(x.val)
	}
	if x, ok := f["note"]; ok {
		ev.Note, _ = d.str(x.val, "note")
	}
	return ev
}

// eventFrom decodes an event transition's `from`: a state name, a list of
// them, or "*" (every non-final state: From stays empty).
func (d *decoder) eventFrom(n *yaml.Node, ev *Event) {
	ev.FromPos = pos(n)
	switch n.Kind {
	case yaml.ScalarNode:
		switch {
		case n.Tag == "!!null" || strings.TrimSpace(n.Value) == "":
			d.errorf(pos(n), span(n), "from of event %q is empty", ev.Name)
			d.hintLast(`name the states it applies in, or write "*" (every non-final state, the default)`)
		case n.Value != "*":
			ev.From = []string{n.Value}
		}
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode || item.Tag == "!!null" || item.Value == "" {
				d.errorf(pos(item), span(item), "from of event %q must list state names", ev.Name)
				continue
			}
			if Contains(ev.From, item.Value) {
				d.errorf(pos(item), span(item), "event %q lists state %q twice in from", ev.Name, item.Value)
				continue
			}
			if item.Value == "*" {
				ev.From = nil
				break
			}
			ev.From = append(ev.From, item.Value)
		}
	default:
		d.errorf(pos(n), span(n), "from of event %q must be a state name, a list of them, or \"*\"", ev.Name)
	}
}

// on decodes a state's `on:` mapping: event name → a state name, one
// transition, or a list of transitions (tried in order).
func (d *decoder) on(n *yaml.Node, state string) []*OnEvent {
	if n.Tag == "!!null" {
		return nil
	}
	if !d.wantMapping(n, fmt.Sprintf("on of state %q", state)) {
		return nil
	}
	var out []*OnEvent
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if d.badKey(k, "on") {
			continue
		}
		if seen[k.Value] {
			d.errorf(pos(k), span(k), "duplicate event %q in on of state %q", k.Value, state)
			d.hintLast("give all of its transitions under one key, as a list")
			continue
		}
		seen[k.Value] = true
		if !IdentRE.MatchString(k.Value) {
			d.errorf(pos(k), span(k), "event name %q is not an identifier", k.Value)
			continue
		}
		on := &OnEvent{Event: k.Value, Pos: pos(k)}
		what := fmt.Sprintf("on %s of state %q", k.Value, state)
		switch v.Kind {
		case yaml.SequenceNode:
			for _, item := range v.Content {
				if t := d.transition(item, what, true); t != nil {
					on.Transitions = append(on.Transitions, t)
				}
			}
		case yaml.MappingNode:
			if t := d.transition(v, what, true); t != nil {
				on.Transitions = append(on.Transitions, t)
			}
		default:
			if v.Tag == "!!null" {
				d.errorf(pos(k), span(k), "%s goes nowhere", what)
				d.hintLast("give the state it goes to: `" + k.Value + ": STATE`, or a list of transitions")
				continue
			}
			if t := d.transition(v, what, true); t != nil {
				on.Transitions = append(on.Transitions, t)
			}
		}
		out = append(out, on)
	}
	return out
}

var PayloadFieldKeys = []string{"type", "required", "default", "enum", "doc", "nullable"}

// payload decodes an event's payload schema: field → type name, or
// {type, required, default, enum, doc}. A field is required unless it says
// `required: false` or has a default.
func (d *decoder) payload(n *yaml.Node, event string) []*PayloadField {
	if n.Tag == "!!null" {
		return nil
	}
	if !d.wantMapping(n, fmt.Sprintf("payload of event %q", event)) {
		return nil
	}
	var out []*PayloadField
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		what := fmt.Sprintf("payload of event %q", event)
		if d.badKey(k, what) {
			continue
		}
		name := k.Value
		if seen[name] {
			d.errorf(pos(k), span(k), "duplicate field %q in the %s", name, what)
			continue
		}
		seen[name] = true
		if name == "" {
			d.errorf(pos(k), span(k), "payload field name is empty")
			d.hintLast("name the field: a JSON key (read a name that is not an identifier as event.payload[\"first-name\"])")
			continue
		}
		pf := &PayloadField{Var: Var{Name: name, Pos: pos(k), TypePos: pos(v), DefPos: pos(k)}, Required: true}
		var defNode *yaml.Node
		switch v.Kind {
		case yaml.ScalarNode:
			if v.Tag == "!!null" {
				d.errorf(pos(k), span(k), "payload field %q of event %q has no type", name, event)
				d.hintLast("write `" + name + ": TYPE` (one of " + typeList() + ")")
				continue
			}
			pf.Type = Type(v.Value)
		case yaml.MappingNode:
			f := d.fields(v, fmt.Sprintf("payload field %q", name), PayloadFieldKeys...)
			t, ok := f["type"]
			if !ok {
				d.errorf(pos(k), span(k), "payload field %q of event %q has no type", name, event)
				d.hintLast("add `type:` (one of " + typeList() + ")")
				continue
			}
			pf.TypePos = pos(t.val)
			if t.val.Kind != yaml.ScalarNode || t.val.Tag == "!!null" {
				d.errorf(pos(t.val), span(t.val), "type of payload field %q must be a type name, not %s", name, kindName(t.val))
				continue
			}
			pf.Type = Type(t.val.Value)
			reqGiven := false
			if r, ok := f["required"]; ok {
				b, err := d.nodeValue(r.val)
				bv, isBool := b.(bool)
				if err != nil || !isBool {
					d.errorf(pos(r.val), span(r.val), "required must be true or false, not %s", kindName(r.val))
					d.hintLast(boolHint(r.val))
				} else {
					pf.Required, reqGiven = bv, true
				}
			}
			if dv, ok := f["default"]; ok {
				defNode = dv.val
				pf.DefPos = pos(dv.val)
				if reqGiven && pf.Required {
					d.errorf(pos(dv.key), span(dv.key), "payload field %q of event %q is required and has a default", name, event)
					d.hintLast("a default is for an optional field: remove `required: true` or the default")
				}
				pf.Required = false
			}
			if e, ok := f["enum"]; ok {
				pf.EnumPos = pos(e.val)
				if e.val.Kind != yaml.SequenceNode {
					d.errorf(pos(e.val), span(e.val), "enum of payload field %q must be a list of strings", name)
				} else {
					for _, item := range e.val.Content {
						if item.Kind != yaml.ScalarNode || item.Tag == "!!null" || Contains(pf.Enum, item.Value) {
							d.errorf(pos(item), span(item), "enum of payload field %q must be a list of different strings", name)
							continue
						}
						pf.Enum = append(pf.Enum, item.Value)
					}
				}
			}
			if doc, ok := f["doc"]; ok {
				pf.Doc, _ = d.str(doc.val, "doc")
			}
			d.payloadNullable(f, pf)
		default:
			d.errorf(pos(v), span(v), "payload field %q of event %q must be a type name or a mapping with type, required, default, enum and doc, not %s", name, event, kindName(v))
			continue
		}
		if !isPayloadType(pf.Type) {
			d.errorf(pf.TypePos, len(pf.Type), "unknown type %q for payload field %q", pf.Type, name)
			if h := typeDidYouMean(string(pf.Type), append(typeNames(), string(TypeAny))); h != "" {
				d.hintLast(h)
			} else {
				d.hintLast("use one of " + typeList() + ", any")
			}
			// Kept as any, so its uses are not also reported as a field
			// the event does not declare.
			pf.Type, pf.Enum = TypeAny, nil
		}
		if len(pf.Enum) > 0 && pf.Type != TypeString {
			d.errorf(pf.EnumPos, 1, "enum is only allowed on string fields, and %q is %s", name, pf.Type)
			pf.Enum = nil
		}
		pf.Default = pf.initial()
		if defNode != nil {
			val, err := d.nodeValue(defNode)
			if err == nil {
				val, err = pf.Type.Coerce(val)
			}
			if err != nil {
				d.errorf(pos(defNode), span(defNode), "default of payload field %q: %v", name, err)
			} else if sv, ok := val.(string); ok && len(pf.Enum) > 0 && !Contains(pf.Enum, sv) {
				d.errorf(pos(defNode), span(defNode), "default %q of payload field %q is not one of its enum values %s", sv, name, QuoteList(pf.Enum))
			} else {
				pf.Default = val
			}
		}
		out = append(out, pf)
	}
	return out
}
