package machine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/expr-lang/expr/vm"
	"github.com/looplab/fsm"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Errors a run can stop with. Test with errors.Is.
var (
	ErrInterrupted  = errors.New("run interrupted")
	ErrNoTransition = errors.New("no transition holds")
	ErrBudget       = errors.New("transition budget exhausted")
	ErrActionFailed = errors.New("action failed")
	ErrFinished     = errors.New("run already finished")
)

// Status is where a run stands.
type Status string

// Run statuses.
const (
	StatusRunning     Status = "running"
	StatusCompleted   Status = "completed"
	StatusPaused      Status = "paused"
	StatusFailed      Status = "failed"
	StatusInterrupted Status = "interrupted"
)

// Record describes one step of a run: the action of state From ran, and the
// machine moved to To. Observers receive one per step, before the next action
// starts; a journal of Records is enough to rebuild a run (see Replay).
type Record struct {
	Seq     int            `json:"seq"`             // 1-based number of this step
	From    string         `json:"from"`            // the state whose action ran
	To      string         `json:"to"`              // the state entered ("" when the run ended in From)
	Via     string         `json:"via"`             // "next[i]", "on_error", "on NAME[i]", "event NAME", "wait" or "final"
	Guard   string         `json:"guard,omitempty"` // the `when` that held
	Event   string         `json:"event,omitempty"` // the event that made the move
	Payload map[string]any `json:"payload,omitempty"`
	Action  string         `json:"action,omitempty"`
	Error   string         `json:"error,omitempty"` // the action error routed through on_error
	Vars    map[string]any `json:"vars,omitempty"`  // context variables changed by this step (new values)
	Memory  []MemOp        `json:"memory,omitempty"`
	Notes   []mspec.Note   `json:"notes,omitempty"` // what the action said: strings, or objects with a severity (warnings)
	Warn    string         `json:"warn,omitempty"`
	Input   *Input         `json:"input,omitempty"` // the person's answer the action consumed
	// Queued is the rank (1-based) of the event queued with Queue that this
	// step took, in the caller's list of queued events; 0 when it took none.
	Queued   int           `json:"queued,omitempty"`
	Start    time.Time     `json:"start"`
	Duration time.Duration `json:"duration"`      // of the action
	End      bool          `json:"end,omitempty"` // the run completed with this step
	// Appended names the list variables of Vars whose new value is their
	// value before the step with items appended, with that value's length:
	// the items past it are all that changed (the journal writes only them).
	// A reader of a journal sets it as well (the journal's appends).
	Appended map[string]int `json:"-"`
	// MapKeys names the map variables of Vars whose new value is their
	// value before the step with only these keys set or removed (a key the
	// new value lacks was removed; a key may be named twice): the journal
	// writes a patch of them. A reader of a journal sets it as well (the
	// journal's patches).
	MapKeys map[string][]string `json:"-"`
}

// ViaWait is the Via of a step that ran a waiting state's action and stays
// there, waiting for an event (From and To are the state).
const ViaWait = "wait"

// Observer receives every step of a run. An error from OnStep stops the run
// (a journal that cannot write must not let the run go on).
type Observer interface {
	OnStep(ctx context.Context, rec *Record) error
}

