package machine_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

const checkpointSpec = `lpp: 1
name: counter
context:
  n: {type: int, default: 0}
  seen: {type: list, default: []}
initial: count
states:
  count:
    do: noop
    set: {n: n + 1, seen: 'concat(seen, [n])'}
    next:
      - when: n < 9
        to: count
      - to: done
  done:
    final: true
events:
  GO:
`

// A run restored from a checkpoint (through JSON, as a Temporal run that
// continues as new carries it) ends as the run that went on.
func TestRestoredRunEndsAsTheRunThatWentOn(t *testing.T) {
	for _, at := range []int{0, 1, 4, 8} {
		m := compileSpec(t, checkpointSpec, machine.NewBuiltinRegistry())
		ctx := context.Background()
		whole, err := m.NewRun(nil)
		require.NoError(t, err)
		require.NoError(t, whole.Run(ctx))

		r, err := m.NewRun(nil)
		require.NoError(t, err)
		for range at {
			_, err := r.Step(ctx)
			require.NoError(t, err)
		}
		cp, err := r.Checkpoint()
		require.NoError(t, err)
		b, err := json.Marshal(cp)
		require.NoError(t, err)
		var back machine.Checkpoint
		require.NoError(t, json.Unmarshal(b, &back))
		restored, err := m.Restore(&back)
		require.NoError(t, err)
		require.NoError(t, restored.Run(ctx))
		assert.Equal(t, whole.State(), restored.State(), "after %d steps", at)
		assert.Equal(t, whole.Seq(), restored.Seq(), "after %d steps", at)
		want, _ := json.Marshal(whole.Vars())
		got, _ := json.Marshal(restored.Vars())
		assert.Equal(t, string(want), string(got), "after %d steps", at)
	}
}

// A run holding an event no state has taken yet is not checkpointed: the
// event would be lost.
func TestCheckpointRefusesPendingEvents(t *testing.T) {
	m := compileSpec(t, checkpointSpec, machine.NewBuiltinRegistry())
	r, err := m.NewRun(nil, machine.WithRunID("r1"))
	require.NoError(t, err)
	require.NoError(t, r.Send("GO"))
	_, err = r.Checkpoint()
	require.EqualError(t, err, "cannot checkpoint run r1: events wait to be taken")
}
