package machine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TestNowReadsTheClockTheMachineWasCompiledWith: with WithExprClock, now()
// in guards, sets and action parameters reads that clock (an engine that
// replays a run gives it the run's times); without, the wall clock; a
// context variable named now is read as the variable.
func TestNowReadsTheClockTheMachineWasCompiledWith(t *testing.T) {
	const src = `lpp: 1
name: clock
context:
  year: {type: int, default: 0}
  day: {type: string, default: ""}
initial: a
states:
  a:
    set: {year: 'now().Year()', day: 'now(timezone("UTC")).Format("2006-01-02")'}
    next:
      - {to: old, when: 'now().Year() < 2000'}
      - to: new
  old: {final: true}
  new: {final: true}
`
	spec, diags := mspec.Parse("clock.yaml", []byte(src))
	require.False(t, diags.HasErrors(), diags)
	run := func(opts ...machine.CompileOption) *machine.Run {
		m, err := machine.Compile(spec, machine.NewBuiltinRegistry(), opts...)
		require.NoError(t, err)
		r, err := m.NewRun(nil)
		require.NoError(t, err)
		require.NoError(t, r.Run(context.Background()))
		return r
	}
	fixed := time.Date(1999, 12, 31, 23, 0, 0, 0, time.UTC)
	r := run(machine.WithExprClock(func() time.Time { return fixed }))
	assert.Equal(t, "old", r.State())
	assert.Equal(t, 1999, r.Var("year"))
	assert.Equal(t, "1999-12-31", r.Var("day"))

	r = run()
	assert.Equal(t, "new", r.State())
	assert.Equal(t, time.Now().Year(), r.Var("year"))

	// A variable named now: now() is no function of the spec, now the
	// variable's value.
	spec2, diags := mspec.Parse("var.yaml", []byte(`lpp: 1
name: var
context:
  now: {type: int, default: 7}
  x: {type: int, default: 0}
initial: a
states:
  a:
    set: {x: now + 1}
    next: done
  done: {final: true}
`))
	require.False(t, diags.HasErrors(), diags)
	m, err := machine.Compile(spec2, machine.NewBuiltinRegistry(), machine.WithExprClock(func() time.Time { return fixed }))
	require.NoError(t, err)
	r2, err := m.NewRun(nil)
	require.NoError(t, err)
	require.NoError(t, r2.Run(context.Background()))
	assert.Equal(t, 8, r2.Var("x"))
}
