package temporal_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/temporal"
)

// devCLI finds the Temporal CLI (it holds the dev server), as the lppctl
// command's tests do; without it the test is skipped.
func devCLI(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("temporal"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			p := filepath.Join(dir, "bin", "temporal")
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return p
			}
		}
	}
	if os.Getenv("LPPCTL_REQUIRE_TEMPORAL") == "1" {
		t.Fatal("LPPCTL_REQUIRE_TEMPORAL=1 but the Temporal CLI is neither on PATH nor in $(go env GOPATH)/bin")
	}
	t.Skip("the Temporal CLI is not installed (go install github.com/temporalio/cli/cmd/temporal@v1.5.1)")
	return ""
}

// startDevServer starts a Temporal dev server for the test (stopped at its
// end); it skips in -short mode and where the CLI is missing (devCLI).
func startDevServer(t *testing.T) *testsuite.DevServer {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	srv, err := testsuite.StartDevServer(context.Background(), testsuite.DevServerOptions{
		ExistingPath: devCLI(t), LogLevel: "error", Stdout: io.Discard, Stderr: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Stop() })
	return srv
}

// dirCodec is a payload codec keeping large payloads in root/blobs.
func dirCodec(t *testing.T, root string) *temporal.Codec {
	t.Helper()
	store, err := temporal.NewDirStore(filepath.Join(root, "blobs"))
	require.NoError(t, err)
	return temporal.NewCodec(store, 0, 0)
}

const movesSpec = `lpp: 1
name: moves
context:
  moved: {type: int, default: 0}
initial: a
states:
  a:
    do: test.move
    next: b
  b:
    do: test.move
    next: done
  done:
    final: true
`

// A run cancelled while an action runs (on a real server: the SDK's test
// environment answers an activity's cancel at once, whatever the workflow
// asked) stops after that step: an action that completed anyway is the
// run's step, with what it set, as in a local run; an action that stopped
// at the cancel is not.
func TestACancelledRunRecordsTheActionThatCompletedAsTheCancelCame(t *testing.T) {
	srv := startDevServer(t)

	tests := []struct {
		name      string
		completes bool // the action ends as if it had not seen the cancel
		steps     int
		moved     any
	}{
		{name: "an action that completed is recorded", completes: true, steps: 1, moved: 1},
		{name: "an action cut short is not", completes: false, steps: 0, moved: 0},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var effects atomic.Int32
			started := make(chan struct{}, 4)
			h := &testHost{root: t.TempDir(), extra: []machine.Action{{
				Name:   "test.move",
				Writes: []machine.VarSpec{{Name: "moved", Type: spec.TypeInt}},
				Run: func(ctx context.Context, c *machine.Call) error {
					started <- struct{}{}
					select { // the cancel reaches the action at its next heartbeat
					case <-ctx.Done():
					case <-time.After(30 * time.Second):
					}
					if !tt.completes {
						return ctx.Err()
					}
					effects.Add(1) // the effect happens, whatever the cancel
					return c.SetVar("moved", int(effects.Load()))
				},
			}}}
			rel := writeSpec(t, h.root, "moves.yaml", movesSpec)
			queue := "cancel-" + string(rune('a'+i))
			codec := dirCodec(t, h.root)
			e := temporal.NewEngine(h, temporal.Options{TaskQueue: queue, Heartbeat: 2 * time.Second, Codec: codec})
			tc, err := temporal.Dial(context.Background(), srv.FrontendHostPort(), "default", nil, codec)
			require.NoError(t, err)
			defer tc.Close()
			for _, w := range e.Workers(tc, 0, temporal.Versioning{Off: true}) {
				require.NoError(t, w.Start())
				defer w.Stop()
			}
			id := "run-" + queue
			require.NoError(t, temporal.StartRun(context.Background(), tc, queue, startOf(t, h.root, rel, id, nil)))
			select {
			case <-started:
			case <-time.After(time.Minute):
				t.Fatal("the first action did not start")
			}
			require.NoError(t, tc.CancelWorkflow(context.Background(), id, ""))
			werr := tc.GetWorkflow(context.Background(), id, "").Get(context.Background(), nil)
			require.Error(t, werr, "the run was cancelled")
			p, err := temporal.Query(context.Background(), tc, id, 0)
			require.NoError(t, err)
			assert.Equal(t, temporal.StatusCancelled, p.Status)
			assert.Equal(t, tt.steps, p.Steps, "steps")
			assert.EqualValues(t, tt.moved, p.Vars["moved"], "moved")
			assert.Len(t, p.Records, tt.steps)
			assert.EqualValues(t, tt.moved, effects.Load(), "the action's effects")
			assert.Len(t, started, 0, "no action ran after the cancel")
		})
	}
}
