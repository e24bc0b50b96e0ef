package check

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// doubling grows s on every pass; its guard never holds in time.
const doubling = `lpp: 1
name: dbl
context:
  s: {type: string, default: "x"}
initial: a
states:
  a:
    set: {s: s + s}
    next:
      - {to: done, when: len(s) > 1000000000000}
      - {to: a}
  done: {final: true}
`

// TestAGrowingValueStopsTheRunAndTheCheck: a set that doubles a string
// ends with a clear, positioned error once the value passes
// MaxValueBytes, in a run and in the model checker, instead of running
// out of memory; the counterexample shows the values cut.
func TestAGrowingValueStopsTheRunAndTheCheck(t *testing.T) {
	reg := machine.NewBuiltinRegistry()
	spec, diags := validate.Check("dbl.yaml", []byte(doubling), reg)
	require.False(t, diags.HasErrors(), "%v", diags)
	m, err := machine.Compile(spec, reg)
	require.NoError(t, err)

	r, err := m.NewRun(nil)
	require.NoError(t, err)
	err = r.Run(context.Background())
	require.Error(t, err)
	assert.True(t, errors.Is(err, mspec.ErrValueTooLarge), "%v", err)
	var ee *machine.EvalError
	require.True(t, errors.As(err, &ee), "%v", err)
	assert.Equal(t, "dbl.yaml:8:14: set s: the value is 16777216 bytes or more, past the limit of 8388608 for a context value; a set that grows a value on every pass (s: s + s) never ends: bound it with a guard (in s + s)", ee.Error())

	rep := ModelCheck(context.Background(), m, CheckOptions{})
	var found bool
	for _, p := range rep.Properties {
		if p.Property != PropEvaluation {
			continue
		}
		found = true
		assert.Equal(t, Fail, p.Verdict)
		assert.Equal(t, `set of state "a": s: the value is 16777216 bytes or more, past the limit of 8388608 for a context value; a set that grows a value on every pass (s: s + s) never ends: bound it with a guard`, p.Message)
		require.NotNil(t, p.Trace)
	}
	assert.True(t, found)
	shown := 0 // what the report prints of the trace's values (report.Text shows each with QuoteValue)
	for _, p := range rep.Properties {
		if p.Trace == nil {
			continue
		}
		for _, st := range p.Trace.Steps {
			for _, v := range st.Vars {
				shown += len(QuoteValue(v))
			}
		}
	}
	assert.Less(t, shown, 20000, "the counterexample must not print the values whole")
}
