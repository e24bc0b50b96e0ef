package temporal_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/temporal"
)

const downSpec = `lpp: 1
name: down
context:
  outcome: {type: string, default: ""}
initial: call
states:
  call:
    do: test.down
    next: done
    on_error: {to: done, set: {outcome: last_error}}
  done:
    final: true
`

const downErr = "cannot call openai:m at http://127.0.0.1:1/v1: gave up after 3 attempts, the last one failed with HTTP 503 (server error): the server said: (no message)"

// An action whose service is unavailable after its own retries (a model
// provider that is down) is not retried by Temporal and does not take the
// state's on_error route: the run waits in its state, durably, saying so,
// and tries the action again until it runs: a Temporal run cannot be
// resumed once failed, so it does not fail.
func TestAWorkflowWaitsInPlaceWhileAnActionsServiceIsUnavailable(t *testing.T) {
	var calls atomic.Int32
	h := &testHost{root: t.TempDir(), extra: []machine.Action{
		{Name: "test.down", Run: func(context.Context, *machine.Call) error {
			if calls.Add(1) <= 3 {
				return machine.Unavailable(errors.New(downErr))
			}
			return nil
		}},
	}}
	rel := writeSpec(t, h.root, "down.yaml", downSpec)
	env := newEnv(t, h)
	var seen []string
	// Between the tries (30 s, then 60 s, then 120 s of the workflow's
	// clock), the progress query says what the run waits for.
	for _, at := range []time.Duration{10 * time.Second, 50 * time.Second, 130 * time.Second} {
		env.RegisterDelayedCallback(func() {
			seen = append(seen, progressOf(t, env).Waiting)
		}, at)
	}
	// The memo says the run waits while it does (lppctl runs lists it so),
	// and running again once the action ran.
	var memo []any
	env.OnUpsertMemo(mock.Anything).Return(nil).Run(func(args mock.Arguments) {
		memo = append(memo, args.Get(0).(map[string]any)[temporal.MemoStatus])
	})
	env.ExecuteWorkflow(temporal.WorkflowName, startOf(t, h.root, rel, "run-down", nil))
	require.NoError(t, env.GetWorkflowError())
	assert.Equal(t, []any{temporal.StatusWaiting, "running"}, memo)
	assert.Equal(t, int32(4), calls.Load(), "test.down ran %d times", calls.Load())
	p := progressOf(t, env)
	assert.Equal(t, machine.StatusCompleted, p.Status)
	assert.Equal(t, "", p.Vars["outcome"], "on_error was not taken")
	assert.Equal(t, "", p.Waiting)
	require.Len(t, seen, 3)
	for _, w := range seen {
		assert.Contains(t, w, `action "test.down" of state "call" cannot run: `+downErr+`; the run waits in its state and tries again at `)
		assert.Contains(t, w, "(lppctl runs cancel stops it)")
	}
}

// A run waiting for an unavailable service stops when it is cancelled.
func TestAWorkflowWaitingForAnUnavailableServiceCanBeCancelled(t *testing.T) {
	var calls atomic.Int32
	h := &testHost{root: t.TempDir(), extra: []machine.Action{
		{Name: "test.down", Run: func(context.Context, *machine.Call) error {
			calls.Add(1)
			return machine.Unavailable(errors.New(downErr))
		}},
	}}
	rel := writeSpec(t, h.root, "down.yaml", downSpec)
	env := newEnv(t, h)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)
	env.ExecuteWorkflow(temporal.WorkflowName, startOf(t, h.root, rel, "run-down", nil))
	assert.Greater(t, calls.Load(), int32(5), "it kept trying for the hour")
	p := progressOf(t, env)
	assert.Equal(t, temporal.StatusCancelled, p.Status, "%+v", p)
	assert.Equal(t, "", p.Vars["outcome"], "on_error was not taken")
}
