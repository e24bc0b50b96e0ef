package check_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// A loop that changes a value on every pass (p → q → p with c + 1, left
// only when c < 0) never returns to a pair, so it is no trap; it spends
// the budget, and the bounds FAIL names the cycle and what changes on it,
// as a possible livelock. Before, the message said only that the budget
// ran out.
func TestALoopThatChangesAValueOnEveryPassIsNamedAsAPossibleLivelock(t *testing.T) {
	m := spectest.Compile(t, `lpp: 1
name: livelock
limits: {max_transitions: 20}
context:
  c: {type: int, default: 0}
  d: {type: int, default: 0}
initial: start
states:
  start:
    do: noop
    next: p
  p:
    do: noop
    set: {c: c + 1}
    next: q
  q:
    do: noop
    set: {d: d - 1}
    next:
      - {to: done, when: 'c % 1000 == 999'}
      - {to: p}
  done: {final: true}
`, spectest.Registry())
	r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
	b := r.Property(check.PropBounds)
	require.Equal(t, check.Fail, b.Verdict)
	require.Equal(t, check.Pass, r.Property(check.PropTermination).Verdict, "c %% 1000 is not a comparison with a constant: the loop may end")
	require.Equal(t, `the run can make max_transitions (20) transitions without ending: it would fail with "transition budget exhausted" in state "q"; it goes round q → p → q, c, d changing on every pass: a livelock, unless a larger budget lets the loop end`, b.Message)
	require.Len(t, b.Trace.Steps, 20)
}
