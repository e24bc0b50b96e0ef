package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/spec"
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
	w.bounds(ctx)
	mctx := runContext{Context: context.Background(), w: ctx}
	for {
		w.busy.begin(ctx)
		done, err := w.r.Step(mctx)
		w.busy.end(ctx)
		if err == nil && !done {
			// A cancelled run stops at its next Step (the step that ended
			// as the cancel came is recorded): not continued as new.
			if ctx.Err() == nil && w.continueNow(ctx) {
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

// runBounds are the worker options that decide what a run does (when it
// continues as new, when it fails at the blob limit): recorded in the
// history when an execution starts, so that a worker with other options
// replays it the same.
type runBounds struct {
	Segment   Segment `json:"segment"`
	BlobLimit int     `json:"blob_limit"`
	// Lines says that the records' size (Segment.Records) counts what the
	// workflow keeps of them (execRecords: a list appended to as the items
	// appended, a map changed in a few keys as those keys), which it stores
	// as step lines: absent from executions started before, whose records
	// count every value they changed whole. Appends was recorded by the
	// builds just before (82e7b5a-fede107), whose records counted a list
	// appended to as the items appended and any other value whole: their
	// executions replay as they ran.
	Lines   bool `json:"lines,omitempty"`
	Appends bool `json:"appends,omitempty"`
	// Texts says that a string the run added to in place counts as the
	// text added (execRecords.textSize): absent from executions started
	// before, whose records count every string whole. Which sets add in
	// place is part of what it means (machine/concat.go: a sum that starts
	// with the variable, in a conditional's branches too): a change to
	// them needs a new bound, as Lines and Appends were.
	Texts bool `json:"texts,omitempty"`
}

// bounds records this worker's bounds in the history (executions started
// by an older worker use the replaying worker's).
func (w *wfRun) bounds(ctx workflow.Context) {
	w.seg, w.limit = w.e.opts.Segment, w.e.opts.BlobLimit
	w.recs.limit = w.limit
	if workflow.GetVersion(ctx, "run-bounds", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		w.seg.Records, w.seg.Busy = 0, 0 // an execution from before the bounds replays without them
		return
	}
	var b runBounds
	err := workflow.SideEffect(ctx, func(workflow.Context) any {
		return runBounds{Segment: w.e.opts.Segment, BlobLimit: w.e.opts.BlobLimit, Lines: true, Texts: true}
	}).Get(&b)
	if err == nil && b.Segment.Transitions > 0 && b.BlobLimit > 0 {
		w.seg, w.limit, w.recs.lines, w.recs.appends = b.Segment, b.BlobLimit, b.Lines, b.Appends && !b.Lines
		w.recs.texts = b.Texts && b.Lines
	}
	w.recs.limit = w.limit
	w.busy.bound = w.seg.Busy // 0 in executions recorded before it
	// lppctl runs lists the run from when it began
	if w.st.Carry != nil {
		_ = workflow.UpsertMemo(ctx, map[string]any{MemoBegun: w.start})
	}
}

// MemoBegun is the memo field that says when a run continued as new began.
const MemoBegun = "lppctl_begun"

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
	seg := w.seg
	info := workflow.GetInfo(ctx)
	over := len(w.recs.recs) >= seg.Transitions || info.GetCurrentHistoryLength() >= seg.Events ||
		info.GetCurrentHistorySize() >= seg.Bytes || info.GetContinueAsNewSuggested() ||
		seg.Records > 0 && w.recs.bytes >= seg.Records || w.busy.over(ctx, w.r.Seq())
	return over && w.r.Status() == machine.StatusRunning && w.r.Quiet()
}

// continueAsNew ends this execution and starts the run's next one, which
// carries the records (by reference, through the codec) and not the
// history.
func (w *wfRun) continueAsNew(ctx workflow.Context) error {
	cp, err := w.r.Checkpoint()
	if err != nil {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("cannot continue run %s as new: %v", w.st.RunID, err), "run", nil)
	}
	b, err := json.Marshal(cp)
	if err != nil {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("cannot continue run %s as new: %v", w.st.RunID, err), "run", nil)
	}
	ref := w.archive(ctx)
	next := w.st
	next.Events = nil
	next.Carry = &Carry{Checkpoint: b, Segments: append(slices.Clip(w.segRefs), ref), Begun: w.start}
	if len(w.segEnds) == len(w.segRefs) {
		next.Carry.Ends = append(slices.Clip(w.segEnds), cp.Seq)
	}
	return workflow.NewContinueAsNewError(ctx, WorkflowName, next)
}

// archive stores this execution's records in the blob store, as step lines
// (execRecords.segment: a value that grew at every step costs what it grew
// by), and returns their reference, recorded in the history (a side
// effect): a failure fails the workflow task, which is given again.
func (w *wfRun) archive(ctx workflow.Context) string {
	var ref string
	err := workflow.SideEffect(ctx, func(workflow.Context) any {
		b, err := w.recs.segment(w.e.codec.Limit())
		if err == nil {
			var r string
			if r, err = w.e.codec.Store(b); err == nil {
				return r
			}
		}
		panic(fmt.Sprintf("cannot store the records of run %s: %v", w.st.RunID, err))
	}).Get(&ref)
	if err != nil {
		panic(fmt.Sprintf("cannot store the records of run %s: %v", w.st.RunID, err))
	}
	return ref
}

