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

// growingList appends a string that doubles to xs on every pass: the run
// takes its append path (concat(xs, TAIL)), the checker evaluates the set as
// written. xs passes the limit first (s stays at 8 MiB).
const growingList = `lpp: 1
name: dbl
context:
  s:  {type: string, default: "x"}
  xs: {type: list, default: []}
initial: a
states:
  a:
    set: {s: s + s, xs: 'concat(xs, [s])'}
    next:
      - {to: done, when: len(xs) > 1000000000000}
      - {to: a}
  done: {final: true}
`

// TestAListGrownByAppendsStopsTheRunAndTheCheckAtTheLimit: a list that
// grows by appends ends with the value size limit's error, the same in a
// run (whose appends are measured item by item) and in the model checker.
func TestAListGrownByAppendsStopsTheRunAndTheCheckAtTheLimit(t *testing.T) {
	reg := machine.NewBuiltinRegistry()
	spec, diags := validate.Check("dbl.yaml", []byte(growingList), reg)
	require.False(t, diags.HasErrors(), "%v", diags)
	m, err := machine.Compile(spec, reg)
	require.NoError(t, err)

	const tooLarge = "the value is 8388791 bytes or more, past the limit of 8388608 for a context value; a set that grows a value on every pass (s: s + s) never ends: bound it with a guard"
	r, err := m.NewRun(nil)
	require.NoError(t, err)
	err = r.Run(context.Background())
	require.Error(t, err)
	assert.True(t, errors.Is(err, mspec.ErrValueTooLarge), "%v", err)
	assert.Equal(t, `cannot apply set of state "a": dbl.yaml:9:26: set xs: `+tooLarge+` (in concat(xs, [s]))`, err.Error())
	assert.Equal(t, 22, len(r.Var("xs").([]any)), "the list that passed the limit was stored")

	rep := ModelCheck(context.Background(), m, CheckOptions{})
	var found bool
	for _, p := range rep.Properties {
		if p.Property != PropEvaluation {
			continue
		}
		found = true
		assert.Equal(t, Fail, p.Verdict)
		assert.Equal(t, `set of state "a": xs: `+tooLarge, p.Message)
	}
	assert.True(t, found)
}
