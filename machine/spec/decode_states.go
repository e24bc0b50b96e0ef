package spec

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

var StateKeys = []string{"do", "with", "set", "next", "on_error", "on", "final", "note", "final_requires"}

// states decodes the states: section: actions, parameters, set,
// transitions, error routes and on: events.
func (d *decoder) states(n *yaml.Node, s *Spec) {
	seen := map[string]bool{}
	dedented := d.dedentedKeys(n)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if dedented[i] || d.badKey(k, "states") {
			continue
		}
		name := k.Value
		if seen[name] {
			d.errorf(pos(k), span(k), "duplicate state %q", name)
			continue
		}
		seen[name] = true
		if !IdentRE.MatchString(name) {
			if m := colonKeyRE.FindStringSubmatch(name); m != nil && v.Kind == yaml.ScalarNode {
				d.errorf(pos(k), len([]rune(m[1]))+1, "state name %q is not an identifier: a colon is missing after %q", name, m[1])
				d.hintLast(fmt.Sprintf("write `%s: %s: %s`", m[1], m[2], v.Value))
				continue
			}
			d.errorf(pos(k), span(k), "state name %q is not an identifier", name)
			d.hintLast("use letters, digits and underscores, starting with a letter")
			continue
		}
		st := &State{Name: name, Pos: pos(k)}
		s.States = append(s.States, st)
		if v.Tag == "!!null" { // `done:` with nothing: a state with no action and no way out
			continue
		}
		if !d.wantMapping(v, fmt.Sprintf("state %q", name)) {
			if v.Kind == yaml.ScalarNode {
				d.hintLast(fmt.Sprintf("a state is a mapping: `%s: {next: %s}` goes on to %s, `%s: {final: true}` ends the run", name, v.Value, v.Value, name))
			}
			continue
		}
		f := d.fields(v, fmt.Sprintf("state %q", name), StateKeys...)
		if x, ok := f["do"]; ok {
			st.Do, _ = d.str(x.val, "do")
			st.DoPos = pos(x.val)
		}
		if x, ok := f["with"]; ok {
			st.WithPos = pos(x.key)
			if d.wantMapping(x.val, "with") {
				given := map[string]bool{}
				for j := 0; j+1 < len(x.val.Content); j += 2 {
					pk, pv := x.val.Content[j], x.val.Content[j+1]
					if d.badKey(pk, "with") {
						continue
					}
					if given[pk.Value] {
						d.errorf(pos(pk), span(pk), "duplicate parameter %q in with", pk.Value)
						d.hintLast("remove one of them")
						continue
					}
					given[pk.Value] = true
					val, err := d.nodeValue(pv)
					if err != nil {
						at, n := valueErrorAt(pv, err)
						d.errorf(at, n, "parameter %q: %v", pk.Value, err)
						continue
					}
					st.With = append(st.With, &Param{Name: pk.Value, Value: val, Pos: pos(pk), VPos: pos(pv)})
				}
			}
		}
		if x, ok := f["set"]; ok {
			st.Set = d.assigns(x.val)
		}
		if x, ok := f["next"]; ok {
			st.Next = d.transitions(x.val, name)
		}
		if x, ok := f["on_error"]; ok {
			st.OnError = d.transition(x.val, fmt.Sprintf("on_error of state %q", name), false)
		}
		if x, ok := f["on"]; ok {
			st.OnPos = pos(x.key)
			st.On = d.on(x.val, name)
		}
		if x, ok := f["final"]; ok {
			b, err := d.nodeValue(x.val)
			if bv, isBool := b.(bool); err != nil || !isBool {
				d.errorf(pos(x.val), span(x.val), "final must be true or false, not %s", kindName(x.val))
				d.hintLast(boolHint(x.val))
				if v := strings.ToLower(x.val.Value); x.val.Kind == yaml.ScalarNode && (v == "true" || v == "false") {
					d.hintLast("write " + v + " without quotes")
				}
			} else {
				st.Final = bv
			}
		}
		if x, ok := f["note"]; ok {
			st.Note, _ = d.str(x.val, "note")
		}
		if x, ok := f["final_requires"]; ok {
			st.FinalRequires = d.finalRequires(x.val, name)
		}
	}
}

// assigns decodes a `set:` mapping of variable → expression, keeping file order.
func (d *decoder) assigns(n *yaml.Node) []*Assign {
	if n.Tag == "!!null" {
		return nil
	}
	if !d.wantMapping(n, "set") {
		return nil
	}
	var out []*Assign
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if d.badKey(k, "set") {
			continue
		}
		if seen[k.Value] {
			d.errorf(pos(k), span(k), "duplicate key %q in set", k.Value)
			continue
		}
		seen[k.Value] = true
		text, ok := d.exprText(v, fmt.Sprintf("set %s", k.Value))
		if !ok {
			continue
		}
		a := &Assign{Var: k.Value, Expr: text, Pos: pos(k), ExprPos: pos(v)}
		if v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			a.ExprPos.Col++ // point inside the quotes, where the expression starts
		}
		out = append(out, a)
	}
	return out
}

