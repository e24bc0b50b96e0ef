package export

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lppctl/lppctl/machine/check"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// The built-in emit, as lppctl check explores it (docs/check.md, "What is
// explored"): the event its state's action sends is considered first, once
// the state's set applied; when one of its transitions holds it is taken and
// nothing else (neither other events nor next), else it is dropped. An
// event with a payload carries the values of the payload parameter's
// expressions on the values the state was entered with: the action step
// builds that record into the variable `emitted`, which the event's guards
// and sets read as its payload.

// tlaEmit is what a state's emit adds to its steps.
type tlaEmit struct {
	event   string // the event emitted ("" when none the state handles)
	payload bool   // it carries a payload (read from the variable emitted)
	applies string // one of its transitions holds (a TLA+ condition)
}

// notFor returns the condition under which a step of event (or of next, "")
// may fire in the emitting state: the emitted event does not apply. The
// steps of an emitted event without payload are the emitted event's own.
func (e *tlaEmit) notFor(event string) []string {
	if e == nil || e.event == "" || !e.payload && event == e.event {
		return nil
	}
	return []string{"~" + e.applies}
}

// emission returns what xs's emit adds to its steps, and puts the payload
// record it sends in its action step act.
func (w *tlaWriter) emission(xs *check.Xstate, act *tlaStep) (*tlaEmit, error) {
	ev, withPayload := xs.Emitted()
	st := xs.Cs.St
	if ev == nil || st.Final {
		return nil, nil
	}
	e := &tlaEmit{event: ev.Name, payload: withPayload}
	payload := ""
	if withPayload {
		rec, err := w.emittedRecord(st, ev.Name)
		if err != nil {
			return nil, err
		}
		act.next[w.emitted] = rec
		act.comment += fmt.Sprintf("; it emits %s with the payload %s", ev.Name, w.emitted)
		payload = w.emitted
	}
	tr := &tlaTranslator{names: w.names(), payload: payload, event: ev.Name, uses: w.uses}
	env := w.m.Events[ev.Name].Env
	var guards []string
	for _, ct := range ev.Trans {
		if ct.T.When == "" {
			guards = nil
			e.applies = "TRUE"
			break
		}
		g, err := tr.translate(ct.T.When, env, tlaExprSite{w.spec.File, w.spec.Source, ct.T.WhenPos, fmt.Sprintf("guard of %s of state %q", ct.Via, st.Name)})
		if err != nil {
			return nil, err
		}
		guards = append(guards, g)
	}
	switch {
	case e.applies != "":
	case len(guards) == 1:
		e.applies = guards[0]
	default:
		e.applies = "(" + strings.Join(guards, " \\/ ") + ")"
	}
	return e, nil
}

// emittedRecord translates the payload emit sends to event: each field of
// the event, given by the payload parameter's expression, or its default.
func (w *tlaWriter) emittedRecord(st *mspec.State, event string) (string, error) {
	given := map[string]any{}
	pos := st.DoPos
	for _, p := range st.With {
		if p.Name == "payload" {
			given, _ = p.Value.(map[string]any)
			pos = p.VPos
		}
	}
	tr := &tlaTranslator{names: w.names(), uses: w.uses}
	env := mspec.TypeEnv(w.spec)
	var parts []string
	for _, f := range w.m.Events[event].Decl.Payload {
		if tlaIdentChars.MatchString(f.Name) {
			return "", w.errorf(f.Pos, "payload field %q of event %q is not a TLA+ record field name (letters, digits, _)", f.Name, event)
		}
		var t string
		var err error
		if src, ok := mspec.ExprSource(given[f.Name]); ok {
			t, err = tr.translate(src, env, tlaExprSite{w.spec.File, w.spec.Source, pos, fmt.Sprintf("parameter \"payload\", key %q of state %q", f.Name, st.Name)})
		} else {
			t, err = tlaValue(f.Default)
			if err != nil {
				err = w.errorf(f.Pos, "payload field %q of event %q: %v", f.Name, event, err)
			}
		}
		if err != nil {
			return "", err
		}
		parts = append(parts, f.Name+" |-> "+t)
	}
	return "[" + strings.Join(parts, ", ") + "]", nil
}

// emittedSteps writes the steps of the event xs's emit sends with a
// payload: the first of its transitions whose guard holds, with the
// payload in emitted. (Without a payload, the event's own steps are these.)
func (w *tlaWriter) emittedSteps(xs *check.Xstate, e *tlaEmit) error {
	if e == nil || !e.payload {
		return nil
	}
	ev, _ := xs.Emitted()
	st := xs.Cs.St
	sid := tlaIdentChars.ReplaceAllString(st.Name, "_")
	tr := &tlaTranslator{names: w.names(), payload: w.emitted, event: ev.Name, uses: w.uses}
	env := w.m.Events[ev.Name].Env
	var earlier []string
	for i, ct := range ev.Trans {
		what := fmt.Sprintf("%s of state %q", ct.Via, st.Name)
		step := &tlaStep{name: w.ident(fmt.Sprintf("%s_emits_%s_%d", sid, ev.Name, i)),
			comment: fmt.Sprintf("%s, emitted (%s:%d:%d): %s -> %s%s", ct.Via, w.spec.File, ct.T.Pos.Line, ct.T.Pos.Col, st.Name, ct.Target, whenComment(ct.T.When)),
			pre:     []string{"state = " + tlaString(st.Name), `phase = "act"`},
			next:    w.move(ct.Target)}
		step.conds = slices.Clone(earlier)
		if ct.T.When != "" {
			g, err := tr.translate(ct.T.When, env, tlaExprSite{w.spec.File, w.spec.Source, ct.T.WhenPos, "guard of " + what})
			if err != nil {
				return err
			}
			step.conds = append(step.conds, g)
			earlier = append(earlier, "~"+g)
		}
		if err := w.assigns(ct.T.Set, tr.names, tr, w.emitted, "set of "+what, step.next); err != nil {
			return err
		}
		step.next["last_error"] = `""`
		w.step(step)
		if ct.T.When == "" {
			break
		}
	}
	return nil
}
