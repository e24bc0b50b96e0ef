package temporal_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/temporal"
)

// branchSpec branches on WHEN, six times: to an action (an activity) when
// it holds, else to a wait (a timer).
const branchSpec = `lpp: 1
name: branches
context:
  m: {type: map, default: {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6}}
  n: {type: int, default: 0}
  seen: {type: list, default: []}
initial: look
states:
  look:
    set: {n: n + 1, seen: 'concat(seen, [string(WHEN)])'}
    next:
      - {to: act, when: 'WHEN'}
      - to: pause
  act:
    do: test.touch
    next: [{to: done, when: n >= 6}, {to: look}]
  pause:
    do: wait
    with: {duration: 1ms}
    next: [{to: done, when: n >= 6}, {to: look}]
  done: {final: true}
`

// TestARunReplaysTheBranchesItTook: a worker that replays a run (its cache
// evicted, a query of an ended run, another worker taking it over)
// evaluates its expressions again and must take the branches the run
// took. keys() of a map gave its keys in Go's map order, another at every
// evaluation, and now() read the worker's wall clock: the replay scheduled
// a timer where the history holds an activity (or the reverse), and the
// run's queries and next tasks failed.
func TestARunReplaysTheBranchesItTook(t *testing.T) {
	srv := startDevServer(t)

	h := &testHost{root: t.TempDir(), extra: []machine.Action{{
		Name: "test.touch",
		Run:  func(context.Context, *machine.Call) error { return nil },
	}}}
	const queue = "replay-branches"
	codec := dirCodec(t, h.root)
	e := temporal.NewEngine(h, temporal.Options{TaskQueue: queue, Codec: codec})
	tc, err := temporal.Dial(context.Background(), srv.FrontendHostPort(), "default", nil, codec)
	require.NoError(t, err)
	defer tc.Close()
	w := worker.New(tc, queue, worker.Options{})
	e.Register(w)
	require.NoError(t, w.Start())
	defer w.Stop()

	r, err := worker.NewWorkflowReplayerWithOptions(replayerOptions(codec.DataConverter()))
	require.NoError(t, err)
	r.RegisterWorkflowWithOptions(e.Workflow, workflow.RegisterOptions{Name: temporal.WorkflowName})
	quiet := log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	cases := []struct{ name, when string }{
		{"keys of a map", `keys(m)[0] == "a"`},
		{"now()", `now().UnixNano() % 2 == 0`},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rel := writeSpec(t, h.root, fmt.Sprintf("branches%d.yaml", i), strings.ReplaceAll(branchSpec, "WHEN", c.when))
			id := fmt.Sprintf("run-%s-%d", queue, i)
			require.NoError(t, temporal.StartRun(context.Background(), tc, queue, startOf(t, h.root, rel, id, nil)))
			ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
			defer cancel()
			require.NoError(t, tc.GetWorkflow(ctx, id, "").Get(ctx, nil))
			hist := &historypb.History{}
			it := tc.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				ev, err := it.Next()
				require.NoError(t, err)
				hist.Events = append(hist.Events, ev)
			}
			for i := range 10 {
				require.NoError(t, r.ReplayWorkflowHistory(quiet, hist), "replay %d", i+1)
			}
		})
	}
}
