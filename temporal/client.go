package temporal

import (
	"context"
	"errors"
	"fmt"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"io"
	"log/slog"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
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
	v, err := queryWorkflow(ctx, c, runID, QueryProgress, from, ProgressLines)
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
	if err := p.Flatten(); err != nil {
		return nil, fmt.Errorf("cannot read the progress of run %s: %w", runID, err)
	}
	return &p, nil
}

// Memory returns the run's memory (the plan, L2, the chats).
func Memory(ctx context.Context, c client.Client, runID string) (*machine.Memory, error) {
	v, err := queryWorkflow(ctx, c, runID, QueryMemory)
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
	case enums.WORKFLOW_EXECUTION_STATUS_RUNNING, enums.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		return "", "", nil // the run goes on (in its next execution)
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

// FollowOptions configure Follow.
type FollowOptions struct {
	Poll time.Duration // how often the run is asked (default 200ms)
	// Step is called for each step of the run as it is made.
	Step func(*machine.Record)
	// Notice is told what the follower waits for: a server that does not
	// answer (and when it answers again), a task queue no worker polls, the
	// run waiting for an action's unavailable service (Progress.Waiting).
	Notice func(string)
	// Codec is the client's payload codec: with it, a run terminated
	// before its latest execution's first task (no worker can replay it)
	// is read from that execution's input (Carried).
	Codec *Codec
}

// Follow calls o.Step for each step of the run as it is made, from step
// from+1, until the run ends or pauses (or ctx is done: the run goes on).
// It returns where the run stands then. A server that does not answer is
// waited for (with a backoff up to 5 s), never taken as the run's end; a
// run closed on the server (terminated included) is noticed at the next
// poll.
func Follow(ctx context.Context, c client.Client, runID string, from int, o FollowOptions) (*Progress, error) {
	if o.Poll <= 0 {
		o.Poll = 200 * time.Millisecond
	}
	notice := o.Notice
	if notice == nil {
		notice = func(string) {}
	}
	var last *Progress
	var outage, noWorker bool
	var checked time.Time
	moved := time.Now() // when the run last made a step
	backoff := o.Poll
	// A step that changed keys of a map holds those: o.Step gets the map
	// whole, walked over every record sent (those shown before too: an
	// earlier execution's come whole from its first).
	var walk runstore.Walker
	emit := func(p *Progress) {
		for _, rec := range p.Records {
			if whole := walk.Next(rec); rec.Seq > from && o.Step != nil {
				o.Step(whole)
			}
		}
		if n := len(p.Records); n > 0 && p.Records[n-1].Seq > from {
			from = p.Records[n-1].Seq
		}
	}
	for {
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		d, err := c.DescribeWorkflowExecution(dctx, runID, "")
		cancel()
		if err != nil {
			var nf *serviceerror.NotFound
			switch {
			case errors.As(err, &nf):
				return nil, fmt.Errorf("cannot find run %s on Temporal: %w", runID, err)
			case ctx.Err() != nil:
				return last, ctx.Err()
			}
			if !outage {
				outage = true
				notice(fmt.Sprintf("cannot reach the Temporal server (%s); the run goes on there: waiting for the server (Ctrl-C detaches)", rootMessage(err)))
			}
			if !sleepCtx(ctx, backoff) {
				return last, ctx.Err()
			}
			backoff = min(backoff*2, 5*time.Second)
			continue
		}
		if outage {
			outage = false
			notice("the Temporal server answers again: following the run")
		}
		backoff = o.Poll
		switch d.GetWorkflowExecutionInfo().GetStatus() {
		case enums.WORKFLOW_EXECUTION_STATUS_RUNNING, enums.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		default:
			return ended(ctx, c, runID, d.GetExecutionConfig().GetTaskQueue().GetName(), from, last, emit, o.Codec)
		}
		wait := 10 * time.Second
		if noWorker {
			wait = time.Second
		}
		qctx, cancel := context.WithTimeout(ctx, wait)
		p, err := Query(qctx, c, runID, from)
		cancel()
		if err == nil {
			if len(p.Records) > 0 || last == nil || p.Steps != last.Steps {
				moved = time.Now()
			}
			if p.Waiting != "" && (last == nil || last.Waiting != p.Waiting) {
				notice("waits: " + p.Waiting)
			}
			last, noWorker = p, false
			emit(p)
			if p.More {
				continue
			}
			if p.Status == machine.StatusPaused {
				return p, nil
			}
		}
		// A run that has not moved for a while: is a worker there? (A new
		// worker's pollers show only once they poll again: not at once.)
		if !noWorker && time.Since(moved) > 3*time.Second && time.Since(checked) > 5*time.Second {
			checked = time.Now()
			noWorker = warnNoWorker(ctx, c, d.GetExecutionConfig().GetTaskQueue().GetName(), notice)
		}
		if !sleepCtx(ctx, o.Poll) {
			return last, ctx.Err()
		}
	}
}

// warnNoWorker tells notice when no worker polls queue, and reports it.
func warnNoWorker(ctx context.Context, c client.Client, queue string, notice func(string)) bool {
	n, err := Pollers(ctx, c, queue)
	if err != nil || n > 0 {
		return false
	}
	notice(NoWorker(queue))
	return true
}

// NoWorker says that no worker polls queue.
func NoWorker(queue string) string {
	return fmt.Sprintf("no worker polls task queue %s: the run waits until one starts (lppctl worker)", queue)
}

// completedPages gives emit a completed run's steps after from, a progress
// page at a time from a worker, and returns the last page; nil when a
// query fails (no worker answered).
func completedPages(ctx context.Context, c client.Client, runID string, from int, emit func(*Progress)) *Progress {
	for {
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		q, err := Query(qctx, c, runID, from)
		cancel()
		if err != nil || q.Status != machine.StatusCompleted {
			return nil
		}
		emit(q)
		if n := len(q.Records); n > 0 {
			from = q.Records[n-1].Seq
		}
		if !q.More {
			return q
		}
	}
}

// ended returns how a closed run ended, with its last steps: a completed
// run's from a worker page by page, else from its result (no worker
// needed); a cancelled run's from its cancellation's details (no worker
// needed); another's last standing is asked briefly (a worker replays it),
// else the last one seen is kept.
func ended(ctx context.Context, c client.Client, runID, queue string, from int, last *Progress, emit func(*Progress), codec *Codec) (*Progress, error) {
	st, msg, err := Closed(ctx, c, runID)
	if err != nil {
		return nil, err
	}
	var p *Progress
	if st == machine.StatusCompleted {
		// The steps after from, page by page from a worker, each shown as
		// it comes (the progress query sends only those, a few MB at a
		// time); without a worker, the result, which holds every step (and
		// without waiting for a query that no worker takes).
		if n, err := Pollers(ctx, c, queue); err == nil && n > 0 {
			p = completedPages(ctx, c, runID, from, emit)
		}
		if p == nil {
			p, _ = Result(ctx, c, runID)
		}
	} else {
		// A cancelled run recorded where it stopped and its steps (no
		// worker needed: a worker that replays a long run may not answer
		// in time, and the steps since the last poll went unshown).
		if st == StatusCancelled {
			if p, _ = CancelSummary(ctx, c, runID); p != nil && p.Flatten() != nil {
				p = nil
			}
		}
		if p == nil {
			qctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
			var err error
			p, err = QueryAll(qctx, c, runID, from)
			cancel()
			var nr *serviceerror.WorkflowNotReady
			if errors.As(err, &nr) && codec != nil { // terminated before its execution's first task
				if p, _ = Carried(ctx, c, codec, runID); p != nil && p.Flatten() != nil {
					p = nil
				}
			}
		}
	}
	if p != nil && len(p.Records) > 0 {
		emit(p)
	}
	if p == nil {
		p = last
	}
	if p == nil {
		p = &Progress{RunID: runID}
	}
	p.Ended(st, msg)
	return p, nil
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Pollers returns how many workers polled the task queue's workflows
// lately.
func Pollers(ctx context.Context, c client.Client, queue string) (int, error) {
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := c.DescribeTaskQueue(qctx, queue, enums.TASK_QUEUE_TYPE_WORKFLOW)
	if err != nil {
		return 0, fmt.Errorf("cannot describe task queue %s: %w", queue, err)
	}
	return livePollers(resp.GetPollers(), time.Now()), nil
}

// pollerGone is how long after its last poll a poller counts as gone. A
// worker polls again at least every minute (a long poll lasts up to 60 s
// when there is nothing to do); the server lists a worker that stopped for
// about 5 minutes more, so "no worker polls" came that late.
const pollerGone = 2 * time.Minute

// livePollers counts the pollers seen within pollerGone of now (one
// without a time counts).
func livePollers(ps []*taskqueuepb.PollerInfo, now time.Time) int {
	n := 0
	for _, p := range ps {
		if t := p.GetLastAccessTime(); t == nil || now.Sub(t.AsTime()) < pollerGone {
			n++
		}
	}
	return n
}

// QueryAll is Query with every record from step from+1, page after page.
func QueryAll(ctx context.Context, c client.Client, runID string, from int) (*Progress, error) {
	var all []*machine.Record
	for {
		p, err := Query(ctx, c, runID, from)
		if err != nil {
			return nil, err
		}
		for _, rec := range p.Records {
			if rec.Seq > from {
				all, from = append(all, rec), rec.Seq
			}
		}
		if !p.More {
			p.Records = all
			return p, nil
		}
	}
}

// Result returns a completed run's result (no worker needed), with its
// records: the result carries them by reference, a segment at a time.
func Result(ctx context.Context, c client.Client, runID string) (*Progress, error) {
	var p Progress
	if err := c.GetWorkflow(ctx, runID, "").Get(ctx, &p); err != nil {
		return nil, fmt.Errorf("cannot read the result of run %s: %w", runID, err)
	}
	if err := p.Flatten(); err != nil {
		return nil, fmt.Errorf("cannot read the result of run %s: %w", runID, err)
	}
	return &p, nil
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
		if st, how, cerr := Closed(ctx, c, runID); cerr == nil && st != "" {
			// The run ended between the caller's look and the answer (a
			// cancel, its last step): say so, not the server's "workflow
			// execution already completed".
			what := string(st)
			if how != "" && st != machine.StatusFailed { // a failure's message is long: runs show has it
				what += ", " + how
			}
			return fmt.Errorf("cannot resume run %s: it has ended (%s); a run that has ended takes no answer or event", runID, what)
		}
		msg := rootMessage(err) // the workflow's refusal names the run already
		if !strings.HasPrefix(msg, "cannot resume run "+runID+": ") {
			msg = fmt.Sprintf("cannot resume run %s: %s", runID, msg)
		}
		return errors.New(msg)
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
			if e.GetStatus() == enums.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW {
				continue // the run goes on in a newer execution, listed too
			}
			s := Summary{RunID: e.GetExecution().GetWorkflowId(), Status: statusName(e.GetStatus()), Start: Begun(e)}
			if s.Status == string(machine.StatusRunning) {
				switch memoStatus(e.GetMemo()) {
				case string(machine.StatusPaused):
					s.Status = string(machine.StatusPaused)
				case StatusWaiting:
					s.Status = StatusWaiting
				}
			}

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

// Begun is when the run of a workflow execution began: its start, or the
// first execution's for one that continued as new.
func Begun(e interface {
	GetStartTime() *timestamppb.Timestamp
	GetMemo() *commonpb.Memo
}) time.Time {
	if f := e.GetMemo().GetFields()[MemoBegun]; f != nil {
		var begun time.Time
		if converter.GetDefaultDataConverter().FromPayload(f, &begun) == nil && !begun.IsZero() {
			return begun
		}
	}
	return e.GetStartTime().AsTime()
}

// memoStatus is the status a workflow's memo gives its run (paused,
// waiting, running), or "".
func memoStatus(m *commonpb.Memo) string {
	f := m.GetFields()[MemoStatus]
	if f == nil {
		return ""
	}
	var st string
	if converter.GetDefaultDataConverter().FromPayload(f, &st) != nil {
		return ""
	}
	return st
}

func statusName(s enums.WorkflowExecutionStatus) string {
	switch s {
	case enums.WORKFLOW_EXECUTION_STATUS_RUNNING, enums.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		return string(machine.StatusRunning)
	case enums.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		return string(machine.StatusCompleted)
	case enums.WORKFLOW_EXECUTION_STATUS_CANCELED, enums.WORKFLOW_EXECUTION_STATUS_TERMINATED:
		return string(StatusCancelled)
	}
	return string(machine.StatusFailed)
}
