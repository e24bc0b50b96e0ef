package temporal_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/temporal"
)

// keysSpec branches on the order keys() gives a map's keys: to an action
// (an activity) when "a" comes first, else to a wait (a timer), six times.
const keysSpec = `lpp: 1
name: keys
context:
  m: {type: map, default: {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6}}
  n: {type: int, default: 0}
  order: {type: list, default: []}
initial: look
states:
  look:
    set: {n: n + 1, order: 'concat(order, [join(keys(m), ",")])'}
    next:
      - {to: act, when: 'keys(m)[0] == "a"'}
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

// TestARunReadingAMapsKeysReplaysAsItRan: a worker that replays a run (its
// cache evicted, a query of an ended run, another worker taking it over)
// evaluates its expressions again and must take the branches the run
// took. keys() of a map gave its keys in Go's map order, another at every
// evaluation: the replay scheduled a timer where the history holds an
// activity (or the reverse), and the run's queries and next tasks failed.
func TestARunReadingAMapsKeysReplaysAsItRan(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	srv, err := testsuite.StartDevServer(context.Background(), testsuite.DevServerOptions{
		ExistingPath: devCLI(t), LogLevel: "error", Stdout: io.Discard, Stderr: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Stop() })

	h := &testHost{root: t.TempDir(), extra: []machine.Action{{
		Name: "test.touch",
		Run:  func(context.Context, *machine.Call) error { return nil },
	}}}
	rel := writeSpec(t, h.root, "keys.yaml", keysSpec)
	const queue = "keys-replay"
	store, err := temporal.NewDirStore(filepath.Join(h.root, "blobs"))
	require.NoError(t, err)
	codec := temporal.NewCodec(store, 0, 0)
	e := temporal.NewEngine(h, temporal.Options{TaskQueue: queue, Codec: codec})
	tc, err := temporal.Dial(context.Background(), srv.FrontendHostPort(), "default", nil, codec)
	require.NoError(t, err)
	defer tc.Close()
	w := worker.New(tc, queue, worker.Options{})
	e.Register(w)
	require.NoError(t, w.Start())
	defer w.Stop()

	id := "run-" + queue
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
	r, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{DataConverter: codec.DataConverter()})
	require.NoError(t, err)
	r.RegisterWorkflowWithOptions(e.Workflow, workflow.RegisterOptions{Name: temporal.WorkflowName})
	quiet := log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	for i := range 10 {
		require.NoError(t, r.ReplayWorkflowHistory(quiet, hist), "replay %d", i+1)
	}
}
