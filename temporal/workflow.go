package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/lppctl/lppctl/machine"
)

// Workflow interprets a spec: the same machine.Run stepping as a local run,
// with the workflow's clock, each action an activity (the pure built-ins
// inline, wait as a durable timer), and pauses answered by the resume
// Update. It returns the run's final progress; a failed run fails the
// workflow with the run's error.
func (e *Engine) Workflow(ctx workflow.Context, st Start) (*Progress, error) {
	w, err := e.newRun(ctx, st)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), "invalid", nil)
	}
	if err := workflow.SetQueryHandler(ctx, QueryProgress, w.progress); err != nil {
		return nil, err
	}
	if err := workflow.SetQueryHandler(ctx, QueryMemory, func() (*machine.Memory, error) { return w.r.Memory(), nil }); err != nil {
		return nil, err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateResume, w.resume,
		workflow.UpdateHandlerOptions{Validator: w.validate}); err != nil {
		return nil, err
	}
	mctx := runContext{Context: context.Background(), w: ctx}
	for {
		done, err := w.r.Step(mctx)
		if err == nil && !done {
			if w.continueNow(ctx) {
				return nil, w.continueAsNew(ctx)
			}
			continue
		}
		if errors.Is(err, machine.ErrFinished) {
			err = nil
		}
		w.pause = nil
		if p, ok := machine.AsPause(err); ok {
			w.pause, w.answer = p, nil
			w.showStatus(ctx, machine.StatusPaused)
			if werr := workflow.Await(ctx, func() bool { return w.answer != nil }); werr != nil {
				return w.stop(ctx, werr)
			}
			w.showStatus(ctx, machine.StatusRunning)
			if err := w.answered(); err != nil {
				return w.stop(ctx, err)
			}
			continue
		}
		return w.stop(ctx, err)
	}
}

// MemoStatus is the memo field that says a running workflow's run is
// paused (lppctl runs lists it so without asking a worker).
const MemoStatus = "lppctl_status"

// showStatus sets the memo's status (workflows started by an older worker
// keep theirs without: their histories replay unchanged).
func (w *wfRun) showStatus(ctx workflow.Context, st machine.Status) {
	if workflow.GetVersion(ctx, "memo-status", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	_ = workflow.UpsertMemo(ctx, map[string]any{MemoStatus: string(st)})
}

// continueNow tells whether the run should continue as new now: its
// execution passed a bound of Options.Segment and it holds no event that a
// rebuilt run would lose.
func (w *wfRun) continueNow(ctx workflow.Context) bool {
	seg := w.e.opts.Segment
	info := workflow.GetInfo(ctx)
	over := len(w.records)-w.segStart >= seg.Transitions || info.GetCurrentHistoryLength() >= seg.Events ||
		info.GetCurrentHistorySize() >= seg.Bytes || info.GetContinueAsNewSuggested()
	return over && w.r.Status() == machine.StatusRunning && w.r.Quiet()
}

// continueAsNew ends this execution and starts the run's next one, which
// carries the records (by reference, through the codec) and not the
// history.
func (w *wfRun) continueAsNew(ctx workflow.Context) error {
	seg, err := json.Marshal(w.records[w.segStart:])
	if err != nil {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("cannot continue run %s as new: %v", w.st.RunID, err), "run", nil)
	}
	next := w.st
	next.Events = nil
	next.Carry = &Carry{Begun: w.start}
	if w.st.Carry != nil {
		next.Carry.Segments = slices.Clip(w.st.Carry.Segments)
	}
	next.Carry.Segments = append(next.Carry.Segments, seg)
	return workflow.NewContinueAsNewError(ctx, WorkflowName, next)
}

// wfRun is a run in a workflow.
type wfRun struct {
	e       *Engine
	st      Start
	m       *machine.Machine
	r       *machine.Run
	vars    map[string]any
	records []*machine.Record
	opts    []machine.RunOption
	pause   *machine.PauseError
	answer  *Resume // the resume Update's argument, until the run takes it
	err     string
	// cancelled: the workflow was cancelled and the run stopped for good.
	cancelled bool
	start     time.Time
	end       *time.Time
	// segStart is the number of records of the earlier executions.
	segStart int
	// fatal is an error that fails the run whatever the state's on_error
	// says (a value over the blob limit).
	fatal error
}

