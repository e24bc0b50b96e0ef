package machine

import (
	"context"
	"fmt"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"slices"
	"strconv"
	"strings"
)

// How events reach a run (docs/spec.md, "Events"):
//
//   - An action emits one (Call.Emit, Call.EmitEvent; the built-in emit): it
//     is checked when the action returns (an unknown event or a payload that
//     fails its schema fails the action), then considered right after the
//     state's `set`, before `next`; one that does not apply there is dropped,
//     with a note in the step's record.
//   - Someone outside sends one (Send, SendEvent; `lppctl run --event`): it
//     waits in the run's queue, oldest first, until a state it applies in
//     takes it.
//   - A person delivers one to a stopped run (Fire, FireEvent; `lppctl resume
//     --event`): it applies now, from the state the run stopped in, or is
//     refused with the reason.
//
// An event applies in a state when one of its transitions holds there: the
// state's own (`on:`) first, in order, then the top-level ones (`events:`)
// whose from includes the state, in file order; the first whose `when`
// holds is taken.

// Send queues a named event from outside the run (e.g. "RESET"). Safe to
// call from any goroutine; the event is considered after the current step's
// action, and waits in the queue until a state it applies in is reached.
func (r *Run) Send(event string) error { return r.SendEvent(event, nil) }

// SendEvent is Send with a payload, checked against the event's declared
// payload fields.
func (r *Run) SendEvent(event string, payload map[string]any) error {
	return r.send(0, event, payload)
}

// Queue is SendEvent for an event of a list of queued events the caller
// keeps (`lppctl run --event`'s), rank being its place there (1-based): the
// step that takes it records the rank (Record.Queued), so that a caller
// that goes on with the run after a crash queues again only the events no
// step took (Took).
func (r *Run) Queue(rank int, event string, payload map[string]any) error {
	if rank < 1 {
		return fmt.Errorf("cannot queue event %q: rank %d is not 1 or more", event, rank)
	}
	return r.send(rank, event, payload)
}

func (r *Run) send(rank int, event string, payload map[string]any) error {
	d, err := r.m.prepare(event, payload)
	if err != nil {
		return fmt.Errorf("cannot send event %q: %w", event, err)
	}
	d.rank = rank
	select {
	case r.inbox <- d:
		return nil
	default:
		return fmt.Errorf("cannot send event %q: too many pending events", event)
	}
}

// Took reports whether a step of the run, run or replayed, took the queued
// event of the given rank (Queue).
func (r *Run) Took(rank int) bool { return r.took[rank] }

func (r *Run) markTook(rank int) {
	if r.took == nil {
		r.took = map[int]bool{}
	}
	r.took[rank] = true
}

// Pending returns the names of the events sent from outside that no state
// has taken yet, oldest first.
func (r *Run) Pending() []string {
	r.drain()
	out := make([]string, len(r.queue))
	for i, d := range r.queue {
		out[i] = d.name
	}
	return out
}

// drain moves the events sent from outside into the queue.
func (r *Run) drain() {
	for {
		select {
		case d := <-r.inbox:
			r.queue = append(r.queue, d)
		default:
			return
		}
	}
}

// emitted checks the events an action emitted; they are delivered by the
// next pickEvent.
func (r *Run) emitted(call *Call) ([]*delivery, error) {
	if len(call.events) == 0 {
		return nil, nil
	}
	out := make([]*delivery, 0, len(call.events))
	for _, e := range call.events {
		d, err := r.m.prepare(e.name, e.payload)
		if err != nil {
			return nil, fmt.Errorf("cannot emit event %q: %w", e.name, err)
		}
		out = append(out, d)
	}
	return out, nil
}

// pickEvent returns the transition of the first pending event that applies
// in cs, and the event: those emitted by the state's action first (one that
// does not apply is dropped, with a note in rec; those after the one taken
// wait for the next state), then those sent from outside, oldest first
// (they stay queued when they do not apply).
func (r *Run) pickEvent(cs *Cstate, emitted []*delivery, rec *Record) (*Ctrans, *delivery, error) {
	internal := append(r.internal, emitted...)
	r.internal = nil
	for i, d := range internal {
		ct, err := r.match(cs, d)
		if err != nil {
			return nil, nil, err
		}
		if ct != nil {
			r.internal = slices.Clone(internal[i+1:])
			return ct, d, nil
		}
		rec.Notes = append(rec.Notes, mspec.Note{Text: fmt.Sprintf("event %s dropped: no transition for it holds in state %s", d.name, cs.St.Name)})
	}
	r.drain()
	for i, d := range r.queue {
		ct, err := r.match(cs, d)
		if err != nil {
			return nil, nil, err
		}
		if ct != nil {
			r.queue = slices.Delete(r.queue, i, i+1)
			return ct, d, nil
		}
	}
	return nil, nil, nil
}

// match returns the first transition of event d that holds in cs (nil when none).
func (r *Run) match(cs *Cstate, d *delivery) (*Ctrans, error) {
	ce := r.m.Events[d.name]
	if ce == nil {
		return nil, nil
	}
	own := cs.On[d.name]
	if len(own) == 0 && len(ce.Global) == 0 {
		return nil, nil
	}
	r.env[mspec.VarEvent] = d.value
	defer delete(r.env, mspec.VarEvent)
	for _, ct := range own {
		if ok, err := r.holds(ct, cs); ok || err != nil {
			return ct, err
		}
	}
	for _, ct := range ce.Global {
		if !ct.AppliesIn(cs.St) {
			continue
		}
		if ok, err := r.holds(ct, cs); ok || err != nil {
			return ct, err
		}
	}
	return nil, nil
}