func (d *decoder) transitions(n *yaml.Node, state string) []*Transition {
	what := fmt.Sprintf("next of state %q", state)
	switch n.Kind {
	case yaml.ScalarNode: // `next: optimizer` — one unguarded transition
		if n.Tag == "!!null" {
			return nil
		}
		return []*Transition{{To: n.Value, ToPos: pos(n), Pos: pos(n)}}
	case yaml.SequenceNode:
		out := make([]*Transition, 0, len(n.Content))
		for _, item := range n.Content {
			if t := d.transition(item, what, true); t != nil {
				out = append(out, t)
			}
		}
		return out
	}
	d.errorf(pos(n), span(n), "%s must be a list of transitions (or one state name), not %s", what, kindName(n))
	return nil
}

var TransitionKeys = []string{"to", "when", "set", "note", "warn"}
var ErrorRouteKeys = []string{"to", "set", "note", "warn"}

// transition decodes `{to, when, set, note, warn}` or a bare state name.
func (d *decoder) transition(n *yaml.Node, what string, guarded bool) *Transition {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return &Transition{To: n.Value, ToPos: pos(n), Pos: pos(n)}
	}
	if !d.wantMapping(n, "a transition in "+what) {
		return nil
	}
	keys := TransitionKeys
	if !guarded {
		keys = ErrorRouteKeys
	}
	f := d.fields(n, what, keys...)
	t := &Transition{Pos: pos(n)}
	if x, ok := f["to"]; ok {
		t.To, _ = d.str(x.val, "to")
		t.ToPos = pos(x.val)
	} else {
		d.errorf(pos(n), 1, "a transition in %s has no \"to\"", what)
		d.hintLast("add `to: STATE`")
		return nil
	}
	if x, ok := f["when"]; ok {
		t.When, _ = d.exprText(x.val, "when")
		t.WhenPos = pos(x.val)
		if x.val.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			t.WhenPos.Col++
		}
	}
	if x, ok := f["set"]; ok {
		t.Set = d.assigns(x.val)
	}
	if x, ok := f["note"]; ok {
		t.Note, _ = d.str(x.val, "note")
	}
	if x, ok := f["warn"]; ok {
		t.Warn, _ = d.str(x.val, "warn")
	}
	return t
}

// dedentedKeys gives the keys of a state indented as states (dedentedKey)
// to it, reported once, not as states (nor what only they reach as
// unreachable), and returns their indexes in n.Content.
func (d *decoder) dedentedKeys(n *yaml.Node) map[int]bool {
	out := map[int]bool{}
	var keys []*yaml.Node // the keys given to the state at above
	above := 0
	report := func() {
		if len(keys) == 0 {
			return
		}
		prev, body := n.Content[above], n.Content[above+1]
		where := fmt.Sprintf("at column %d, as its other keys", body.Content[0].Column)
		if body.Style&yaml.FlowStyle != 0 {
			where = "inside its mapping"
		} else if body.Content[0] == keys[0] {
			where = fmt.Sprintf("at column %d, under the state's name", prev.Column+2)
		}
		what, it := fmt.Sprintf("%q is a key of state %q, indented as a state", keys[0].Value, prev.Value), fmt.Sprintf("`%s:` %s (it is", keys[0].Value, where)
		if n := len(keys); n > 1 {
			names := fmt.Sprintf("%q", keys[0].Value)
			for _, k := range keys[1 : n-1] {
				names += fmt.Sprintf(", %q", k.Value)
			}
			what, it = fmt.Sprintf("%s and %q are keys of state %q, indented as states", names, keys[n-1].Value, prev.Value), "them "+where+" (they are"
		}
		d.errorf(pos(keys[0]), span(keys[0]), "%s", what)
		d.hintLast(fmt.Sprintf("indent %s read as state %q's)", it, prev.Value))
		keys = nil
	}
	for i := 2; i+1 < len(n.Content); i += 2 {
		if d.dedentedKey(n, i, above) {
			out[i] = true
			keys = append(keys, n.Content[i])
			continue
		}
		report()
		above = i
	}
	report()
	return out
}

// dedentedKey reports whether the entry i of states: is a key of the state
// at above indented as a state (`on_error: {to: b}` two spaces short): a
// state key whose value is not a state (a mapping of state keys), after a
// state that lacks the key, written as a mapping or with nothing (`b:`,
// its keys at its own indentation). It gives the key to that state.
func (d *decoder) dedentedKey(n *yaml.Node, i, above int) bool {
	k, v := n.Content[i], n.Content[i+1]
	if !Contains(StateKeys, k.Value) || !IdentRE.MatchString(n.Content[above].Value) {
		return false
	}
	state := v.Kind == yaml.MappingNode && len(v.Content) > 0 // a state named like a key?
	for j := 0; state && j+1 < len(v.Content); j += 2 {
		state = Contains(StateKeys, v.Content[j].Value)
	}
	if state {
		return false
	}
	body := n.Content[above+1]
	if body.Kind == yaml.ScalarNode && body.Tag == "!!null" && body.Value == "" {
		body.Kind, body.Tag = yaml.MappingNode, "!!map"
	} else if body.Kind != yaml.MappingNode {
		return false
	}
	for j := 0; j+1 < len(body.Content); j += 2 {
		if body.Content[j].Value == k.Value {
			return false
		}
	}
	body.Content = append(body.Content, k, v)
	return true
}