func (e *Engine) newRun(ctx workflow.Context, st Start) (*wfRun, error) {
	if got := SpecHash(st.Spec); got != st.SpecHash {
		return nil, fmt.Errorf("cannot start run %s: the spec's hash is %s, not %s", st.RunID, got, st.SpecHash)
	}
	spec, diags := machine.Parse(st.SpecPath, st.Spec)
	if diags.HasErrors() {
		return nil, fmt.Errorf("cannot start run %s: %s", st.RunID, diags.PrettyAll(st.Spec))
	}
	w := &wfRun{e: e, st: st, start: workflow.Now(ctx)}
	reg := e.workflowRegistry(ctx, st, &w.fatal)
	for _, s := range spec.States {
		if s.Do != "" && reg.Lookup(s.Do) == nil {
			// Not the run's failure: this worker is older than the spec. A
			// panic fails the workflow task, which the server gives again,
			// to another worker (of the current version) in time.
			panic(fmt.Sprintf("this worker (lppctl %s) has no action %q, which run %s uses: a worker that has it will take the run", Version, s.Do, st.RunID))
		}
	}
	m, err := machine.Compile(spec, reg)
	if err != nil {
		return nil, fmt.Errorf("cannot start run %s: %w", st.RunID, err)
	}
	vars, err := decodeVars(st.Vars)
	if err != nil {
		return nil, fmt.Errorf("cannot start run %s: %w", st.RunID, err)
	}
	w.m, w.vars = m, vars
	w.opts = []machine.RunOption{
		machine.WithRunID(st.RunID),
		machine.WithClock(func() time.Time { return workflow.Now(ctx) }),
		machine.WithObserver(machine.ObserverFunc(func(_ context.Context, rec *machine.Record) error {
			if w.fatal != nil {
				return w.fatal
			}
			if err := w.checkSizes(rec); err != nil {
				w.fatal = err
				return err
			}
			w.records = append(w.records, rec)
			return nil
		})),
		machine.WithMaxTransitions(st.MaxTransitions),
	}
	if st.Carry != nil {
		w.start = st.Carry.Begun
		for i, seg := range st.Carry.Segments {
			var recs []*machine.Record
			if err := decodeJSON(seg, &recs); err != nil {
				return nil, fmt.Errorf("cannot continue run %s: its records (part %d) do not decode: %w", st.RunID, i+1, err)
			}
			for _, rec := range recs {
				rec.Vars, rec.Payload = numberMap(rec.Vars), numberMap(rec.Payload)
			}
			w.records = append(w.records, recs...)
		}
		w.segStart = len(w.records)
		if w.r, err = m.Resume(vars, w.records, w.opts...); err != nil {
			return nil, fmt.Errorf("cannot continue run %s: %w", st.RunID, err)
		}
		return w, nil
	}
	if w.r, err = m.NewRun(vars, w.opts...); err != nil {
		return nil, fmt.Errorf("cannot start run %s: %w", st.RunID, err)
	}
	for _, ev := range st.Events {
		if err := w.r.SendEvent(ev.Name, numberMap(ev.Payload)); err != nil {
			return nil, fmt.Errorf("cannot start run %s: event %s: %w", st.RunID, ev.Name, err)
		}
	}
	return w, nil
}

// validate refuses an answer the paused run cannot take, before it enters
// the workflow's history.
func (w *wfRun) validate(_ workflow.Context, a Resume) error {
	p := w.pause
	switch {
	case p == nil:
		return fmt.Errorf("cannot resume run %s: it is not paused (it is %s in %s)", w.st.RunID, w.r.Status(), w.r.State())
	case w.answer != nil:
		return fmt.Errorf("cannot resume run %s: it was resumed already", w.st.RunID)
	case a.PauseStep != nil && *a.PauseStep != w.r.Seq():
		return fmt.Errorf("cannot resume run %s: it no longer waits for this decision (it paused after step %d; it waits in %s after step %d now)", w.st.RunID, *a.PauseStep, w.r.State(), w.r.Seq())
	case p.Kind == machine.PauseEvent:
		if a.Event == nil {
			return fmt.Errorf("cannot resume run %s: it waits for an event (%s): give one with --event NAME", w.st.RunID, strings.Join(p.Options, ", "))
		}
		return w.r.CanFireEvent(a.Event.Name, numberMap(a.Event.Payload))
	case a.Input == nil:
		return fmt.Errorf("cannot resume run %s: it waits for %s: answer with %s", w.st.RunID, p.Kind, strings.Join(p.Options, ", "))
	case len(p.Options) > 0 && !slices.Contains(p.Options, a.Input.Kind):
		return fmt.Errorf("cannot resume run %s: %q is not an answer to its %s; give one of %s", w.st.RunID, a.Input.Kind, p.Kind, strings.Join(p.Options, ", "))
	}
	return nil
}

