package check_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// The run evaluates an action's expression parameters before the action
// runs, and the built-in emit's payload is the event's: the check
// evaluates them too. Before, an emit with a payload was explored as any
// action (its next taken even when the event it sent applied: a false
// deadlock), and a parameter that could not be evaluated (10 % n with n 0)
// passed "expressions evaluate" while the run failed there.
func TestActionParametersAndEmitPayloadsAreEvaluatedAsTheRunDoes(t *testing.T) {
	tests := []struct {
		name, states string
		fails        map[string]string // property → a part of its message
	}{
		{
			name: "an emitted event with a payload that always applies",
			states: `  a:
    do: emit
    with: {event: GO, payload: {n: "5"}}
    on:
      GO: [{to: done, when: event.payload.n > 2}]
    next: bad
  bad:
    next: [{to: done, when: 'n == 99'}]`,
			fails: map[string]string{check.PropReachable: `no path reaches state "bad"`},
		},
		{
			name: "an emitted event that applies for some payloads only",
			states: `  a:
    do: count
    next: b
  b:
    do: emit
    with: {event: GO, payload: {n: n}}
    on:
      GO: [{to: done, when: event.payload.n > 2}]
    next: bad
  bad:
    next: [{to: done, when: 'n != 2'}]`,
			fails: map[string]string{check.PropDeadlock: `state "bad" is stuck: every guard is false: n != 2 (n=2)`},
		},
		{
			name: "a payload that cannot be evaluated",
			states: `  a:
    do: count
    next: b
  b:
    do: emit
    with: {event: GO, payload: {n: 10 % n}}
    on:
      GO: done
    next: done`,
			fails: map[string]string{check.PropEvaluation: `parameter "payload", key "n" of action "emit" in state "b" cannot be evaluated: integer division by zero: 10 % 0`},
		},
		{
			name: "a payload that cannot be evaluated, with on_error",
			states: `  a:
    do: count
    next: b
  b:
    do: emit
    with: {event: GO, payload: {n: 10 % n}}
    on:
      GO: done
    next: done
    on_error: bad
  bad:
    next: [{to: done, when: 'n == 99'}]`,
			fails: map[string]string{check.PropDeadlock: `state "bad" is stuck`},
		},
		{
			name: "a parameter of another action that cannot be evaluated",
			states: `  a:
    do: count
    next: b
  b:
    do: log
    with: {message: hi, value: 10 % n}
    next: done`,
			fails: map[string]string{check.PropEvaluation: `parameter "value" of action "log" in state "b" cannot be evaluated: integer division by zero: 10 % 0`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := `lpp: 1
name: params
context:
  n: int
events:
  GO:
    payload: {n: int}
initial: a
states:
` + tt.states + `
  done: {final: true}
`
			m := spectest.Compile(t, src, spectest.Registry())
			for _, interpreted := range []bool{false, true} {
				r := check.ModelCheck(context.Background(), m, check.CheckOptions{Interpreted: interpreted})
				for _, p := range r.Properties {
					want, fails := tt.fails[p.Property]
					switch {
					case !fails && p.Verdict != check.Pass:
						t.Errorf("interpreted %v: %s %s %q, want PASS", interpreted, p.Property, p.Verdict, p.Message)
					case fails && (p.Verdict != check.Fail || !strings.Contains(p.Message, want)):
						t.Errorf("interpreted %v: %s %s %q, want FAIL with %q", interpreted, p.Property, p.Verdict, p.Message, want)
					}
				}
			}
		})
	}
}
