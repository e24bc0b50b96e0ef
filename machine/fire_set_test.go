package machine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

const fireSetSpec = `
lpp: 1
name: fireset
context:
  items: list
  n: int
initial: ask
states:
  ask:
    on:
      GO:
        - {to: done, set: {items: event.payload.x, n: 'n + 1'}}
  done: {final: true}
events:
  GO:
    payload: {x: {type: any, required: false}}
`

// An event fired on a stopped run whose transition's set cannot be applied
// (a payload field of type any holding a value of another type, a null for
// a variable that is not nullable) is refused, as a false guard is, and the
// run stays as it was: paused, in its state, its variables unchanged, ready
// for the same event with a good payload.
func TestAnEventWhoseSetCannotBeAppliedIsRefusedAndTheRunStaysAsItWas(t *testing.T) {
	for _, tt := range []struct {
		name    string
		payload map[string]any
		err     string
	}{
		{"a map for a list", map[string]any{"x": map[string]any{"k": 1}},
			`cannot fire event "GO" in state "ask": its transition's set cannot be applied: test.yaml:12:35: set items: a map is not a list (in event.payload.x)`},
		{"a string for a list", map[string]any{"x": "s"},
			`cannot fire event "GO" in state "ask": its transition's set cannot be applied: test.yaml:12:35: set items: string "s" is not a list (in event.payload.x)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := compileSpec(t, fireSetSpec, nil)
			r, err := m.NewRun(nil)
			require.NoError(t, err)
			_, ok := machine.AsPause(r.Run(context.Background()))
			require.True(t, ok, "want a pause for GO")
			seq := r.Seq()

			require.EqualError(t, r.CanFireEvent("GO", tt.payload), tt.err)
			require.EqualError(t, r.FireEvent(context.Background(), "GO", tt.payload), tt.err)
			require.Equal(t, "ask", r.State())
			require.Equal(t, machine.StatusPaused, r.Status())
			require.Equal(t, seq, r.Seq())
			require.Equal(t, 0, r.Var("n"))

			require.NoError(t, r.FireEvent(context.Background(), "GO", map[string]any{"x": []any{"a"}}))
			require.NoError(t, r.Run(context.Background()))
			require.Equal(t, "done", r.State())
			require.Equal(t, []any{"a"}, r.Var("items"))
			require.Equal(t, 1, r.Var("n"))
		})
	}
}
