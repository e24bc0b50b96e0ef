package temporal_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/lppctl/lppctl/machine"
	lt "github.com/lppctl/lppctl/temporal"
)

const twoStepsThenWaitSpec = `lpp: 1
name: sleepy2
context:
  n: {type: int, default: 0}
initial: a
states:
  a:
    do: noop
    set: {n: n + 1}
    next: b
  b:
    do: noop
    set: {n: n + 1}
    next: nap
  nap:
    do: wait
    with: {duration: 1h}
    next: done
  done:
    final: true
`

// A cancelled run records where it stopped, its context and its steps
// (by reference) in its cancellation's details, which the server keeps:
// runs show, resume, runs cancel and a follower read them without a
// worker. Before, they asked a worker to replay the run, and when none
// answered in time (a loaded machine, a long run) said "cancelled in
// after 0 steps", or lost the steps a follower had not shown yet.
func TestACancelledRunRecordsWhereItStoppedInItsCancellation(t *testing.T) {
	h := &testHost{root: t.TempDir()}
	rel := writeSpec(t, h.root, "sleepy2.yaml", twoStepsThenWaitSpec)
	s := newScaleEnv(t, h, lt.Options{})
	env := s.env()
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(lt.WorkflowName, startOf(t, h.root, rel, "run-sleepy2", nil))
	var ce *temporal.CanceledError
	require.True(t, errors.As(env.GetWorkflowError(), &ce), "workflow error: %v", env.GetWorkflowError())
	require.True(t, ce.HasDetails(), "the cancellation has details")
	var sent *lt.Progress // the test environment keeps the value; a server gets it through the codec
	require.NoError(t, ce.Details(&sent))
	payloads, err := s.codec.DataConverter().ToPayloads(sent)
	require.NoError(t, err)
	var p lt.Progress
	require.NoError(t, s.codec.DataConverter().FromPayloads(payloads, &p))
	assert.Equal(t, "run-sleepy2", p.RunID)
	assert.Equal(t, lt.StatusCancelled, p.Status)
	assert.Equal(t, lt.HowCancelRequest, p.Cancelled)
	assert.Equal(t, "nap", p.State)
	assert.Equal(t, 2, p.Steps)
	assert.JSONEq(t, `{"n": 2}`, canon(p.Vars))
	require.NoError(t, p.Flatten())
	require.Len(t, p.Records, 2)
	assert.Equal(t, []string{"b", "nap"}, []string{p.Records[0].To, p.Records[1].To})
}

// A follower that comes to a cancelled run (or had not shown its last
// steps when it was cancelled) gets every step it had not shown, and
// where the run stopped, with no worker to replay the run: before, it
// asked a worker for 1.5 s and, without an answer, showed none (a run
// cancelled after 60,000 steps was followed to step 52,000, then
// "cancelled in count after 60000 steps").
func TestAFollowerOfACancelledRunGetsItsStepsWithoutAWorker(t *testing.T) {
	srv := startDevServer(t)
	h := &testHost{root: t.TempDir()}
	rel := writeSpec(t, h.root, "sleepy2.yaml", twoStepsThenWaitSpec)
	codec := dirCodec(t, h.root)
	e := lt.NewEngine(h, lt.Options{TaskQueue: "follow-cancelled", Codec: codec})
	tc, err := lt.Dial(context.Background(), srv.FrontendHostPort(), "default", nil, codec)
	require.NoError(t, err)
	defer tc.Close()
	workers := e.Workers(tc, 0, lt.Versioning{Off: true})
	for _, w := range workers {
		require.NoError(t, w.Start())
	}
	ctx := context.Background()
	require.NoError(t, lt.StartRun(ctx, tc, "follow-cancelled", startOf(t, h.root, rel, "run-follow", nil)))
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if p, err := lt.Query(ctx, tc, "run-follow", -1); err == nil && p.Steps == 2 {
			break
		}
		require.False(t, time.Now().After(deadline), "the run does not reach nap")
	}
	require.NoError(t, tc.CancelWorkflow(ctx, "run-follow", ""))
	require.Error(t, tc.GetWorkflow(ctx, "run-follow", "").Get(ctx, nil), "the run was cancelled")
	for _, w := range workers {
		w.Stop()
	}

	var shown []string
	p, err := lt.Follow(ctx, tc, "run-follow", 0, lt.FollowOptions{Step: func(r *machine.Record) { shown = append(shown, r.To) }})
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "nap"}, shown)
	assert.Equal(t, lt.StatusCancelled, p.Status)
	assert.Equal(t, "nap", p.State)
	assert.Equal(t, 2, p.Steps)
}

// A run terminated before its latest execution's first workflow task (as
// it continued as new) cannot be replayed by any worker: its query fails
// ("Workflow execution closed before WorkflowTaskStarted event"). A
// follower reads where it stopped, and its steps, from that execution's
// input (Carried): before, it kept what it had shown (a run terminated at
// step 48,000 was followed to step 44,000) and runs show said nothing of
// where it stopped.
func TestAFollowerOfARunTerminatedAsItContinuedGetsItsSteps(t *testing.T) {
	srv := startDevServer(t)
	h := &testHost{root: t.TempDir()}
	rel := writeSpec(t, h.root, "inline.yaml", inlineLoopSpec)
	codec := dirCodec(t, h.root)
	tc, err := lt.Dial(context.Background(), srv.FrontendHostPort(), "default", nil, codec)
	require.NoError(t, err)
	defer tc.Close()
	ctx := context.Background()

	// A run of 151 steps continued as new every 40: its last execution's
	// input carries the checkpoint of step 120 and three executions' records.
	e := lt.NewEngine(h, lt.Options{TaskQueue: "carried", Codec: codec, Segment: lt.Segment{Transitions: 40}})
	workers := e.Workers(tc, 0, lt.Versioning{Off: true})
	for _, w := range workers {
		require.NoError(t, w.Start())
	}
	require.NoError(t, lt.StartRun(ctx, tc, "carried", startOf(t, h.root, rel, "run-carried", nil)))
	require.NoError(t, tc.GetWorkflow(ctx, "run-carried", "").Get(ctx, nil))
	for _, w := range workers {
		w.Stop()
	}
	it := tc.GetWorkflowHistory(ctx, "run-carried", "", false, 0)
	require.True(t, it.HasNext())
	ev, err := it.Next()
	require.NoError(t, err)
	var st lt.Start
	require.NoError(t, codec.DataConverter().FromPayloads(ev.GetWorkflowExecutionStartedEventAttributes().GetInput(), &st))
	require.NotNil(t, st.Carry)

	// The same input started where no worker polls, then terminated.
	st.RunID = "run-terminated"
	require.NoError(t, lt.StartRun(ctx, tc, "nobody", st))
	require.NoError(t, tc.TerminateWorkflow(ctx, "run-terminated", "", "operator cleanup"))

	var shown []int
	p, err := lt.Follow(ctx, tc, "run-terminated", 0, lt.FollowOptions{Codec: codec, Step: func(r *machine.Record) { shown = append(shown, r.Seq) }})
	require.NoError(t, err)
	assert.Equal(t, lt.StatusCancelled, p.Status)
	assert.Equal(t, "terminated on the Temporal server: operator cleanup", p.Cancelled)
	assert.Equal(t, "count", p.State)
	assert.Equal(t, 120, p.Steps)
	require.Len(t, shown, 120)
	assert.Equal(t, 1, shown[0])
	assert.Equal(t, 120, shown[119])
}
