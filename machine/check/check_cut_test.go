package check_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// cutSpec: the action of a writes n, one of 100 values, so the initial pair
// has 100 successors, all new; each b moves to the b of the next n (a pair
// seen before) but b with n == 99, which reaches done, last. A search that stops only when
// a pair beyond the bound turns up expands 99 b pairs (99 more moves) after
// the store is full.
const cutSpec = `lpp: 1
name: cut
context:
  n: {type: int, default: 0, range: [0, 99]}
initial: a
states:
  a:
    do: count
    next: [b]
  b:
    next:
      - {to: done, when: n == 99}
      - {to: b, set: {n: n + 1}}
  done: {final: true}
`

// TestMaxStatesStopsTheSearchWhenTheStoreIsFull counts the moves explored
// (Stats.Transitions) when the check stops at MaxStates: once the store
// holds MaxStates pairs nothing more is expanded, so the count is the moves
// it took to find them.
func TestMaxStatesStopsTheSearchWhenTheStoreIsFull(t *testing.T) {
	m := spectest.Compile(t, cutSpec, spectest.Registry())
	full := check.ModelCheck(context.Background(), m, check.CheckOptions{})
	require.True(t, full.Complete, full.Stopped)
	require.Equal(t, 102, full.Stats.States, "a, b for each n, done")
	tests := []struct {
		name      string
		maxStates int
		wantMoves int // moves out of a until the store is full
	}{
		{"full after the last move of a", 101, 100},
		{"full in the middle of a's moves", 50, 49},
		{"full with the initial pair", 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{MaxStates: tt.maxStates})
			assert.Equal(t, fmt.Sprintf("max-states: %d distinct (state, context) pairs explored; raise --max-states", tt.maxStates), r.Stopped)
			assert.Equal(t, tt.maxStates, r.Stats.States)
			assert.Equal(t, tt.wantMoves, r.Stats.Transitions, "moves explored: none after the store was full")
			assert.Equal(t, 0, countVerdicts(r, check.Fail))
		})
	}
}

func countVerdicts(r *check.CheckReport, v check.Verdict) int {
	n := 0
	for _, p := range r.Properties {
		if p.Verdict == v {
			n++
		}
	}
	return n
}
