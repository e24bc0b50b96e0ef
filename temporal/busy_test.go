package temporal_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/temporal"
)

// inlineLoopSpec makes 150 inline steps (noop and set), none of which
// waits.
const inlineLoopSpec = `lpp: 1
name: inline
context:
  n: {type: int, default: 0}
limits: {max_transitions: 1000}
initial: count
states:
  count:
    do: noop
    set: {n: n + 1}
    next:
      - when: n < 150
        to: count
      - to: done
  done:
    final: true
`

// An execution whose inline steps have taken more than Segment.Busy of the
// worker's time continues as new at the next check (every BusyCheck
// steps), so that no workflow task, nor a replay of the execution, runs
// past the task's timeout (before, a run whose 2,000 inline steps took
// more than 10 s was given the same task again and again and never
// moved); under the bound it does not. Either way it ends as a local run.
func TestAnExecutionBusyPastItsBoundContinuesAsNew(t *testing.T) {
	for _, tc := range []struct {
		name  string
		busy  time.Duration
		execs int
	}{
		{"steps within the bound", time.Hour, 1},
		{"steps past the bound at every check", time.Nanosecond, 4}, // 151 steps: checks at 50, 100, 150
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &testHost{root: t.TempDir()}
			rel := writeSpec(t, h.root, "inline.yaml", inlineLoopSpec)
			local := localRun(t, h, rel, "run-inline")
			s := newScaleEnv(t, h, temporal.Options{Segment: temporal.Segment{Busy: tc.busy}})
			p, execs, err := s.run(startOf(t, h.root, rel, "run-inline", nil))
			require.NoError(t, err)
			assert.Equal(t, tc.execs, execs, "executions")
			assertEndsLikeLocal(t, local, p)
		})
	}
}
