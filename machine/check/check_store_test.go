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

// TestTheStoreFindsPairsStoredBeforeItWidened: n counts up to top (more
// values than 8-bit ids hold, then more than 16-bit ids hold, so the store
// re-encodes its records in wider words on the way), then b sends the run
// back to a with n = 1, a pair stored before the store widened: it must be
// found, not stored again.
func TestTheStoreFindsPairsStoredBeforeItWidened(t *testing.T) {
	for _, top := range []int{300, 70000} {
		t.Run(fmt.Sprint(top), func(t *testing.T) {
			m := spectest.Compile(t, fmt.Sprintf(`lpp: 1
name: wide
limits: {max_transitions: 1000000}
context:
  n: {type: int, default: 0, range: [0, %[1]d]}
initial: a
states:
  a:
    next:
      - {to: b, when: n == %[1]d, set: {n: 0}}
      - {to: a, set: {n: n + 1}}
  b:
    next:
      - {to: a, set: {n: 1}}
  done: {final: true}
`, top), nil)
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			require.True(t, r.Complete, r.Stopped)
			assert.Equal(t, top+2, r.Stats.States, "a for each n, and b")
			assert.Equal(t, top+2, r.Stats.Transitions, "one move out of each pair")
			assert.Equal(t, check.Fail, r.Property(check.PropTermination).Verdict, "the run cycles for ever")
		})
	}
}
