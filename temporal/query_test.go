package temporal

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// queryClient answers the progress query with errs, one a call, then with
// the progress of a paused run; its run is closed when closed is set.
type queryClient struct {
	client.Client
	errs   []error
	calls  int
	closed bool
}

func (q *queryClient) DescribeWorkflowExecution(context.Context, string, string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	st := enums.WORKFLOW_EXECUTION_STATUS_RUNNING
	if q.closed {
		st = enums.WORKFLOW_EXECUTION_STATUS_TERMINATED
	}
	return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{Status: st}}, nil
}

func (q *queryClient) QueryWorkflow(ctx context.Context, _, _, _ string, _ ...any) (converter.EncodedValue, error) {
	q.calls++
	if len(q.errs) > 0 {
		err := q.errs[0]
		q.errs = q.errs[1:]
		return nil, err
	}
	p, err := converter.GetDefaultDataConverter().ToPayloads(Progress{RunID: "r", State: "ask", Steps: 6})
	if err != nil {
		return nil, err
	}
	return client.NewValue(p), nil
}

// A query the server gave up on (it went to the sticky queue of a worker
// that was killed, or waited behind a busy workflow task) is asked again
// while the caller's time lasts: before, runs show said no worker answered
// while one was running, and resume of a cancelled run lost where it
// stopped. An answer of the run's (an unknown run) is not asked again.
func TestAQueryTheServerGaveUpOnIsAskedAgain(t *testing.T) {
	timeout := serviceerror.NewDeadlineExceeded("query timed out before a worker could process it")
	tests := []struct {
		name      string
		errs      []error
		closed    bool
		wait      time.Duration
		calls     int
		wantState string
		wantErr   string
	}{
		{name: "the server's wait for a worker", errs: []error{timeout}, wait: 5 * time.Second, calls: 2, wantState: "ask"},
		{name: "a stream cancelled, then a deadline", errs: []error{serviceerror.NewCanceled("stream terminated by RST_STREAM with error code: CANCEL"), context.DeadlineExceeded}, wait: 5 * time.Second, calls: 3, wantState: "ask"},
		{name: "an execution that has no task yet", errs: []error{serviceerror.NewWorkflowNotReady("Workflow task is not scheduled yet.")}, wait: 5 * time.Second, calls: 2, wantState: "ask"},
		{name: "a run that closed before its next task", closed: true, errs: []error{serviceerror.NewWorkflowNotReady("Workflow execution closed before WorkflowTaskStarted event"), timeout}, wait: 5 * time.Second, calls: 1, wantErr: "cannot ask run r where it stands (is a worker running?): Workflow execution closed before WorkflowTaskStarted event"},
		{name: "until the caller's time is out", errs: []error{timeout, timeout, timeout, timeout, timeout, timeout, timeout, timeout}, wait: 250 * time.Millisecond, wantErr: "cannot ask run r where it stands (is a worker running?): query timed out before a worker could process it"},
		{name: "a caller without a deadline, for a while", errs: []error{timeout, timeout, timeout, timeout, timeout, timeout, timeout, timeout}, calls: 3, wantErr: "cannot ask run r where it stands (is a worker running?): query timed out before a worker could process it"},
		{name: "an unknown run", errs: []error{serviceerror.NewNotFound("workflow not found")}, wait: 5 * time.Second, calls: 1, wantErr: "cannot find run r on Temporal: workflow not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func(p time.Duration) { queryPatience = p }(queryPatience)
			queryPatience = 150 * time.Millisecond
			c := &queryClient{errs: tt.errs, closed: tt.closed}
			ctx, cancel := context.WithCancel(context.Background())
			if tt.wait > 0 {
				ctx, cancel = context.WithTimeout(ctx, tt.wait)
			}
			defer cancel()
			p, err := Query(ctx, c, "r", -1)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				if tt.calls > 0 {
					assert.Equal(t, tt.calls, c.calls)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantState, p.State)
			assert.Equal(t, tt.calls, c.calls)
		})
	}
}
