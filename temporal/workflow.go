package temporal

import (
	"context"
	"errors"
	"fmt"
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
		err := w.r.Run(mctx)
		if errors.Is(err, machine.ErrFinished) {
			err = nil
		}
		w.pause = nil
		if p, ok := machine.AsPause(err); ok {
			w.pause, w.answer = p, nil
			if werr := workflow.Await(ctx, func() bool { return w.answer != nil }); werr != nil {
				return w.stop(ctx, werr)
			}
			if err := w.answered(); err != nil {
				return w.stop(ctx, err)
			}
			continue
		}
		return w.stop(ctx, err)
	}
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
}

func (e *Engine) newRun(ctx workflow.Context, st Start) (*wfRun, error) {
	if got := SpecHash(st.Spec); got != st.SpecHash {
		return nil, fmt.Errorf("cannot start run %s: the spec's hash is %s, not %s", st.RunID, got, st.SpecHash)
	}
	spec, diags := machine.Parse(st.SpecPath, st.Spec)
	if diags.HasErrors() {
		return nil, fmt.Errorf("cannot start run %s: %s", st.RunID, diags.PrettyAll(st.Spec))
	}
	m, err := machine.Compile(spec, e.workflowRegistry(ctx, st))
	if err != nil {
		return nil, fmt.Errorf("cannot start run %s: %w", st.RunID, err)
	}
	vars, err := decodeVars(st.Vars)
	if err != nil {
		return nil, fmt.Errorf("cannot start run %s: %w", st.RunID, err)
	}
	w := &wfRun{e: e, st: st, m: m, vars: vars, start: workflow.Now(ctx)}
	w.opts = []machine.RunOption{
		machine.WithRunID(st.RunID),
		machine.WithClock(func() time.Time { return workflow.Now(ctx) }),
		machine.WithObserver(machine.ObserverFunc(func(_ context.Context, rec *machine.Record) error {
			w.records = append(w.records, rec)
			return nil
		})),
		machine.WithMaxTransitions(st.MaxTransitions),
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
		return w.progress(0)
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
		p.Records = w.records[from:]
	}
	return p, nil
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