// resume takes a validated answer; the workflow's loop applies it.
func (w *wfRun) resume(ctx workflow.Context, a Resume) error {
	if err := w.validate(ctx, a); err != nil {
		return err
	}
	w.answer = &a
	return nil
}

// answered applies the answer to the run: an event is queued; an input
// rebuilds the run from its records with the input for the paused action.
func (w *wfRun) answered() error {
	a := w.answer
	w.pause, w.answer = nil, nil
	if a.Event != nil {
		return w.r.SendEvent(a.Event.Name, numberMap(a.Event.Payload))
	}
	// Resume replays the records without notifying the observers.
	r, err := w.m.Resume(w.vars, w.records, append(slices.Clip(w.opts), machine.WithInput(a.Input))...)
	if err != nil {
		return err
	}
	w.r = r
	return nil
}

// stop ends the workflow as the run ended: completed (nil), cancelled
// (the workflow's cancellation), or failed.
func (w *wfRun) stop(ctx workflow.Context, err error) (*Progress, error) {
	now := workflow.Now(ctx)
	w.end = &now
	switch {
	case err == nil:
		// A summary; the records by reference, a segment at a time.
		p, _ := w.progress(len(w.records))
		seg, merr := json.Marshal(w.records[w.segStart:])
		if merr != nil {
			return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("cannot record the steps of run %s: %v", w.st.RunID, merr), "run", nil)
		}
		if w.st.Carry != nil {
			p.Segments = slices.Clip(w.st.Carry.Segments)
		}
		p.Segments = append(p.Segments, seg)
		return p, nil
	case ctx.Err() != nil:
		w.cancelled = true
		return nil, ctx.Err()
	}
	w.err = err.Error()
	return nil, temporal.NewNonRetryableApplicationError(err.Error(), "run", nil)
}

// progress answers the progress query: the run's standing and its records
// from step from+1.
func (w *wfRun) progress(from int) (*Progress, error) {
	p := &Progress{
		RunID: w.st.RunID, Spec: w.m.Spec().Name, SpecPath: w.st.SpecPath, SpecHash: w.st.SpecHash, Status: w.r.Status(), State: w.r.State(),
		Steps: w.r.Seq(), Pause: w.pause, Error: w.err, Vars: w.r.Vars(), Start: w.start, End: w.end,
	}
	switch {
	case w.cancelled:
		p.Status, p.Cancelled = StatusCancelled, HowCancelRequest
	case w.pause != nil:
		p.Status = machine.StatusPaused
	}
	if from >= 0 && from < len(w.records) {
		p.Records = w.records[from:min(len(w.records), from+PageRecords)]
		p.More = from+len(p.Records) < len(w.records)
	}
	return p, nil
}

// PageRecords bounds the records of one progress query.
const PageRecords = 500

// checkSizes refuses a step that set a context variable over the blob
// limit.
func (w *wfRun) checkSizes(rec *machine.Record) error {
	limit := w.e.opts.BlobLimit
	for _, name := range slices.Sorted(maps.Keys(rec.Vars)) {
		v := rec.Vars[name]
		if s, ok := v.(string); ok && len(s) < limit/2 {
			continue
		}
		switch v.(type) {
		case nil, bool, int, int64, float64:
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("cannot record context variable %s: %w", name, err)
		}
		if len(b) > limit {
			return &LimitError{What: fmt.Sprintf("context variable %s (set by step %d in state %s)", name, rec.Seq, rec.From), Size: len(b), Limit: limit}
		}
	}
	return nil
}

// runContext is the context the interpreter sees in a workflow: it is
// done when the workflow is cancelled.
type runContext struct {
	context.Context
	w workflow.Context
}

func (c runContext) Err() error {
	if c.w.Err() != nil {
		return context.Canceled
	}
	return nil
}
