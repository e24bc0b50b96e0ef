package temporal

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// queryAgain is the wait before a query that timed out is asked again;
// queryPatience bounds the asking when the caller set no deadline.
const queryAgain = 100 * time.Millisecond

var queryPatience = 15 * time.Second

// queryWorkflow asks the run's latest execution a query, again while ctx
// lasts when the server gave up waiting for a worker: the query went to
// the sticky queue of a worker that died (the server waits 5 s for it,
// then the next query goes to any worker), or to a worker busy with the
// run's workflow task, or the execution continued as new while the query
// waited. A query changes nothing, so asking again is safe.
func queryWorkflow(ctx context.Context, c client.Client, runID, name string, args ...any) (converter.EncodedValue, error) {
	_, bounded := ctx.Deadline()
	start := time.Now()
	for {
		v, err := c.QueryWorkflow(ctx, runID, "", name, args...)
		if err == nil || ctx.Err() != nil || !timedOut(err) || notReadyForGood(ctx, c, runID, err) ||
			!bounded && time.Since(start) > queryPatience { // no deadline: asked again for queryPatience
			return v, err
		}
		t := time.NewTimer(queryAgain)
		select {
		case <-ctx.Done():
			t.Stop()
			return v, err
		case <-t.C:
		}
	}
}

// timedOut tells whether err says that a call was given up (the server's
// wait for a worker, the SDK's own deadline of a call, a stream cancelled)
// or came too early (the execution the run continued as new has no task
// yet): not an answer of the run's (a query handler's error, an unknown
// run).
func timedOut(err error) bool {
	var de *serviceerror.DeadlineExceeded
	var ce *serviceerror.Canceled
	var nr *serviceerror.WorkflowNotReady // an execution that just continued as new
	return errors.As(err, &de) || errors.As(err, &ce) || errors.As(err, &nr) || errors.Is(err, context.DeadlineExceeded)
}

// notReadyForGood tells whether err says that the run has no workflow task
// yet and never will: its execution closed before one started (a run
// terminated as it continued as new), which no worker can replay.
func notReadyForGood(ctx context.Context, c client.Client, runID string, err error) bool {
	var nr *serviceerror.WorkflowNotReady
	if !errors.As(err, &nr) {
		return false
	}
	d, derr := c.DescribeWorkflowExecution(ctx, runID, "")
	return derr != nil || d.GetWorkflowExecutionInfo().GetStatus() != enums.WORKFLOW_EXECUTION_STATUS_RUNNING
}
