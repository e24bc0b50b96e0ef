package check_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// A spec that reads the clock takes the branch the time of the check
// gives: `now().Unix() % 2 == 0` led to a PASS of "no deadlock" at an even
// second and a FAIL at an odd one, and to "no path reaches" the other
// branch. The check cannot try every time, so what it did not see fail is
// UNKNOWN, naming the expression, whatever the time (a state it reached is
// reached, and a FAIL is a run); a spec that does not
// read the clock is decided as before.
func TestASpecThatReadsTheClockIsNotPassed(t *testing.T) {
	tests := []struct{ name, start, guard, where string }{
		{"a set", "do: noop\n    set: {stamp: now().Unix()}", "stamp % 2 == 0", `the set of stamp (state "start")`},
		{"a guard", "do: noop\n    set: {stamp: 1}", "now().Unix() % 2 == 0", `a guard of state "start" (now().Unix() % 2 == 0)`},
		{"a parameter", "do: wait\n    with: {duration: 'string(now().Unix() % 2) + \"ms\"'}", "stamp % 2 == 0", `parameter "duration" of state "start"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := `lpp: 1
name: clock
context:
  stamp: {type: int, default: 0}
initial: start
states:
  start:
    ` + tt.start + `
    next:
      - {to: done, when: '` + tt.guard + `'}
      - {to: done}
  done: {final: true}
`
			m := spectest.Compile(t, src, spectest.Registry())
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			for _, p := range r.Properties {
				if p.Property == check.PropInvariants || p.Property == check.PropFinalRequires || p.Property == check.PropReachable {
					require.Equal(t, check.Pass, p.Verdict, p.Property) // none declared; every state was reached
					continue
				}
				require.Equal(t, check.Unknown, p.Verdict, p.Property)
				require.Contains(t, p.Message, "not every value was tried ("+tt.where+" calls now(): the check read the clock once, a run reads it at another time); to decide it, compute the time in an action (its write takes every value) or take it as an input (--inputs)")
			}
		})
	}
	t.Run("the clock only logged, or stored and never read", func(t *testing.T) {
		m := spectest.Compile(t, `lpp: 1
name: logged
context:
  started: {type: string, default: ""}
initial: start
states:
  start:
    do: log
    with: {message: at, value: 'now().Unix()'}
    set: {started: 'now().Format("2006-01-02")'}
    next: done
  done: {final: true}
`, spectest.Registry())
		r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
		require.True(t, r.Passed())
		require.Zero(t, r.Unknowns())
	})
	t.Run("no clock", func(t *testing.T) {
		m := spectest.Compile(t, `lpp: 1
name: noclock
context:
  now: {type: int, default: 0}
initial: start
states:
  start:
    do: log
    with: {message: m, value: now}
    next:
      - {to: done, when: 'now % 2 == 0'}
  done: {final: true}
`, spectest.Registry())
		r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
		require.True(t, r.Passed())
		require.Zero(t, r.Unknowns())
	})
}
