package temporal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"

	"github.com/lppctl/lppctl/machine"
)

// Dial connects to the Temporal server at hostPort; a server that does not
// answer within a few seconds is an error that says where it was looked for.
// Payloads go through codec (nil: by value; every client and worker of a
// task queue must use the same blob store).
func Dial(ctx context.Context, hostPort, namespace string, logger *slog.Logger, codec *Codec) (client.Client, error) {
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if namespace == "" {
		namespace = "default"
	}
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	opts := client.Options{HostPort: hostPort, Namespace: namespace, Logger: log.NewStructuredLogger(logger), Identity: Identity()}
	if codec != nil {
		opts.DataConverter = codec.DataConverter()
	}
	c, err := client.DialContext(dctx, opts)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the Temporal server at %s (namespace %s): %w; start one (e.g. temporal server start-dev) or give its address with --temporal HOST:PORT", hostPort, namespace, err)
	}
	return c, nil
}

// StartRun starts the workflow of a run: its ID is the run id.
func StartRun(ctx context.Context, c client.Client, taskQueue string, st Start) error {
	if taskQueue == "" {
		taskQueue = DefaultTaskQueue
	}
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       st.RunID,
		TaskQueue:                taskQueue,
		WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
	}, WorkflowName, st)
	if err != nil {
		return fmt.Errorf("cannot start run %s on Temporal: %w", st.RunID, err)
	}
	return nil
}

// Query returns where run stands, with its records from step from+1.
func Query(ctx context.Context, c client.Client, runID string, from int) (*Progress, error) {
	v, err := c.QueryWorkflow(ctx, runID, "", QueryProgress, from)
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return nil, fmt.Errorf("cannot find run %s on Temporal: %w", runID, err)
		}
		return nil, fmt.Errorf("cannot ask run %s where it stands (is a worker running?): %w", runID, err)
	}
	var p Progress
	if err := v.Get(&p); err != nil {
		return nil, fmt.Errorf("cannot read the progress of run %s: %w", runID, err)
	}
	return &p, nil
}

// Memory returns the run's memory (the plan, L2, the chats).
func Memory(ctx context.Context, c client.Client, runID string) (*machine.Memory, error) {
	v, err := c.QueryWorkflow(ctx, runID, "", QueryMemory)
	if err != nil {
		return nil, fmt.Errorf("cannot read the memory of run %s: %w", runID, err)
	}
	m := machine.NewMemory()
	if err := v.Get(m); err != nil {
		return nil, fmt.Errorf("cannot read the memory of run %s: %w", runID, err)
	}
	return m, nil
}

// How a cancelled run was stopped, as Closed reports it (after "cancelled
// in STATE after N steps, ").
const (
	HowCancelRequest = "by a cancel request (lppctl runs cancel)"
	HowTerminated    = "terminated on the Temporal server"
)

// Closed returns how a run's workflow ended ("" while it runs): its error
// when it failed, how it was stopped when it was cancelled (StatusCancelled).
func Closed(ctx context.Context, c client.Client, runID string) (status machine.Status, msg string, err error) {
	d, err := c.DescribeWorkflowExecution(ctx, runID, "")
	if err != nil {
		return "", "", fmt.Errorf("cannot find run %s on Temporal: %w", runID, err)
	}
	switch d.GetWorkflowExecutionInfo().GetStatus() {
	case enums.WORKFLOW_EXECUTION_STATUS_RUNNING:
		return "", "", nil
	case enums.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		return machine.StatusCompleted, "", nil
	case enums.WORKFLOW_EXECUTION_STATUS_CANCELED:
		return StatusCancelled, HowCancelRequest, nil
	case enums.WORKFLOW_EXECUTION_STATUS_TERMINATED:
		return StatusCancelled, terminated(ctx, c, runID), nil
	}
	werr := c.GetWorkflow(ctx, runID, "").Get(ctx, nil)
	if werr == nil {
		return machine.StatusFailed, "", nil
	}
	return machine.StatusFailed, rootMessage(werr), nil
}

