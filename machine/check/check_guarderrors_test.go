package check_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// With guard_errors: as_false (which import lpp writes: lpp takes a gate it
// cannot evaluate as false), a guard the run cannot evaluate is false and
// the run goes on to the next transition; the check takes it so too. Before,
// it reported "expressions evaluate" FAIL for a spec whose runs complete,
// and never explored where the run goes.
func TestAGuardThatCannotBeEvaluatedIsFalseUnderGuardErrorsAsFalse(t *testing.T) {
	tests := []struct {
		name, guardErrors string
		fails             map[string]string // property → a part of its message
	}{
		{name: "as_false: the next transition is taken, on next and on events", guardErrors: "as_false",
			fails: map[string]string{check.PropDeadlock: `state "stuck" is stuck`, check.PropReachable: `no path reaches state "done"`}},
		{name: "fail (the default): the run stops, the check says so", guardErrors: "fail",
			fails: map[string]string{check.PropEvaluation: `guard "10 % n > 1" of state "a" cannot be evaluated: integer division by zero`, check.PropReachable: `no path reaches states ["w", "stuck", "done"]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := `lpp: 1
name: gerr
guard_errors: ` + tt.guardErrors + `
context:
  n: {type: int, default: 0}
events:
  GO:
    payload: {k: int}
initial: a
states:
  a:
    next:
      - {to: done, when: 10 % n > 1}
      - to: w
  w:
    on:
      GO:
        - {to: done, when: 10 % n > 1}
        - to: stuck
  stuck:
    next: [{to: done, when: n == 99}]
  done: {final: true}
`
			m := spectest.Compile(t, src, spectest.Registry())
			for _, interpreted := range []bool{false, true} {
				r := check.ModelCheck(context.Background(), m, check.CheckOptions{Interpreted: interpreted})
				for _, p := range r.Properties {
					want, fails := tt.fails[p.Property]
					if fails {
						assert.True(t, p.Verdict == check.Fail && strings.Contains(p.Message, want), "interpreted %v: %s %s %q, want FAIL with %q", interpreted, p.Property, p.Verdict, p.Message, want)
					} else {
						assert.Equal(t, check.Pass, p.Verdict, "interpreted %v: %s %q", interpreted, p.Property, p.Message)
					}
				}
			}
		})
	}
}
