package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/spec"
)

// Error types of the activity's application errors.
const (
	errPause     = "pause"       // the action needs a person: the run pauses
	errAction    = "action"      // the action failed: the state's on_error route, or the run fails
	errUnavail   = "unavailable" // what the action needs is unavailable (machine.ErrUnavailable): the run fails in the state
	errTransient = "transient"   // the action failed for a cause that may pass: retried
	errLimit     = "limit"       // the action's result is over the blob limit: the run fails
)

// inline are the built-in actions that run in the workflow itself: they
// only read the call and write through it (no I/O, no clock).
var inline = []string{"noop", "log", "fail", "emit"}

// workflowRegistry is the catalog with every handler replaced: the pure
// built-ins keep theirs, wait becomes a durable timer, every other action
// becomes an activity.
func (e *Engine) workflowRegistry(ctx workflow.Context, st Start, fatal *error, waiting *string) *machine.Registry {
	reg := machine.NewRegistry()
	builtins := machine.NewBuiltinRegistry()
	for _, a := range e.host.Catalog().Actions() {
		cp := *a
		switch {
		case builtins.Lookup(a.Name) != nil && slices.Contains(inline, a.Name):
			// its own handler
		case builtins.Lookup(a.Name) != nil && a.Name == "wait":
			cp.Run = func(_ context.Context, c *machine.Call) error {
				d, err := time.ParseDuration(c.String("duration"))
				if err != nil || d < 0 {
					return fmt.Errorf("cannot wait: %q is not a duration like 500ms or 2s", c.String("duration"))
				}
				return workflow.Sleep(ctx, d)
			}
		default:
			cp.Run = e.remote(ctx, st, fatal, waiting)
		}
		_ = reg.Register(cp) // the catalog's actions registered once already
	}
	return reg
}

