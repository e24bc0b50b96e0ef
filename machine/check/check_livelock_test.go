package check_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// A loop that steps a counter on every pass never returns to a pair, so the
// trap search did not see it and termination PASSed: only bounds failed, as
// for a loop a larger budget ends. When every read of the counter compares
// it with a constant and the spec steps it one way only, the values past the
// last constant read alike: the check freezes the counter there, and a loop
// that can no longer end is a trap, a livelock. A loop a counter ends (past
// the budget, or through a variable limit, a modulo, a model's reply) stays
// a bounds FAIL with termination PASS.
func TestALoopThatACounterCannotEndIsALivelock(t *testing.T) {
	loop := func(ctx, pset, exit string) string {
		return `lpp: 1
name: loop
limits: {max_transitions: 40}
context:
  c: {type: int, default: 0}
` + ctx + `
initial: start
states:
  start:
    do: noop
    set: {c: 0}
    next: p
  p:
    do: noop
    set: {` + pset + `}
    next: q
  q:
    do: pick
    next:
` + exit + `
      - {to: p}
  done: {final: true}
`
	}
	const dir = `  dir: {type: string, default: ""}`
	cases := []struct {
		name, ctx, set, exit string
		livelock             string // the termination message, "" when it PASSes
	}{
		{"a counter only compared below where it starts", dir, "c: c + 1", `      - {to: done, when: 'c < 0 && dir != ""'}`,
			`from state "start" no final state can be reached: the run is caught in q → p → q until max_transitions; c grows on every pass (c: c + 1) and, past 0, no comparison that reads it changes: a livelock, which no budget ends`},
		{"a counter stepped down past its limit", dir, "c: c - 2", `      - {to: done, when: 'c == 3'}`,
			`from state "start" no final state can be reached: the run is caught in p → q → p until max_transitions; c shrinks on every pass (c: c - 2) and, past 3, no comparison that reads it changes: a livelock, which no budget ends`},
		{"a counter the guard reads with the constant first", dir, "c: 1 + c", `      - {to: done, when: '5 > c && c > 7'}`,
			`from state "start" no final state can be reached: the run is caught in q → p → q until max_transitions; c grows on every pass (c: 1 + c) and, past 7, no comparison that reads it changes: a livelock, which no budget ends`},
		{"a counter that ends the loop past the budget", dir, "c: c + 1", `      - {to: done, when: 'c >= 1000'}`, ""},
		{"a retry the model ends", dir, "c: c + 1", `      - {to: done, when: 'dir == "stop" && c >= 0'}`, ""},
		{"a limit held in a variable", dir + "\n  limit: {type: int, default: -1}", "c: c + 1", `      - {to: done, when: 'c < limit'}`, ""},
		{"a counter read through arithmetic", dir, "c: c + 1", `      - {to: done, when: 'c % 50 == 49'}`, ""},
		{"a counter stepped both ways", dir, "c: c + 1", `      - {to: done, when: 'c < 0'}
      - {to: p, when: 'dir == "back"', set: {c: c - 3}}`, ""},
		{"a counter another variable is computed from", dir + "\n  d: {type: int, default: 0}", "c: c + 1, d: c * 2", `      - {to: done, when: 'd < 0'}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := spectest.Compile(t, loop(tc.ctx, tc.set, tc.exit), spectest.Registry())
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			require.Equal(t, check.Fail, r.Property(check.PropBounds).Verdict, "the budget runs out on some path")
			term := r.Property(check.PropTermination)
			if tc.livelock == "" {
				require.Equal(t, check.Pass, term.Verdict, term.Message)
				require.Contains(t, r.Property(check.PropBounds).Message, "unless a larger budget lets the loop end")
				return
			}
			require.Equal(t, check.Fail, term.Verdict)
			require.Equal(t, tc.livelock, term.Message)
			loop := term.Trace.Loop
			require.Len(t, loop, 3)
			require.Equal(t, loop[0], loop[2])
			require.ElementsMatch(t, []string{"p", "q"}, loop[:2])
			require.True(t, strings.HasSuffix(r.Property(check.PropBounds).Message, ": a livelock (see termination)"), r.Property(check.PropBounds).Message)
		})
	}
}
