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

// TestAnOnErrorRouteIsTakenOnlyWhereTheActionCanFail: an action whose
// declaration says NeverFails (the built-in noop, log, wait, emit) fails in
// a run only when a parameter cannot be evaluated; the check takes its
// state's on_error route then and never otherwise, so a defect behind the
// route (here a dead end in recover) is reported only where a run can get
// there. An action that does not say so may fail with any error.
func TestAnOnErrorRouteIsTakenOnlyWhereTheActionCanFail(t *testing.T) {
	const spec = `lpp: 1
name: on_error
context:
  n: {type: int, default: 0}
initial: work
states:
  work:
    ACTION
    next: [done]
    on_error: {to: recover}
  recover:
    next:
      - {to: done, when: last_error == ""}
  done: {final: true}
events:
  PING: {}
`
	tests := []struct {
		name, action string
		stuck        bool
	}{
		{"noop never fails", "do: noop", false},
		{"log with a message only never fails", "do: log\n    with: {message: hello}", false},
		{"log whose value evaluates fails nowhere", "do: log\n    with: {message: n, value: n + 1}", false},
		{"log whose value can fail takes on_error", "do: log\n    with: {message: q, value: 10 % n}", true},
		{"wait with a duration never fails", "do: wait\n    with: {duration: 1ms}", false},
		{"wait whose duration can be refused takes on_error", "do: wait\n    with: {duration: 'string(n - 1) + \"s\"'}", true},
		{"emit never fails", "do: emit\n    with: {event: PING}", false},
		{"an action that does not declare NeverFails can fail", "do: call", true},
		{"fail always fails", "do: fail\n    with: {message: error}", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := spectest.Compile(t, strings.Replace(spec, "ACTION", tt.action, 1), spectest.Registry())
			for _, interpreted := range []bool{false, true} {
				r := check.ModelCheck(context.Background(), m, check.CheckOptions{Interpreted: interpreted})
				text := report.Text(r, report.Options{NoTimes: true})
				deadlock, reach := r.Property(check.PropDeadlock), r.Property(check.PropReachable)
				if tt.stuck {
					require.Equal(t, check.Fail, deadlock.Verdict, text)
					require.Equal(t, `state "recover" is stuck: every guard is false: last_error == "" (last_error="error"), and no event applies`, deadlock.Message, text)
					require.Equal(t, "on_error", deadlock.Trace.Steps[0].Via, text)
				} else {
					require.Equal(t, check.Pass, deadlock.Verdict, text)
					require.Equal(t, check.Fail, reach.Verdict, text)
					require.Equal(t, `no path reaches state "recover" under the values explored`, reach.Message, text)
				}
			}
		})
	}
}