// remote is the handler that runs an action as an activity: one activity per
// action execution, its input the Call's snapshot. A result over the blob
// limit is set in fatal: it fails the run, whatever the state's on_error.
//
// An action whose service is unavailable after the action's own retries
// and Temporal's (machine.ErrUnavailable: a model provider down) is not
// the action's outcome: the run waits in its state, durably, and tries the
// action again (unavailableWait), saying so in waiting (Progress.Waiting),
// until it runs or the run is cancelled. Executions from before this
// (GetVersion "wait-unavailable") replay as they ran: the error went to the
// state's on_error.
func (e *Engine) remote(ctx workflow.Context, st Start, fatal *error, waiting *string) machine.Handler {
	return func(_ context.Context, c *machine.Call) error {
		call, err := json.Marshal(c.Detach())
		if err != nil {
			return fmt.Errorf("cannot send action %q to a worker: %w", c.Action, err)
		}
		queue := e.opts.TaskQueue
		if e.host.ModelAction(c.Action) {
			queue = e.ModelQueue()
		}
		task := ActionTask{RunID: st.RunID, SpecPath: st.SpecPath, Spec: st.Spec, SpecHash: st.SpecHash, Agent: st.Agent, Files: st.Files, Call: call}
		// A cancel of the run reaches the action (its context, at its next
		// heartbeat) and the workflow waits for what the action did: an
		// action that completed anyway is the run's step, as in a local run.
		// Executions from before this (GetVersion "cancel-waits") replay as
		// they ran: the cancel dropped the action's result at once.
		waits := workflow.GetVersion(ctx, "cancel-waits", workflow.DefaultVersion, 1) != workflow.DefaultVersion
		// The activity's ID is the SDK's own (its scheduled event's), the
		// name RUN_ID/STEP/ACTION its summary: with an ID of its own, a
		// cancel that came in the workflow task where the activity
		// completed was still sent (sdk-go#2512), the server refused the
		// task and the run never stopped. Executions from before this
		// (GetVersion "sdk-activity-id") replay with the name as their ID.
		named := workflow.GetVersion(ctx, "sdk-activity-id", workflow.DefaultVersion, 1) == workflow.DefaultVersion
		var out json.RawMessage
		for try := 0; ; try++ {
			id := fmt.Sprintf("%s/%d/%s", st.RunID, c.Seq+1, c.Action)
			if try > 0 {
				id += fmt.Sprintf("/again-%d", try)
			}
			opts := workflow.ActivityOptions{
				TaskQueue:           queue,
				StartToCloseTimeout: e.opts.Timeout,
				HeartbeatTimeout:    e.opts.Heartbeat,
				Summary:             id,
				WaitForCancellation: waits,
				RetryPolicy: &temporal.RetryPolicy{
					InitialInterval:        e.opts.Retry.Base,
					BackoffCoefficient:     2,
					MaximumInterval:        e.opts.Retry.Max,
					MaximumAttempts:        int32(e.opts.Retry.Attempts),
					NonRetryableErrorTypes: []string{errPause, errAction, errUnavail, errLimit},
				},
			}
			if named {
				opts.ActivityID, opts.Summary = id, ""
			}
			actx := workflow.WithActivityOptions(ctx, opts)
			err := workflow.ExecuteActivity(actx, ActivityName, task).Get(actx, &out)
			if err == nil {
				if *waiting != "" {
					*waiting = ""
					showWaiting(ctx, false)
				}
				break
			}
			err = actionError(c.Action, err)
			var le *limitError
			if errors.As(err, &le) {
				*fatal = err
			}
			if !errors.Is(err, machine.ErrUnavailable) {
				if *waiting != "" {
					*waiting = ""
					showWaiting(ctx, false)
				}
				return err
			}
			if workflow.GetVersion(ctx, "wait-unavailable", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
				return errors.New(err.Error()) // as it ran: the state's on_error took it
			}
			d := unavailableWait(try)
			if *waiting == "" {
				showWaiting(ctx, true)
			}
			*waiting = fmt.Sprintf("action %q of state %q cannot run: %v; the run waits in its state and tries again at %s (lppctl runs cancel stops it)",
				c.Action, c.State, err, workflow.Now(ctx).Add(d).UTC().Format(time.RFC3339))
			if serr := workflow.Sleep(ctx, d); serr != nil { // cancelled
				*waiting = ""
				return err
			}
		}
		var res machine.CallOutput // numbers decoded as a local run has them
		if err := json.Unmarshal(out, &res); err != nil {
			return fmt.Errorf("cannot read what action %q did: %w", c.Action, err)
		}
		return c.Apply(&res)
	}
}

// showWaiting sets the memo's status to waiting (or back to running), so
// that lppctl runs lists a run waiting for an unavailable service as such
// without asking a worker. Executions from before (GetVersion
// "memo-waiting") replay without it.
func showWaiting(ctx workflow.Context, on bool) {
	if workflow.GetVersion(ctx, "memo-waiting", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	st := string(machine.StatusRunning)
	if on {
		st = StatusWaiting
	}
	_ = workflow.UpsertMemo(ctx, map[string]any{MemoStatus: st})
}

// StatusWaiting is the memo status (and the listed status) of a running
// run that waits in its state for an unavailable service (remote).
const StatusWaiting = "waiting"

// unavailableWait is how long a run waits before trying again an action
// whose service was unavailable the try-th time (0 the first): 30 s,
// doubling, at most 10 minutes.
func unavailableWait(try int) time.Duration {
	d := 30 * time.Second
	for range min(try, 5) {
		d *= 2
	}
	return min(d, 10*time.Minute)
}

// actionError turns an activity's failure back into what the action
// returned: a pause, or its error text. An action that said its service
// is unavailable (machine.ErrUnavailable, after its own retries) is that
// again: remote waits and tries it again. Workers that failed or timed out
// through every retry give the action's error, for the state's on_error.
func actionError(action string, err error) error {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		switch app.Type() {
		case errPause:
			var p machine.PauseError
			if derr := app.Details(&p); derr != nil {
				return fmt.Errorf("cannot read the pause of action %q: %w", action, derr)
			}
			return &p
		case errAction:
			return errors.New(app.Message())
		case errUnavail:
			return machine.Unavailable(errors.New(app.Message()))
		case errTransient:
			return fmt.Errorf("%s (gave up after the retries)", app.Message())
		case errLimit:
			return &limitError{app.Message()}
		}
	}
	var te *temporal.TimeoutError
	if errors.As(err, &te) {
		return fmt.Errorf("action %q timed out on every worker that took it (%s)", action, te.TimeoutType())
	}
	return fmt.Errorf("cannot run action %q on a worker: %w", action, err)
}