// segmentRefs are the earlier executions' records, by reference, as the
// codec resolves them on the client.
func (w *wfRun) segmentRefs() []json.RawMessage {
	out := make([]json.RawMessage, len(w.segRefs))
	for i, ref := range w.segRefs {
		out[i] = refJSON(ref)
	}
	return out
}

// nextSegment is the earlier execution's records that hold step from+1,
// by reference, when the steps at the ends of the earlier executions are
// known (Carry.Ends).
func (w *wfRun) nextSegment(from int) (json.RawMessage, bool) {
	if len(w.segEnds) != len(w.segRefs) {
		return nil, false
	}
	for i, end := range w.segEnds {
		if end > from {
			return refJSON(w.segRefs[i]), true
		}
	}
	return nil, false
}

// wfRun is a run in a workflow.
type wfRun struct {
	e      *Engine
	st     Start
	m      *machine.Machine
	r      *machine.Run
	vars   map[string]any
	recs   execRecords // this execution's
	opts   []machine.RunOption
	pause  *machine.PauseError
	answer *Resume // the resume Update's argument, until the run takes it
	err    string
	// cancelled: the workflow was cancelled and the run stopped for good.
	cancelled bool
	start     time.Time
	end       *time.Time
	// segStart is the number of steps of the earlier executions (the
	// records hold this execution's: the record of step s is
	// records[s-segStart-1]); base is where this execution began (nil: the
	// run's start), segRefs the references of the earlier records.
	segStart int
	segEnds  []int // the steps at the end of each of segRefs (Carry.Ends), or nil
	base     *machine.Checkpoint
	segRefs  []string
	// seg and limit are the run's bounds (bounds).
	seg   Segment
	limit int
	// fatal is an error that fails the run whatever the state's on_error
	// says (a value over the blob limit).
	fatal error
	// waiting says what the run waits for in its state: an action whose
	// service is unavailable, to be tried again (remote); "" when none.
	waiting string
	busy    busyClock // the worker's time on the execution's inline steps
}

func (e *Engine) newRun(ctx workflow.Context, st Start) (*wfRun, error) {
	if got := SpecHash(st.Spec); got != st.SpecHash {
		return nil, fmt.Errorf("cannot start run %s: the spec's hash is %s, not %s", st.RunID, got, st.SpecHash)
	}
	spec, diags := spec.Parse(st.SpecPath, st.Spec)
	if diags.HasErrors() {
		return nil, fmt.Errorf("cannot start run %s: %s", st.RunID, diags.PrettyAll(st.Spec))
	}
	w := &wfRun{e: e, st: st, start: workflow.Now(ctx)}
	reg := e.workflowRegistry(ctx, st, &w.fatal, &w.waiting)
	for _, s := range spec.States {
		if s.Do != "" && reg.Lookup(s.Do) == nil {
			// Not the run's failure: this worker is older than the spec. A
			// panic fails the workflow task, which the server gives again,
			// to another worker (of the current version) in time.
			panic(fmt.Sprintf("this worker (lppctl %s) has no action %q, which run %s uses: a worker that has it will take the run", Version, s.Do, st.RunID))
		}
	}
	// now() in an expression reads the workflow's clock: a replay gets the
	// times the run got (the wall clock gave another time, and another
	// branch, at every replay).
	m, err := machine.Compile(spec, reg, machine.WithExprClock(func() time.Time { return workflow.Now(ctx) }))
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
		machine.WithObserver(recordObserver{w}),
		machine.WithMaxTransitions(st.MaxTransitions),
	}
	if c := st.Carry; c != nil {
		var cp machine.Checkpoint
		if err := decodeJSON(c.Checkpoint, &cp); err != nil {
			return nil, fmt.Errorf("cannot continue run %s: its checkpoint does not decode: %w", st.RunID, err)
		}
		cp.Vars, cp.Payload = numberMap(cp.Vars), numberMap(cp.Payload)
		w.start, w.base, w.segRefs, w.segStart = c.Begun, &cp, c.Segments, cp.Seq
		w.segEnds = c.Ends
		if w.r, err = m.Restore(w.base, w.opts...); err != nil {
			return nil, fmt.Errorf("cannot continue run %s: %w", st.RunID, err)
		}
		w.recs.base = cp.Vars
		return w, nil
	}
	if w.r, err = m.NewRun(vars, w.opts...); err != nil {
		return nil, fmt.Errorf("cannot start run %s: %w", st.RunID, err)
	}
	w.recs.base = w.r.Vars()
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
	// Replay does not notify the observers.
	opts := append(slices.Clip(w.opts), machine.WithInput(a.Input))
	if w.base == nil {
		r, err := w.m.Resume(w.vars, w.recs.recs, opts...)
		if err != nil {
			return err
		}
		w.r = r
		return nil
	}
	r, err := w.m.Restore(w.base, opts...)
	if err != nil {
		return err
	}
	for _, rec := range w.recs.recs {
		if err := r.Replay(rec); err != nil {
			return err
		}
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
		p, merr := w.summary()
		if merr != nil {
			return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("cannot record the steps of run %s: %v", w.st.RunID, merr), "run", nil)
		}
		return p, nil
	case ctx.Err() != nil:
		w.cancelled = true
		// The same summary in the cancellation's details: where the run
		// stopped and its steps, read without a worker (a query of a
		// closed run replays it, which a busy worker may not do in time).
		// Runs cancelled by a worker before this replay as they ran.
		if workflow.GetVersion(ctx, "cancel-summary", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
			return nil, ctx.Err()
		}
		if p, merr := w.summary(); merr == nil {
			return nil, temporal.NewCanceledError(p)
		}
		return nil, ctx.Err()
	}
	w.err = err.Error()
	return nil, temporal.NewNonRetryableApplicationError(err.Error(), "run", nil)
}