// holds evaluates an event transition's guard.
func (r *Run) holds(ct *Ctrans, cs *Cstate) (bool, error) {
	if ct.Guard == nil {
		return true, nil
	}
	ok, err := r.vm.Run(ct.Guard, r.env)
	if err != nil && r.m.spec.GuardErrorsFalse {
		r.guardFalse(ct.T.When, cs.St.Name, ct.event, err)
		return false, nil
	}
	if err != nil {
		r.status = StatusFailed
		return false, fmt.Errorf("cannot evaluate guard %q of event %q in state %q: %w", ct.T.When, ct.event, cs.St.Name, err)
	}
	return ok == true, nil
}

// guardFalse notes a guard that could not be evaluated, taken as false
// (guard_errors: as_false), for the record of the next step.
func (r *Run) guardFalse(guard, state, event string, err error) {
	of := ""
	if event != "" {
		of = fmt.Sprintf(" of event %q", event)
	}
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i] // expr's error repeats the expression under a caret
	}
	r.guardNotes = append(r.guardNotes, mspec.Note{Severity: mspec.NoteWarning,
		Text: fmt.Sprintf("guard %q%s in state %q is false: it cannot be evaluated (%s), and guard_errors: as_false takes it as false", guard, of, state, msg)})
}

// CanFire reports why Fire(event) would fail now, or nil.
func (r *Run) CanFire(event string) error { return r.CanFireEvent(event, nil) }

// CanFireEvent reports why FireEvent(event, payload) would fail now, or nil.
func (r *Run) CanFireEvent(event string, payload map[string]any) error {
	defer func(notes []mspec.Note) { r.guardNotes = notes }(r.guardNotes) // a try records nothing
	_, _, err := r.canFire(event, payload)
	return err
}

func (r *Run) canFire(event string, payload map[string]any) (*Ctrans, *delivery, error) {
	d, err := r.m.prepare(event, payload)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot fire event %q: %w", event, err)
	}
	if r.status == StatusCompleted {
		return nil, nil, fmt.Errorf("cannot fire event %q: %w", event, ErrFinished)
	}
	state := r.State()
	cs := r.m.States[state]
	ct, err := r.match(cs, d)
	if err != nil {
		return nil, nil, err
	}
	if ct != nil {
		// The transition's set is tried too: one that fails (a payload
		// field of type any holding a value of another type than the
		// variable's, a null for a variable that is not nullable) refuses
		// the event, as a false guard does, and the run stays as it was.
		r.env[mspec.VarEvent] = d.value
		err := r.trySet(ct.Set)
		delete(r.env, mspec.VarEvent)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot fire event %q in state %q: its transition's set cannot be applied: %w", event, state, err)
		}
		return ct, d, nil
	}
	var guards []string
	note := "" // the note of the only guarded transition, which says why it is there
	for _, ct := range cs.On[event] {
		guards, note = append(guards, ct.T.When), ct.T.Note
	}
	for _, ct := range r.m.Events[event].Global {
		if ct.AppliesIn(cs.St) {
			guards, note = append(guards, ct.T.When), ct.T.Note
		}
	}
	switch {
	case len(guards) == 0 && cs.St.Final:
		return nil, nil, fmt.Errorf("cannot fire event %q in final state %q", event, state)
	case len(guards) == 0:
		return nil, nil, fmt.Errorf("cannot fire event %q in state %q: it applies only from %s", event, state, mspec.QuoteList(r.m.sources(event)))
	case len(guards) == 1 && note != "":
		return nil, nil, fmt.Errorf("cannot fire event %q in state %q: its guard %q is false (%s)", event, state, guards[0], note)
	case len(guards) == 1:
		return nil, nil, fmt.Errorf("cannot fire event %q in state %q: its guard %q is false", event, state, guards[0])
	}
	q := make([]string, len(guards))
	for i, g := range guards {
		q[i] = strconv.Quote(g)
	}
	return nil, nil, fmt.Errorf("cannot fire event %q in state %q: none of its guards holds (%s)", event, state, strings.Join(q, ", "))
}

// sources returns the states an event applies in, in file order.
func (m *Machine) sources(event string) []string {
	var out []string
	for _, st := range m.spec.States {
		cs := m.States[st.Name]
		if len(cs.On[event]) > 0 || slices.ContainsFunc(m.Events[event].Global, func(ct *Ctrans) bool { return ct.AppliesIn(st) }) {
			out = append(out, st.Name)
		}
	}
	return out
}

// Fire applies a named event now, from the current state, without running
// the state's action (it is how a person redirects a stopped run, e.g.
// `lppctl resume ID --event RESET`, or answers a state that waits). One of
// the event's transitions must hold in the current state. Like every step,
// it reaches the observers.
func (r *Run) Fire(ctx context.Context, event string) error { return r.FireEvent(ctx, event, nil) }

// FireEvent is Fire with a payload, checked against the event's declared
// payload fields; the event is not delivered when it fails.
func (r *Run) FireEvent(ctx context.Context, event string, payload map[string]any) error {
	notes := r.guardNotes
	ct, d, err := r.canFire(event, payload)
	if err != nil {
		r.guardNotes = notes // the event is refused: nothing happened
		return err
	}
	rec := &Record{Seq: r.seq + 1, From: r.State(), Start: r.now()}
	if err := r.take(rec, ct, d, nil, true); err != nil {
		return err
	}
	r.status, r.pause, r.input = StatusRunning, nil, nil
	return r.notify(ctx, rec)
}