// limitError is an action's result over the blob limit, in the workflow.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// Transient marks an action error as one that may pass (the activity is
// retried, by any worker); other action errors are final.
type Transient interface{ Temporary() bool }

// Action is the activity: it runs one action execution on this worker.
func (e *Engine) Action(ctx context.Context, t ActionTask) (json.RawMessage, error) {
	if got := SpecHash(t.Spec); got != t.SpecHash {
		return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("the spec's hash is %s, not %s", got, t.SpecHash), errAction, nil)
	}
	spec, diags := spec.Parse(t.SpecPath, t.Spec)
	if diags.HasErrors() {
		return nil, temporal.NewNonRetryableApplicationError("the run's spec does not decode: "+diags.PrettyAll(t.Spec), errAction, nil)
	}
	var in machine.CallInput // numbers decoded as a local run has them
	if err := json.Unmarshal(t.Call, &in); err != nil {
		return nil, temporal.NewNonRetryableApplicationError("cannot read the call: "+err.Error(), errAction, nil)
	}
	info := RunInfo{RunID: t.RunID, SpecPath: t.SpecPath, Spec: spec, Agent: t.Agent, Files: t.Files, Seq: in.Seq, Action: in.Action, Attempt: 1}
	if activity.IsActivity(ctx) {
		info.Attempt = int(activity.GetInfo(ctx).Attempt)
	}
	reg, release, err := e.host.Open(ctx, info)
	if err != nil {
		return nil, err // this worker cannot host the run now: another may
	}
	defer release()
	a := reg.Lookup(in.Action)
	if a == nil {
		// An older worker: another worker (of the run's version) has it.
		return nil, temporal.NewApplicationError(fmt.Sprintf("this worker (lppctl %s) has no action %q", Version, in.Action), errTransient)
	}
	stop := heartbeat(ctx, e.opts.Heartbeat/3)
	out, err := machine.RunDetached(ctx, spec, a, &in)
	stop()
	if err != nil {
		if p, ok := machine.AsPause(err); ok {
			return nil, temporal.NewNonRetryableApplicationError(p.Error(), errPause, nil, p)
		}
		if ctx.Err() != nil {
			return nil, err // the attempt was cut short: retried
		}
		var tr Transient
		if errors.As(err, &tr) && tr.Temporary() {
			return nil, temporal.NewApplicationError(err.Error(), errTransient)
		}
		if errors.Is(err, machine.ErrUnavailable) {
			// The action made its own retries (a model client's): not
			// retried again here, nor routed through on_error.
			return nil, temporal.NewNonRetryableApplicationError(err.Error(), errUnavail, nil)
		}
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), errAction, nil)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError("cannot send what the action did: "+err.Error(), errAction, nil)
	}
	if len(b) > e.opts.BlobLimit {
		le := &LimitError{What: fmt.Sprintf("the result of action %s at step %d", in.Action, in.Seq+1), Size: len(b), Limit: e.opts.BlobLimit}
		return nil, temporal.NewNonRetryableApplicationError(le.Error(), errLimit, nil)
	}
	return b, nil
}

// heartbeat tells the server every period that this worker is alive, until
// stop is called: a worker that dies is noticed within the heartbeat
// timeout and its action given to another worker.
func heartbeat(ctx context.Context, period time.Duration) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(max(period, 100*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