// terminated says how a terminated run was stopped, with the reason the
// operator gave when the close event has one.
func terminated(ctx context.Context, c client.Client, runID string) string {
	it := c.GetWorkflowHistory(ctx, runID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			break
		}
		if r := ev.GetWorkflowExecutionTerminatedEventAttributes().GetReason(); r != "" {
			return HowTerminated + ": " + r
		}
	}
	return HowTerminated
}

// rootMessage is the run's own error text inside a workflow's error.
func rootMessage(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Message()
	}
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// Follow calls step for each step of the run as it is made, from step
// from+1, until the run ends or pauses (or ctx is done: the run goes on).
// It returns where the run stands then.
func Follow(ctx context.Context, c client.Client, runID string, from int, poll time.Duration, step func(*machine.Record)) (*Progress, error) {
	if poll <= 0 {
		poll = 200 * time.Millisecond
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		p, err := Query(qctx, c, runID, from)
		cancel()
		if err != nil {
			// A busy or dying worker misses a query: ask again, unless the
			// run is gone or over.
			st, msg, cerr := Closed(ctx, c, runID)
			switch {
			case cerr != nil:
				return nil, cerr
			case st == machine.StatusCompleted:
				var res Progress
				if err := c.GetWorkflow(ctx, runID, "").Get(ctx, &res); err == nil {
					return &res, nil
				}
			case st != "":
				p := &Progress{RunID: runID}
				p.Ended(st, msg)
				return p, nil
			}
		} else {
			for _, rec := range p.Records {
				step(rec)
			}
			from += len(p.Records)
			if p.Status == machine.StatusPaused {
				return p, nil
			}
			if p.End != nil || p.Status == machine.StatusCompleted || p.Status == machine.StatusFailed {
				st, msg, err := Closed(ctx, c, runID)
				if err != nil {
					return nil, err
				}
				if st != "" {
					p.Ended(st, msg)
					return p, nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return p, ctx.Err()
		case <-t.C:
		}
	}
}

// ResumeRun gives a paused run its answer (or event), on any machine; it
// returns once the run has accepted it.
func ResumeRun(ctx context.Context, c client.Client, runID string, a Resume) error {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: runID, UpdateName: UpdateResume, Args: []any{a},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = h.Get(ctx, nil)
	}
	if err != nil {
		return fmt.Errorf("cannot resume run %s: %s", runID, rootMessage(err))
	}
	return nil
}

// CancelRun asks the run to stop; it stops at its next clean point.
func CancelRun(ctx context.Context, c client.Client, runID string) error {
	if err := c.CancelWorkflow(ctx, runID, ""); err != nil {
		return fmt.Errorf("cannot cancel run %s: %w", runID, err)
	}
	return nil
}

// Summary is one run in a list.
type Summary struct {
	RunID  string     `json:"run_id"`
	Status string     `json:"status"`
	Start  time.Time  `json:"start"`
	End    *time.Time `json:"end,omitempty"`
}

// ListRuns lists the runs the server knows, newest first (Temporal's
// visibility store).
func ListRuns(ctx context.Context, c client.Client, limit int) ([]Summary, error) {
	var out []Summary
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: fmt.Sprintf("WorkflowType = '%s'", WorkflowName), NextPageToken: token,
		})
		if err != nil {
			return nil, fmt.Errorf("cannot list the runs on Temporal: %w", err)
		}
		for _, e := range resp.GetExecutions() {
			s := Summary{RunID: e.GetExecution().GetWorkflowId(), Status: statusName(e.GetStatus()), Start: e.GetStartTime().AsTime()}
			if ct := e.GetCloseTime(); ct != nil {
				end := ct.AsTime()
				s.End = &end
			}
			out = append(out, s)
			if limit > 0 && len(out) >= limit {
				return out, nil
			}
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			return out, nil
		}
	}
}

func statusName(s enums.WorkflowExecutionStatus) string {
	switch s {
	case enums.WORKFLOW_EXECUTION_STATUS_RUNNING:
		return string(machine.StatusRunning)
	case enums.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		return string(machine.StatusCompleted)
	case enums.WORKFLOW_EXECUTION_STATUS_CANCELED, enums.WORKFLOW_EXECUTION_STATUS_TERMINATED:
		return string(StatusCancelled)
	}
	return string(machine.StatusFailed)
}
