package validate

import (
	mspec "github.com/lppctl/lppctl/machine/spec"
	"strconv"
	"strings"
)

// graph checks the shape of the machine: reachability from the initial
// state, ways out of every state, and that a final state can be reached. On a
// spec with errors it reports only what they cannot change (see Validate).
func (v *validator) graph() {
	s := v.spec
	if len(s.States) == 0 {
		if p, rest, ok := topKey(s.Source, "states"); ok && strings.HasPrefix(rest, "{") {
			v.errorf(p, len("states"), "add at least one state and one final state", "the spec has no states")
		}
		return
	}
	d := v.damage
	if d == nil {
		d = &damage{}
	}
	if d.total {
		return
	}
	// succ holds the edges as written; meant adds those the errors may hide:
	// to the state an undefined target probably means, and from a state with
	// a decode error to the states its text names. mayFinish holds the states
	// that may reach a final state through an undefined target or a lost part.
	succ := v.successors()
	meant := map[string][]string{}
	for from, tos := range succ {
		meant[from] = append([]string(nil), tos...)
	}
	var mayFinish []string
	inMayFinish := map[string]bool{} // mayFinish as a set: linear in the states
	addMayFinish := func(name string) {
		if !inMayFinish[name] {
			inMayFinish[name] = true
			mayFinish = append(mayFinish, name)
		}
	}
	unknown := func(from, to string) {
		addMayFinish(from)
		if m := v.meantState(to); m != "" {
			meant[from] = mspec.AppendUnique(meant[from], m)
		}
	}
	for _, st := range s.States {
		for _, t := range st.Transitions() {
			if s.State(t.To) == nil {
				unknown(st.Name, t.To)
			}
		}
	}
	for _, ev := range s.Events {
		if s.State(ev.To) != nil {
			continue
		}
		for _, from := range v.eventSources(ev) {
			unknown(from, ev.To)
		}
	}
	for _, st := range s.States {
		if names, ok := d.states[st.Name]; ok {
			addMayFinish(st.Name)
			for _, n := range names {
				meant[st.Name] = mspec.AppendUnique(meant[st.Name], n)
			}
		}
	}

	// An initial state that is final is one mistake, reported by header:
	// every other state unreachable from it is its consequence, not news.
	if init := s.State(s.Initial); init != nil && !v.initialIsFinal(init) {
		seen := reach(append([]string{s.Initial}, d.roots...), meant)
		for _, st := range s.States {
			if !seen[st.Name] {
				v.errorf(st.Pos, len(st.Name), "no transition, on_error route or event goes to it: add one, or remove the state",
					"state %q is unreachable from the initial state %q", st.Name, s.Initial)
			}
		}
	}
	var finals []string
	for _, st := range s.States {
		switch {
		case st.Final:
			finals = append(finals, st.Name)
		case len(st.Next) == 0 && !st.OnPos.IsValid() && !d.hasState(st.Name):
			v.errorf(st.Pos, len(st.Name), "add `next: STATE`, or `final: true` if the run ends here",
				"state %q has no way out: it is not final and has no next transitions", st.Name)
		}
	}
	if len(finals) == 0 {
		// A transition to an undefined state may have been meant for a final
		// state (one deleted): that error says so; this one would be its echo.
		if !d.finals && len(d.states) == 0 && len(mayFinish) == 0 {
			st := s.States[0]
			v.errorf(st.Pos, len(st.Name), "mark the state that ends the run with `final: true`", "the spec has no final state")
		}
		return
	}
	pred := map[string][]string{}
	for from, tos := range meant {
		for _, to := range tos {
			pred[to] = append(pred[to], from)
		}
	}
	v.canFinish = reach(append(finals, mayFinish...), pred)
	if d.events {
		return // a lost event may lead anywhere
	}
	for _, st := range s.States {
		if !v.canFinish[st.Name] && (len(st.Next) > 0 || len(st.On) > 0) {
			v.errorf(st.Pos, len(st.Name), "every path from here runs until limits.max_transitions: add a transition that leads to a final state",
				"no final state can be reached from state %q", st.Name)
		}
	}
}

// meantState returns the defined state an undefined target most probably
// means (its "did you mean"), or "".
func (v *validator) meantState(name string) string {
	if name == "" {
		return ""
	}
	h := v.suggest(name, v.allStateNames())
	if m, ok := strings.CutPrefix(h, "did you mean "); ok {
		if q, err := strconv.Unquote(strings.TrimSuffix(m, "?")); err == nil && v.spec.State(q) != nil {
			return q
		}
	}
	return ""
}

// eventSources returns the states an event can fire from: its from list, or
// every non-final state.
func (v *validator) eventSources(ev *mspec.Event) []string {
	var out []string
	if len(ev.From) > 0 {
		for _, from := range ev.From {
			if st := v.spec.State(from); st != nil && !st.Final {
				out = append(out, from)
			}
		}
		return out
	}
	for _, st := range v.spec.States {
		if !st.Final {
			out = append(out, st.Name)
		}
	}
	return out
}
