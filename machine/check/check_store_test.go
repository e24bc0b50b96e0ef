package check_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// TestTheStoreFindsPairsStoredBeforeItWidened: n counts up to 70,000 (more
// values than 16-bit ids hold, so the store moves its records to 32-bit
// words on the way), then b sends the run back to a with n = 1, a pair
// stored before the store widened: it must be found, not stored again.
func TestTheStoreFindsPairsStoredBeforeItWidened(t *testing.T) {
	m := spectest.Compile(t, `lpp: 1
name: wide
limits: {max_transitions: 1000000}
context:
  n: {type: int, default: 0, range: [0, 70000]}
initial: a
states:
  a:
    next:
      - {to: b, when: n == 70000, set: {n: 0}}
      - {to: a, set: {n: n + 1}}
  b:
    next:
      - {to: a, set: {n: 1}}
  done: {final: true}
`, nil)
	r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
	require.True(t, r.Complete, r.Stopped)
	assert.Equal(t, 70002, r.Stats.States, "a for each n, and b")
	assert.Equal(t, 70002, r.Stats.Transitions, "one move out of each pair")
	assert.Equal(t, check.Fail, r.Property(check.PropTermination).Verdict, "the run cycles for ever")
}
