package check_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/check/report"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// TestAStateWithNextIsStuckWhenOnlyAnEventFromOutsideCouldMoveIt: a state
// with next does not wait for events (spec.md, "How a spec runs"): when
// none of its guards holds, a run with no event pending fails there, even
// if an event such as a RESET from "*" would apply. The check reports the
// deadlock (with the runs that had the event pending still explored); a
// waiting state (on: without next) that an event can move is no deadlock.
func TestAStateWithNextIsStuckWhenOnlyAnEventFromOutsideCouldMoveIt(t *testing.T) {
	const withNext = `lpp: 1
name: pending
context:
  n: {type: int, default: 0, range: [0, 2]}
initial: work
states:
  work:
    do: count
    next:
      - {to: done, when: n < 2}
  done: {final: true}
events:
  RESET: {from: "*", to: work}
`
	const waiting = `lpp: 1
name: pending
context:
  n: {type: int, default: 0, range: [0, 2]}
initial: work
states:
  work:
    do: count
    on:
      GO: [{to: done, when: n < 2}]
  done: {final: true}
events:
  RESET: {from: "*", to: work}
`
	tests := []struct {
		name, src string
		verdict   check.Verdict
		msg       string
		steps     int
	}{
		{"a state with next whose guards are false", withNext, check.Fail,
			`state "work" is stuck: every guard is false: n < 2 (n=2); only an event pending from outside (RESET) could move it, and a state with next does not wait for one`, 1},
		{"a waiting state an event moves", waiting, check.Pass, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := spectest.Compile(t, tt.src, spectest.Registry())
			for _, interpreted := range []bool{false, true} {
				r := check.ModelCheck(context.Background(), m, check.CheckOptions{Interpreted: interpreted})
				p := r.Property(check.PropDeadlock)
				require.Equal(t, tt.verdict, p.Verdict, report.Text(r, report.Options{NoTimes: true}))
				if tt.verdict == check.Fail {
					require.Equal(t, tt.msg, p.Message)
					require.Len(t, p.Trace.Steps, tt.steps)
					require.Equal(t, map[string]any{"n": 2}, p.Trace.Steps[0].Wrote)
				}
			}
		})
	}
}
