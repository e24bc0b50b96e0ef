package check_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/check/report"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// TestALongCounterexampleIsPrintedByItsFirstAndLastSteps: a loop only the
// budget ends (an unbounded counter: a livelock) fails bounds with a path
// of max_transitions steps; the text report shows its first 20 and last 10
// steps and how many it left out, the report's trace (--json) keeps all.
func TestALongCounterexampleIsPrintedByItsFirstAndLastSteps(t *testing.T) {
	m := spectest.Compile(t, `lpp: 1
name: livelock
limits: {max_transitions: 1000}
context:
  c: {type: int, default: 0}
initial: p
states:
  p:
    next:
      - {to: done, when: c < 0}
      - {to: q, set: {c: c + 1}}
  q:
    next: [p]
  done: {final: true}
`, nil)
	r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
	p := r.Property(check.PropBounds)
	require.Equal(t, check.Fail, p.Verdict)
	require.Len(t, p.Trace.Steps, 1000)
	text := report.Text(r, report.Options{NoTimes: true})
	require.Contains(t, text, "          shortest counterexample (1000 steps):\n"+
		"             1. p → q    next[1] at test.yaml:11:9; set c=1\n")
	require.Contains(t, text, "            20. q → p    next[0] at test.yaml:13:12\n"+
		"          … 970 steps left out (21 to 990; --json lists every step) …\n"+
		"           991. p → q    next[1] at test.yaml:11:9; set c=496\n")
	require.Contains(t, text, "          1000. q → p    next[0] at test.yaml:13:12\n")
	require.Less(t, strings.Count(text, "\n"), 60, text)
}
