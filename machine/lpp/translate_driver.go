package lpp

import "slices"

// The driver's rules as the translation reads them: which events are AUTO,
// which transitions a state takes itself, where START and the waiting
// events go.

// isAuto reports whether the driver fires e by itself on entering a state.
func (tr *translator) isAuto(e string) bool { return slices.Contains(tr.m.Auto, e) }

// autoEvent returns the event the run fires on entering s ("" for none):
// the start event for an entry state no transition enters again (it is
// entered once, at the start), else the first auto event s accepts.
func (tr *translator) autoEvent(s string) string {
	if s == tr.bp.Entry && !tr.reentered() {
		if e := tr.startEvent(); e != "" {
			return e
		}
	}
	for _, e := range tr.m.Auto {
		if len(tr.lists[s][e]) > 0 {
			if tr.waitsForOthers(s, e) {
				return "" // the state waits for all its events, e included
			}
			return e
		}
	}
	return ""
}

// waitsForOthers reports whether state s has an unguarded transition on
// the driver event e and transitions on other events: firing e on entry
// would make those unreachable (in lpp, DONE can be a user's command), so
// the state waits for any of its events instead.
func (tr *translator) waitsForOthers(s, e string) bool {
	unguarded := slices.ContainsFunc(tr.lists[s][e], func(t *Transition) bool { return len(t.Gates) == 0 })
	if !unguarded {
		return false
	}
	for _, o := range tr.events[s] {
		if o != e && !tr.isAuto(o) && slices.ContainsFunc(tr.lists[s][o], func(t *Transition) bool { return t.From == s }) {
			return true
		}
	}
	return false
}

func (tr *translator) hasComputeGate(t *Transition) bool {
	return slices.ContainsFunc(t.Gates, func(id string) bool { g := tr.bp.Gate(id); return g != nil && g.Type == GateCompute })
}

// route fills lists and decides which "*" transitions stay top-level: a
// "*" transition is inlined into a state's on: list when, in that state,
// it comes before one of the state's own transitions for its event, or
// the list needs its compute gates evaluated first, or the event is one the
// driver fires (lppctl tries a state's on: before the top-level events:,
// so only a "*" transition that comes last can stay top-level).
func (tr *translator) route() {
	bp := tr.bp
	inlined := map[*Transition]bool{}
	for _, s := range bp.States {
		if bp.IsTerminal(s.ID) {
			continue
		}
		tr.lists[s.ID] = map[string][]*Transition{}
		for _, t := range bp.Transitions {
			if t.From != s.ID && t.From != Any {
				continue
			}
			if len(tr.lists[s.ID][t.Event]) == 0 {
				tr.events[s.ID] = append(tr.events[s.ID], t.Event)
			}
			tr.lists[s.ID][t.Event] = append(tr.lists[s.ID][t.Event], t)
		}
		for e, list := range tr.lists[s.ID] {
			last := -1
			dispatch := tr.isAuto(e) || (e == tr.startEvent() && s.ID == bp.Entry)
			for i, t := range list {
				if t.From != Any {
					last = i
				}
				dispatch = dispatch || tr.hasComputeGate(t)
			}
			for i, t := range list {
				if t.From == Any && (i < last || dispatch) {
					inlined[t] = true
				}
			}
		}
	}
	for _, t := range bp.Transitions {
		if t.From == Any && !inlined[t] {
			tr.topLevel[t] = true
		}
	}
}

// reentered reports whether a transition goes (back) to the entry state.
func (tr *translator) reentered() bool {
	return slices.ContainsFunc(tr.bp.Transitions, func(t *Transition) bool { return t.To == tr.bp.Entry })
}

// startEvent is the event fired when the run starts ("" when the entry
// state accepts none of the mapping's start events).
func (tr *translator) startEvent() string {
	for _, e := range tr.m.Start {
		for _, t := range tr.bp.Transitions {
			if t.Event == e && (t.From == tr.bp.Entry || t.From == Any) {
				return e
			}
		}
	}
	return ""
}

// ownList is the part of a state's list for e that its on: holds.
func (tr *translator) ownList(s, e string) []*Transition {
	var out []*Transition
	for _, t := range tr.lists[s][e] {
		if !tr.topLevel[t] {
			out = append(out, t)
		}
	}
	return out
}

// waitingEvents are the events a state waits for (all but the one the
// driver fires on entering it: AUTO too, in a state where it fires DONE),
// in order.
func (tr *translator) waitingEvents(s string) []string {
	var out []string
	for _, e := range tr.events[s] {
		if e != tr.autoEvent(s) && len(tr.ownList(s, e)) > 0 {
			out = append(out, e)
		}
	}
	return out
}
