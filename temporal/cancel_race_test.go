package temporal_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/temporal"
)

// A cancel that reaches the workflow in the same task as the completion of
// the action in flight (the workflow's worker was busy or down meanwhile)
// ends the run cancelled after that step. With the activity ID RUN/STEP/
// ACTION the SDK (v1.37, sdk-go#2512) sent a cancel of the completed
// activity, which the server refused: the workflow task failed again and
// again and the run never stopped.
func TestACancelThatMeetsTheCompletedActionInOneTaskEndsTheRun(t *testing.T) {
	srv := startDevServer(t)

	started, release := make(chan struct{}, 4), make(chan struct{})
	h := &testHost{root: t.TempDir(), extra: []machine.Action{{
		Name:   "test.move",
		Writes: []machine.VarSpec{{Name: "moved", Type: spec.TypeInt}},
		Run: func(ctx context.Context, c *machine.Call) error {
			started <- struct{}{}
			<-release // no cancel reaches it: its workflow's worker is down
			return c.SetVar("moved", 1)
		},
	}}}
	rel := writeSpec(t, h.root, "moves.yaml", movesSpec)
	const queue = "cancel-race"
	codec := dirCodec(t, h.root)
	e := temporal.NewEngine(h, temporal.Options{TaskQueue: queue, Heartbeat: 2 * time.Second, Codec: codec})
	tc, err := temporal.Dial(context.Background(), srv.FrontendHostPort(), "default", nil, codec)
	require.NoError(t, err)
	defer tc.Close()
	acts := worker.New(tc, queue, worker.Options{DisableWorkflowWorker: true})
	acts.RegisterActivityWithOptions(e.Action, activity.RegisterOptions{Name: temporal.ActivityName})
	require.NoError(t, acts.Start())
	defer acts.Stop()
	flows := func() worker.Worker {
		w := worker.New(tc, queue, worker.Options{LocalActivityWorkerOnly: true})
		e.Register(w)
		require.NoError(t, w.Start())
		return w
	}
	w := flows()
	id := "run-" + queue
	require.NoError(t, temporal.StartRun(context.Background(), tc, queue, startOf(t, h.root, rel, id, nil)))
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("the first action did not start")
	}
	w.Stop() // the cancel and the completion wait for the next workflow worker
	require.NoError(t, tc.CancelWorkflow(context.Background(), id, ""))
	close(release)
	require.Eventually(t, func() bool {
		d, err := tc.DescribeWorkflowExecution(context.Background(), id, "")
		return err == nil && len(d.PendingActivities) == 0
	}, 30*time.Second, 100*time.Millisecond, "the action completed")
	w = flows()
	defer w.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	werr := tc.GetWorkflow(ctx, id, "").Get(ctx, nil)
	require.Error(t, werr)
	require.NoError(t, ctx.Err(), "the run never stopped: %v", werr)
	p, err := temporal.Query(context.Background(), tc, id, 0)
	require.NoError(t, err)
	assert.Equal(t, temporal.StatusCancelled, p.Status)
	assert.Equal(t, 1, p.Steps, "the completed action is the run's step")
	assert.EqualValues(t, 1, p.Vars["moved"])
}