// summary is where the run ended, with its records by reference, a
// segment an execution: a completed run's result, a cancelled run's
// details.
func (w *wfRun) summary() (*Progress, error) {
	p, _ := w.progress(-1, "")
	seg, err := w.recs.segment(w.e.codec.Limit())
	if err != nil {
		return nil, err
	}
	p.Segments = append(w.segmentRefs(), seg)
	return p, nil
}

// progress answers the progress query: the run's standing and its records
// from step from+1, as step lines when want is ProgressLines (Lines: a
// page of them holds a list that grows whole once, then what it grew by).
func (w *wfRun) progress(from int, want string) (*Progress, error) {
	p := &Progress{
		RunID: w.st.RunID, Spec: w.m.Spec().Name, SpecPath: w.st.SpecPath, SpecHash: w.st.SpecHash, Status: w.r.Status(), State: w.r.State(),
		Steps: w.r.Seq(), Pause: w.pause, Error: w.err, Vars: w.r.Vars(), Start: w.start, End: w.end,
		Waiting: w.waiting,
	}
	switch {
	case w.cancelled:
		p.Status, p.Cancelled = StatusCancelled, HowCancelRequest
	case w.pause != nil:
		p.Status = machine.StatusPaused
	}
	if w.fatal != nil { // the value over the limit cannot be sent: say what it was
		p.Vars = w.withinLimit(p.Vars)
	}
	if from < 0 {
		return p, nil
	}
	if from < w.segStart { // the earlier executions' records, by reference
		if seg, ok := w.nextSegment(from); ok { // one execution's a page
			p.Segments, p.More = []json.RawMessage{seg}, true
			return p, nil
		}
		p.Segments, from = w.segmentRefs(), w.segStart
	}
	i, n := from-w.segStart, len(w.recs.recs)
	if i >= n {
		return p, nil
	}
	if want == ProgressLines {
		limit := w.e.codec.Limit()
		lines, end, err := w.recs.steps(i, linesCap(limit)) // at most linesCap of lines, but one record
		if err != nil {
			return nil, fmt.Errorf("cannot send the steps of run %s: %w", w.st.RunID, err)
		}
		if len(lines) <= linesCap(limit) || end > i+1 {
			p.Lines, p.More = pieces(lines, limit), end < n
			return p, nil
		}
		// One step whose line passes the cap (several large values): as a
		// record, each of its values sent by reference.
	}
	recs, end, err := w.recs.whole(i)
	if err != nil {
		return nil, fmt.Errorf("cannot send the steps of run %s: %w", w.st.RunID, err)
	}
	if want == ProgressLines {
		recs, end = recs[:1], i+1
	}
	p.Records, p.More = recs, end < n
	return p, nil
}

// withinLimit returns vars with each value over the blob limit replaced by
// a note of its size.
func (w *wfRun) withinLimit(vars map[string]any) map[string]any {
	out := make(map[string]any, len(vars))
	for name, v := range vars {
		out[name] = v
		if err := w.checkLimit(name, v); err != nil {
			var le *LimitError
			if errors.As(err, &le) {
				out[name] = fmt.Sprintf("(%s: over the blob limit of %s)", Size(le.Size), Size(le.Limit))
			}
		}
	}
	return out
}

// PageRecords bounds the records of one progress query, and PageBytes the
// JSON of their values (a page holds at least one record).
const (
	PageRecords = 500
	PageBytes   = 4 << 20
)

// checkLimit refuses value v of variable name over the blob limit (as
// checkSizes does, without remembering its size).
func (w *wfRun) checkLimit(name string, v any) error {
	size := 0
	switch x := v.(type) {
	case nil, bool, int, int64, float64:
		return nil
	case string:
		size = jsonStringLen(x)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("cannot record context variable %s: %w", name, err)
		}
		size = len(b)
	}
	if size > w.limit {
		return &LimitError{What: "context variable " + name, Size: size, Limit: w.limit}
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

// observe keeps the record of a step the run made (recordObserver): a step
// that set a value over the blob limit fails the run.
func (w *wfRun) observe(rec *machine.Record) error {
	if w.fatal != nil {
		return w.fatal
	}
	if err := w.recs.add(rec); err != nil {
		w.fatal = err
		return err
	}
	return nil
}