// EnterObserver is optionally implemented by observers that want to know
// when a state's action is about to run (for progress output).
type EnterObserver interface {
	OnEnter(state string, seq int)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(ctx context.Context, rec *Record) error

// OnStep calls f.
func (f ObserverFunc) OnStep(ctx context.Context, rec *Record) error { return f(ctx, rec) }

// Run is one execution of a Machine. It is not safe for concurrent use,
// except Send.
type Run struct {
	m         *Machine
	id        string
	fsm       *fsm.FSM // the current state: the single source of truth
	seq       int
	env       map[string]any // context variables + state + last_error; guards read it directly
	mem       *Memory
	status    Status
	input     *Input
	observers []Observer
	budget    int
	now       func() time.Time
	vm        vm.VM
	path      []string       // recent states, for naming cycles
	inbox     chan *delivery // events sent from outside the run (Send), from any goroutine
	queue     []*delivery    // events from outside not yet delivered, oldest first
	internal  []*delivery    // events emitted by an action, left after the one taken
	// guardNotes: the guards that could not be evaluated and were taken as
	// false (guard_errors: as_false) since the last step, for its record
	guardNotes []mspec.Note
	took       map[int]bool // the ranks of the queued events (Queue) a step took, run or replayed
	waiting    bool         // the current state's action ran: it waits for an event
	trigger    *delivery    // the event that entered the current state (nil: none)
	pause      *PauseError
	owned      map[string][]any          // list variable → the array the run appends it in (see appendItems)
	text       map[string][]byte         // string variable → the bytes the run adds to it in (see addText)
	grown      map[string]int            // list variable → its length before the step appended to it (Record.Appended)
	sizes      map[string]int            // list or map variable → its value's size, when known (see knownSize)
	mown       map[string]map[string]any // map variable → the map the run owns and changes keys of in place (see merge.go)
	keys       map[string][]string       // map variable → the keys the step changed (Record.MapKeys)
	borrowed   bool                      // every observer is a ValueBorrower
	obsFrom    context.Context
	obsCtx     context.Context
	call       Call
}

// RunOption configures a Run.
type RunOption func(*Run)

// WithRunID names the run in Calls (actions may use it, e.g. for idempotency keys).
func WithRunID(id string) RunOption { return func(r *Run) { r.id = id } }

// WithObserver adds an observer of every step.
func WithObserver(o Observer) RunOption {
	return func(r *Run) { r.observers = append(r.observers, o) }
}

// WithMaxTransitions sets the run's transition budget (it overrides the spec's limits).
func WithMaxTransitions(n int) RunOption {
	return func(r *Run) {
		if n > 0 {
			r.budget = n
		}
	}
}

// WithClock sets the clock used for record timestamps.
func WithClock(now func() time.Time) RunOption { return func(r *Run) { r.now = now } }

// WithInput gives the person's answer to the action the run paused in.
func WithInput(in *Input) RunOption { return func(r *Run) { r.input = in } }

// NewRun starts a run in the spec's initial state with the context defaults,
// overridden by vars (values are converted to the variables' types).
func (m *Machine) NewRun(vars map[string]any, opts ...RunOption) (*Run, error) {
	r := m.newRun(m.spec.Initial, opts)
	for name, val := range vars {
		if err := r.setVar(name, val); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (m *Machine) newRun(state string, opts []RunOption) *Run {
	r := &Run{
		m:      m,
		env:    make(map[string]any, len(m.spec.Context)+3),
		mem:    NewMemory(),
		status: StatusRunning,
		budget: m.spec.Limits.MaxTransitions,
		now:    time.Now,
		inbox:  make(chan *delivery, 64),
	}
	if r.budget <= 0 {
		r.budget = mspec.DefaultMaxTransitions
	}
	for _, v := range m.spec.Context {
		r.env[v.Name] = CloneValue(v.Default)
	}
	r.env[mspec.VarState] = state
	r.env[mspec.VarLastError] = ""
	for _, o := range opts {
		o(r)
	}
	r.borrowed = true
	for _, o := range r.observers {
		if _, ok := o.(ValueBorrower); !ok {
			r.borrowed = false
		}
	}
	// The fsm holds the current state; its after_event callback (called for
	// every move, self-transitions included, which enter_state skips) is
	// where the run observes that a state was entered.
	r.fsm = fsm.NewFSM(state, m.fsmEvs, fsm.Callbacks{
		"after_event": func(_ context.Context, e *fsm.Event) { r.entered(e.Dst) },
	})
	return r
}

// Resume rebuilds a run from records (as a journal stored them) and the vars
// it started with; the run continues in the state the last record entered.
// A record with End set marks the run completed.
func (m *Machine) Resume(start map[string]any, records []*Record, opts ...RunOption) (*Run, error) {
	r, err := m.NewRun(start, opts...)
	if err != nil {
		return nil, err
	}
	for _, rec := range records {
		if err := r.Replay(rec); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Replay applies one recorded step without running its action.
func (r *Run) Replay(rec *Record) error {
	if rec.Seq != r.seq+1 {
		return fmt.Errorf("cannot replay step %d: the run is at step %d", rec.Seq, r.seq)
	}
	if rec.From != r.State() {
		return fmt.Errorf("cannot replay step %d: it starts in %q but the run is in %q", rec.Seq, rec.From, r.State())
	}
	names := make([]string, 0, len(rec.Vars))
	for name := range rec.Vars {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == mspec.VarLastError {
			s, _ := rec.Vars[name].(string)
			r.env[mspec.VarLastError] = s
			continue
		}
		if keys, ok := rec.MapKeys[name]; ok {
			done, err := r.replayKeys(name, rec.Vars[name], keys)
			if err != nil {
				return fmt.Errorf("cannot replay step %d: %w", rec.Seq, err)
			}
			if done {
				continue
			}
		}
		if n, ok := rec.Appended[name]; ok {
			done, err := r.replayAppended(name, rec.Vars[name], n)
			if err != nil {
				return fmt.Errorf("cannot replay step %d: %w", rec.Seq, err)
			}
			if done {
				continue
			}
		}
		if err := r.setVar(name, rec.Vars[name]); err != nil {
			return fmt.Errorf("cannot replay step %d: %w", rec.Seq, err)
		}
	}
	if err := r.mem.Apply(rec.Memory); err != nil {
		return fmt.Errorf("cannot replay step %d: %w", rec.Seq, err)
	}
	if rec.Queued < 0 {
		return fmt.Errorf("cannot replay step %d: it took queued event %d, but queued events count from 1", rec.Seq, rec.Queued)
	}
	if r.took[rec.Queued] { // each queued event is taken once
		return fmt.Errorf("cannot replay step %d: it took queued event %d, which an earlier step took", rec.Seq, rec.Queued)
	}
	if rec.Queued > 0 {
		r.markTook(rec.Queued)
	}
	r.seq = rec.Seq
	if rec.End {
		r.status = StatusCompleted
		return nil
	}
	if rec.Via == ViaWait {
		r.waiting = true // the action ran; the state waits for an event
		return nil
	}
	if r.m.spec.State(rec.To) == nil {
		return fmt.Errorf("cannot replay step %d: the spec has no state %q", rec.Seq, rec.To)
	}
	// A journaled move is restored, not re-decided: the spec may have changed
	// since (resume --force). SetState bypasses the fsm's callbacks, so the
	// entry is observed here as the callback would.
	r.fsm.SetState(rec.To)
	r.entered(rec.To)
	r.trigger = nil
	if rec.Event != "" {
		r.trigger = &delivery{name: rec.Event, payload: rec.Payload}
	}
	return nil
}

func (r *Run) setVar(name string, val any) error {
	v := r.m.spec.Var(name)
	if v == nil {
		return fmt.Errorf("cannot set %q: the spec declares no such context variable%s", name, mspec.HintSuffix(mspec.DidYouMeanHint(name, r.varNames())))
	}
	cv, err := v.Coerce(val)
	if err != nil {
		return fmt.Errorf("cannot set %q: %w", name, err)
	}
	if f, bad := mspec.NotFinite(cv); bad {
		return fmt.Errorf("cannot set %q: %v is %w", name, f, mspec.ErrNotFinite)
	}
	if s, ok := cv.(string); ok && len(v.Enum) > 0 && !mspec.Contains(v.Enum, s) {
		return fmt.Errorf("cannot set %q: %q is not one of %s", name, s, mspec.QuoteList(v.Enum))
	}
	r.env[name] = cv
	delete(r.sizes, name)
	r.handOut(name)
	return nil
}

func (r *Run) varNames() []string {
	out := make([]string, len(r.m.spec.Context))
	for i, v := range r.m.spec.Context {
		out[i] = v.Name
	}
	return out
}

// ID returns the run's ID ("" unless WithRunID).
func (r *Run) ID() string { return r.id }

// State returns the current state (the fsm's).
func (r *Run) State() string { return r.fsm.Current() }

// Waiting reports whether the run waits for an event in its current state
// (the state's action ran).
func (r *Run) Waiting() bool { return r.waiting }

// Seq returns the number of steps taken.
func (r *Run) Seq() int { return r.seq }

// Status returns where the run stands.
func (r *Run) Status() Status { return r.status }

// Paused returns the pause the run stopped in, or nil.
func (r *Run) Paused() *PauseError { return r.pause }

// Memory returns the run memory (read it only between steps).
func (r *Run) Memory() *Memory { return r.mem }

// Vars returns a copy of the context variables.
func (r *Run) Vars() map[string]any {
	r.handOutAll()
	out := make(map[string]any, len(r.env))
	for _, v := range r.m.spec.Context {
		out[v.Name] = r.env[v.Name]
	}
	return out
}

// Var returns one context variable (or a reserved name's value).
func (r *Run) Var(name string) any {
	r.handOut(name)
	return r.env[name]
}

// Machine returns the machine the run executes.
func (r *Run) Machine() *Machine { return r.m }

// Run steps until the run completes (nil), pauses (*PauseError), is
// interrupted (ErrInterrupted, wrapping the context's error) or fails.
func (r *Run) Run(ctx context.Context) error {
	for {
		done, err := r.Step(ctx)
		if err != nil || done {
			return err
		}
	}
}

// Step runs the current state's action, applies its `set`, picks the first
// transition whose guard holds (an applicable pending event first) and moves.
// In a state that waits, it records that the action ran instead of moving;
// the next Step delivers a pending event or pauses (see waitStep).
// It reports done when the run has completed.
func (r *Run) Step(ctx context.Context) (done bool, err error) {
	switch r.status {
	case StatusCompleted:
		return true, ErrFinished
	case StatusFailed:
		return true, fmt.Errorf("cannot step: the run failed")
	}
	state := r.State()
	if err := ctx.Err(); err != nil {
		r.status = StatusInterrupted
		return false, fmt.Errorf("%w in state %q: %w", ErrInterrupted, state, err)
	}
	r.status = StatusRunning
	cs := r.m.States[state]
	if cs == nil {
		r.status = StatusFailed
		return false, fmt.Errorf("cannot step: unknown state %q", state)
	}
	if r.waiting {
		return false, r.waitStep(ctx, cs)
	}
	if err := r.checkBudget(cs); err != nil {
		r.status = StatusFailed
		return false, err
	}
	for _, o := range r.observers {
		if eo, ok := o.(EnterObserver); ok {
			eo.OnEnter(state, r.seq+1)
		}
	}
	rec := &Record{Seq: r.seq + 1, From: state, Start: r.now()}
	clear(r.grown)
	clear(r.keys)
	var call *Call
	var actErr error
	var emitted []*delivery
	if cs.Action != nil {
		rec.Action = cs.Action.Name
		call, actErr = r.runAction(ctx, cs)
		rec.Duration = r.now().Sub(rec.Start)
		if actErr == nil {
			emitted, actErr = r.emitted(call)
		}
		if actErr != nil {
			if p, ok := AsPause(actErr); ok {
				p.State = state
				r.pause = p
				r.input = nil // an answer the action did not accept is not offered again
				r.status = StatusPaused
				return false, p
			}
			if ctx.Err() != nil {
				r.status = StatusInterrupted
				return false, fmt.Errorf("%w during action %q of state %q (it will re-run from its start on resume): %w", ErrInterrupted, cs.Action.Name, state, ctx.Err())
			}
			// An unavailable service is not the action's outcome: on_error
			// does not take it, and resume runs the action again.
			if cs.OnError == nil || errors.Is(actErr, ErrUnavailable) {
				r.status = StatusFailed
				return false, fmt.Errorf("%w: %s in state %q: %w", ErrActionFailed, cs.Action.Name, state, actErr)
			}
			call = nil // a failed action's changes are dropped
		}
	}
	var changed map[string]any
	var memOps []MemOp
	if call != nil {
		for name, v := range call.vars {
			r.env[name] = v
			delete(r.sizes, name)
			r.handOut(name)
			changed = setChanged(changed, name, v)
		}
		if call.mem != nil && len(call.mem.ops) > 0 {
			memOps = call.mem.ops
			if err := r.mem.Apply(memOps); err != nil {
				r.status = StatusFailed
				return false, err
			}
		}
		rec.Notes = call.notes
		rec.Input = call.Input
		r.input = nil // consumed
	}
	var chosen *Ctrans
	var ev *delivery
	if actErr != nil {
		rec.Error = actErr.Error()
		r.env[mspec.VarLastError] = rec.Error
		changed = setChanged(changed, mspec.VarLastError, rec.Error)
		chosen = cs.OnError
	} else {
		if changed, err = r.assign(cs.Set, changed); err != nil {
			r.status = StatusFailed
			return false, fmt.Errorf("cannot apply set of state %q: %w", state, err)
		}
		if cs.St.Final {
			rec.Via, rec.End = "final", true
			rec.Vars, rec.Memory = changed, memOps
			r.status = StatusCompleted
			r.seq = rec.Seq
			return true, r.notify(ctx, rec)
		}
		chosen, ev, err = r.pickEvent(cs, emitted, rec)
		if err != nil {
			r.status = StatusFailed
			return false, err
		}
		if chosen == nil && cs.St.Waits() {
			// The action and the set are done and journaled; the state now
			// waits for an event, without running its action again.
			rec.To, rec.Via = state, ViaWait
			rec.Vars, rec.Memory = changed, memOps
			rec.Notes, r.guardNotes = append(rec.Notes, r.guardNotes...), nil
			r.seq = rec.Seq
			r.waiting = true
			return false, r.notify(ctx, rec)
		}
		if chosen == nil {
			chosen, err = r.choose(cs)
			if err != nil {
				r.status = StatusFailed
				return false, err
			}
		}
	}
	if err := r.take(rec, chosen, ev, changed, actErr == nil); err != nil {
		return false, err
	}
	rec.Memory = memOps
	return false, r.notify(ctx, rec)
}

// take applies chosen (its set, then the move) as the step rec, delivering
// ev when the transition answers an event. clearErr clears last_error once
// it was visible to the state an error route led to.
func (r *Run) take(rec *Record, chosen *Ctrans, ev *delivery, changed map[string]any, clearErr bool) error {
	state := rec.From
	rec.Via, rec.Guard, rec.Warn = chosen.Via, chosen.T.When, chosen.T.Warn
	rec.Notes, r.guardNotes = append(rec.Notes, r.guardNotes...), nil
	if chosen.Global {
		rec.Via = "event " + chosen.event
	}
	var err error
	if ev != nil {
		rec.Event, rec.Payload = ev.name, ev.payload
		if ev.rank > 0 {
			rec.Queued = ev.rank
			r.markTook(ev.rank)
		}
		if len(ev.dropped) > 0 {
			rec.Notes = append(rec.Notes, droppedNote(ev))
		}
		r.env[mspec.VarEvent] = ev.value
		changed, err = r.assign(chosen.Set, changed)
		delete(r.env, mspec.VarEvent)
	} else {
		changed, err = r.assign(chosen.Set, changed)
	}
	if err != nil {
		r.status = StatusFailed
		if chosen.event != "" {
			return fmt.Errorf("cannot apply set of event %q in state %q: %w", chosen.event, state, err)
		}
		return fmt.Errorf("cannot apply set of transition %s of state %q: %w", chosen.Via, state, err)
	}
	if clearErr && r.env[mspec.VarLastError] != "" {
		r.env[mspec.VarLastError] = "" // the error was visible to the error route's target state; it is handled now
		changed = setChanged(changed, mspec.VarLastError, "")
	}
	if err := r.fire(state, chosen.fsmEv, chosen.Target); err != nil {
		return err
	}
	r.trigger = ev
	rec.To, rec.Vars = chosen.Target, changed
	r.seq = rec.Seq
	return nil
}

func (r *Run) notify(ctx context.Context, rec *Record) error {
	if len(r.observers) == 0 {
		return nil
	}
	if len(r.grown) > 0 {
		rec.Appended, r.grown = r.grown, nil
	}
	if len(r.keys) > 0 {
		rec.MapKeys, r.keys = r.keys, nil
	}
	if !r.borrowed && len(r.mown) > 0 {
		for name := range rec.Vars { // an observer may keep them
			r.handOut(name)
		}
	}
	if ctx != r.obsFrom { // observers finish their work even after Ctrl-C
		r.obsFrom, r.obsCtx = ctx, context.WithoutCancel(ctx)
	}
	for _, o := range r.observers {
		if err := o.OnStep(r.obsCtx, rec); err != nil {
			r.status = StatusFailed
			return fmt.Errorf("cannot record step %d: %w", rec.Seq, err)
		}
	}
	return nil
}

// entered observes that the fsm entered state: expressions read it as
// `state`, and the recent path names cycles. It is the fsm's after_event
// callback (and Replay's, which restores a state without an fsm event).
func (r *Run) entered(state string) {
	if cs := r.m.States[state]; cs != nil {
		r.env[mspec.VarState] = cs.name // boxed once: a string stored in the env would allocate
	} else {
		r.env[mspec.VarState] = state
	}
	r.waiting = false
	r.path = append(r.path, state)
	if len(r.path) > 256 {
		r.path = append(r.path[:0], r.path[128:]...)
	}
}

// fire moves the underlying looplab/fsm machine along a compiled transition
// to the state to, and observes the state entered. The move is checked
// against the fsm's transition table (Can) and made with SetState, as
// Replay does: fsm.Event would create a context, an event and closures per
// move for callbacks the run does not need (half a step's allocations;
// docs/performance.md). The fsm stays the single source of truth.
func (r *Run) fire(from, ev, to string) error {
	if !r.fsm.Can(ev) {
		r.status = StatusFailed
		return fmt.Errorf("cannot move from %q with %s: %w", from, ev, fsm.InvalidEventError{Event: ev, State: r.fsm.Current()})
	}
	r.fsm.SetState(to)
	r.entered(to)
	return nil
}

func (r *Run) runAction(ctx context.Context, cs *Cstate) (call *Call, err error) {
	call = &r.call // reused between steps: a Call is valid only while its handler runs
	*call = Call{
		RunID:  r.id,
		State:  cs.St.Name,
		Action: cs.Action.Name,
		Seq:    r.seq,
		Input:  r.input,
		run:    r,
	}
	if len(cs.params) > 0 {
		call.Params = make(map[string]any, len(cs.params))
	}
	for _, p := range cs.params {
		if p.progs != nil {
			vals := make(map[string]any, len(p.progs))
			for k, prog := range p.progs {
				v, err := r.vm.Run(prog, r.env)
				if err != nil {
					return nil, fmt.Errorf("cannot evaluate parameter %q, key %q: %w", p.name, k, err)
				}
				vals[k] = v
				r.escaped(v, p.reads)
			}
			call.Params[p.name] = vals
			continue
		}
		if p.prog == nil {
			call.Params[p.name] = p.value
			continue
		}
		v, err := r.vm.Run(p.prog, r.env)
		if err == nil {
			v, err = r.m.checkParam(p, v)
		} else {
			err = r.m.evalError(fmt.Sprintf("parameter %q", p.name), p.src, p.at, err)
		}
		if err != nil {
			return nil, fmt.Errorf("cannot evaluate parameter %q: %w", p.name, err)
		}
		r.escaped(v, p.reads)
		call.Params[p.name] = v
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("action %q panicked: %v", cs.Action.Name, p)
		}
	}()
	if err := cs.Action.Run(ctx, call); err != nil {
		return nil, err
	}
	return call, nil
}

// choose returns the first transition of cs whose guard holds.
func (r *Run) choose(cs *Cstate) (*Ctrans, error) {
	for _, ct := range cs.Next {
		if ct.Guard == nil {
			return ct, nil
		}
		ok, err := r.vm.Run(ct.Guard, r.env)
		if err != nil && r.m.spec.GuardErrorsFalse {
			r.guardFalse(ct.T.When, cs.St.Name, "", err)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cannot evaluate a guard of state %q: %w", cs.St.Name, r.m.evalError("guard", ct.T.When, ct.T.WhenPos, err))
		}
		if ok == true {
			return ct, nil
		}
	}
	if len(cs.Next) == 0 {
		return nil, fmt.Errorf("%w in state %q: it has no transition (no next, no on) and is not final: nothing can move the run on (give it a next or on, or make it final: true)", ErrNoTransition, cs.St.Name)
	}
	return nil, fmt.Errorf("%w in state %q: every guard was false: %s", ErrNoTransition, cs.St.Name, GuardsSaw(cs, r.env))
}

// cycle names the loop a run was caught in, from its recent path: "a → b → a".
func (r *Run) cycle() string {
	p := r.path
	if len(p) == 0 {
		return "in state " + r.State()
	}
	last := p[len(p)-1]
	for i := len(p) - 2; i >= 0; i-- {
		if p[i] == last {
			return strings.Join(p[i:], " → ")
		}
	}
	return strings.Join(p, " → ")
}

func CloneValue(v any) any {
	switch x := v.(type) {
	case []any:
		return append([]any{}, x...)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[k] = val
		}
		return out
	}
	return v
}
