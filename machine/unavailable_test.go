package machine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// An action error marked unavailable (a service down after the action's
// own retries) is not routed through on_error: the run fails in the state,
// nothing of the attempt is kept, and resuming from the journal runs the
// action again, which then goes on as usual.
func TestAnUnavailableServiceFailsTheRunInPlaceWhateverItsOnError(t *testing.T) {
	down := true
	reg := machine.NewBuiltinRegistry()
	calls := 0
	require.NoError(t, reg.Register(machine.Action{
		Name: "call", Doc: "calls a service",
		Run: func(_ context.Context, c *machine.Call) error {
			calls++
			if down {
				return machine.Unavailable(errors.New("cannot call svc: gave up after 3 attempts"))
			}
			return nil
		},
	}))
	m := compileSpec(t, `
lpp: 1
name: down
context:
  errs: {type: int, default: 0}
initial: work
states:
  work:
    do: call
    next: done
    on_error: {to: recover, set: {errs: errs + 1}}
  recover: {do: noop, next: done}
  done: {final: true}
`, reg)
	rec := &recorder{}
	r, err := m.NewRun(nil, machine.WithObserver(rec))
	require.NoError(t, err)
	err = r.Run(context.Background())
	require.Error(t, err)
	assert.Equal(t, `action failed: call in state "work": cannot call svc: gave up after 3 attempts`, err.Error())
	assert.ErrorIs(t, err, machine.ErrActionFailed)
	assert.ErrorIs(t, err, machine.ErrUnavailable)
	assert.Equal(t, machine.StatusFailed, r.Status())
	assert.Equal(t, "work", r.State())
	assert.Empty(t, rec.recs, "no step is journaled")
	assert.Equal(t, 0, r.Var("errs"))

	down = false
	r2, err := m.Resume(nil, rec.recs, machine.WithObserver(rec))
	require.NoError(t, err)
	require.NoError(t, r2.Run(context.Background()))
	assert.Equal(t, 2, calls)
	assert.Equal(t, "work>done", rec.path())
	assert.Equal(t, 0, r2.Var("errs"))
}

// Unavailable keeps the error's text and chain; nil stays nil.
func TestUnavailableKeepsTheErrorsTextAndChain(t *testing.T) {
	base := errors.New("HTTP 503")
	err := machine.Unavailable(base)
	assert.Equal(t, "HTTP 503", err.Error())
	assert.ErrorIs(t, err, base)
	assert.ErrorIs(t, err, machine.ErrUnavailable)
	assert.NotErrorIs(t, base, machine.ErrUnavailable)
	assert.NoError(t, machine.Unavailable(nil))
}
