package check_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// checkProps model-checks src and returns each property's verdict and
// message.
func checkProps(t *testing.T, src string) map[string]check.PropertyResult {
	t.Helper()
	m := spectest.Compile(t, src, spectest.Registry())
	r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
	out := map[string]check.PropertyResult{}
	for _, p := range r.Properties {
		out[p.Property] = p
	}
	return out
}

// The values the check sends a payload field of type any are the ones a
// run can get: null only for an optional field without a default (a run
// refuses null for a required one: `payload field "x" is null, but it is
// required`), and a number with a fraction, which a guard on numbers lets
// through and an int variable refuses. A set that cannot store a value is
// reported with the run's words.
func TestTheCheckSendsAnAnyFieldTheValuesARunCanGet(t *testing.T) {
	spec := func(field, guard, target string) string {
		return `lpp: 1
name: anyvals
context:
  s: string
  k: int
initial: wait
states:
  wait:
    on:
      GO:
        - to: done
          when: '` + guard + `'
          set: {` + target + `: event.payload.x}
        - to: wait
  done: {final: true}
events:
  GO:
    payload:
      x: ` + field + `
`
	}
	for _, tt := range []struct {
		name, field, guard, target string
		fails                      string // the "expressions evaluate" message; "" for a PASS
	}{
		{"a required field is never null", "any", `type(event.payload.x) in ["string", "nil"]`, "s", ""},
		{"a field with a default is never null", "{type: any, default: a}", `type(event.payload.x) in ["string", "nil"]`, "s", ""},
		{"an optional field without a default may be null, reported as the run reports it", "{type: any, required: false}", `type(event.payload.x) in ["string", "nil"]`, "s",
			"set of event \"GO\": s: the value is null, and s is not nullable: declare it `nullable: true`, or give a value for null: `event.payload.x ?? \"\"`"},
		{"a number with a fraction past an int guard", "any", `type(event.payload.x) in ["int", "float"] && event.payload.x >= 1`, "k",
			`set of event "GO": k: float 1.5 is not an int`},
		{"a number with a fraction past any number", "any", `type(event.payload.x) in ["int", "float"]`, "k",
			`set of event "GO": k: float 0.5 is not an int`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			props := checkProps(t, spec(tt.field, tt.guard, tt.target))
			eval := props[check.PropEvaluation]
			if tt.fails == "" {
				require.Equal(t, check.Pass, eval.Verdict, eval.Message)
				return
			}
			require.Equal(t, check.Fail, eval.Verdict)
			require.Equal(t, tt.fails, eval.Message)
		})
	}
}

// An event only an action emits, with a payload computed from the
// context, is not delivered with the values of its fields' domains: that
// there are more than the check tries does not make every property
// UNKNOWN (it did: "not every value was tried (event GO: the first 64 of
// its payloads)"). Delivered from outside, it still does.
func TestAnEventOnlyEmittedIsNotReportedAsSampled(t *testing.T) {
	spec := func(then string) string {
		return `lpp: 1
name: emitany
context:
  n: {type: int, nullable: true}
initial: a
states:
  a:
    do: emit
    with:
      event: GO
      payload: {x: n, "y": '"s"'}
    on:
      GO: ` + then + `
  b:
    on:
      GO: done
  done: {final: true}
events:
  GO:
    payload:
      x: {type: any, required: false}
      "y": any
`
	}
	props := checkProps(t, spec("done"))
	for _, p := range []string{check.PropDeadlock, check.PropTermination, check.PropEvaluation} {
		require.Equal(t, check.Pass, props[p].Verdict, "%s: %s", p, props[p].Message)
	}
	props = checkProps(t, spec("b")) // b waits for GO from outside
	require.Equal(t, check.Unknown, props[check.PropEvaluation].Verdict)
	require.Contains(t, props[check.PropEvaluation].Message, "event GO: the first 64 of its payloads")
}

// A parameter's value is checked as the run checks it before the action
// runs: a duration's format (`string(n - 1) + "s"` is -1s for n 0) and a
// number that is not finite. Both were PASS, and the run failed there.
func TestTheCheckChecksAParameterValueAsTheRunDoes(t *testing.T) {
	for _, tt := range []struct {
		name, with, fails string
	}{
		{"a negative duration", `{duration: 'string(n - 1) + "s"'}`,
			`parameter "duration" of action "wait" in state "c": -1s is negative, not a duration like 500ms, 2s or 1m30s`},
		{"a duration of a good value", `{duration: 'string(n + 1) + "ms"'}`, ""},
		{"a value that is not a finite number", `{message: ratio, value: '1.0 / float(n)'}`,
			`parameter "value" of action "log" in state "c": the value is +Inf, not a finite number`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := `lpp: 1
name: params
context:
  n: {type: int, range: [0, 3]}
initial: c
states:
  c:
    do: ` + map[bool]string{true: "wait", false: "log"}[strings.Contains(tt.with, "duration")] + `
    with: ` + tt.with + `
    next: done
  done: {final: true}
`
			eval := checkProps(t, src)[check.PropEvaluation]
			if tt.fails == "" {
				require.Equal(t, check.Pass, eval.Verdict, eval.Message)
				return
			}
			require.Equal(t, check.Fail, eval.Verdict)
			require.Equal(t, tt.fails, eval.Message)
		})
	}
}
