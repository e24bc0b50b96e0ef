package temporal_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
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

// An action whose service is unavailable after its own retries (a model
// provider that is down) is not retried by Temporal and does not take the
// state's on_error route: the run fails in the state, saying why, as a
// local run does.
func TestWorkflowFailsInPlaceWhenAnActionsServiceIsUnavailable(t *testing.T) {
	var calls atomic.Int32
	h := &testHost{root: t.TempDir(), extra: []machine.Action{
		{Name: "test.down", Run: func(context.Context, *machine.Call) error {
			calls.Add(1)
			return machine.Unavailable(errors.New("cannot call openai:m at http://127.0.0.1:1/v1: gave up after 3 attempts, the last one failed with HTTP 503 (server error): the server said: (no message)"))
		}},
	}}
	rel := writeSpec(t, h.root, "down.yaml", downSpec)
	env := newEnv(t, h)
	env.ExecuteWorkflow(temporal.WorkflowName, startOf(t, h.root, rel, "run-down", nil))
	err := env.GetWorkflowError()
	require.Error(t, err)
	const want = `action failed: test.down in state "call": cannot call openai:m at http://127.0.0.1:1/v1: gave up after 3 attempts, the last one failed with HTTP 503 (server error): the server said: (no message)`
	assert.True(t, strings.Contains(err.Error(), want), "workflow error: %v", err)
	assert.Equal(t, int32(1), calls.Load(), "test.down ran %d times", calls.Load())
	p := progressOf(t, env)
	assert.Equal(t, machine.StatusFailed, p.Status)
	assert.Equal(t, "call", p.State)
	assert.Equal(t, 0, p.Steps)
	assert.Equal(t, want, p.Error)
	assert.Equal(t, "", p.Vars["outcome"])
}
