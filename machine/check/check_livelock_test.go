package check_test

import (
	"context"
	"os"
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
		{"a limit held in a variable nothing writes", dir + "\n  limit: {type: int, default: -1}", "c: c + 1", `      - {to: done, when: 'c < limit'}`,
			`from state "start" no final state can be reached: the run is caught in p → q → p until max_transitions; c grows on every pass (c: c + 1) and, past -1 (limit), no comparison that reads it changes: a livelock, which no budget ends`},
		{"a limit of constants compared with a shifted counter", dir + "\n  limit: {type: int, default: 2}", "c: c + 1", `      - {to: done, when: 'c + 2 < limit * 2 - 5'}`,
			`from state "start" no final state can be reached: the run is caught in p → q → p until max_transitions; c grows on every pass (c: c + 1) and, past -3 (limit * 2 - 5), no comparison that reads it changes: a livelock, which no budget ends`},
		{"a limit held in a variable the budget cuts first", dir + "\n  limit: {type: int, default: 1000}", "c: c + 1", `      - {to: done, when: 'c >= limit'}`, ""},
		{"a limit a caller sets, too low for some runs", dir + "\n  limit: {type: int, default: 1, input: true}", "c: c + 1", `      - {to: done, when: 'c < limit'}`,
			`from state "start" no final state can be reached: the run is caught in q → p → q until max_transitions; c grows on every pass (c: c + 1) and, past 1 (limit), no comparison that reads it changes: a livelock, which no budget ends`},
		{"a limit an event sets", dir + "\n  limit: {type: int, default: -1}\nevents:\n  RAISE: {from: [q], to: p, set: {limit: 1000}}", "c: c + 1", `      - {to: done, when: 'c < limit'}`, ""},
		{"a limit read with a counter another set changes", dir + "\n  limit: {type: int, default: -1}", "c: c + 1, limit: limit - 1", `      - {to: done, when: 'c < limit'}`, ""},
		{"a counter read through a modulo that never meets the guard", dir, "c: c + 2", `      - {to: done, when: 'c % 2 == 1'}`,
			`from state "start" no final state can be reached: the run is caught in p → q → p until max_transitions; c grows on every pass (c: c + 2) and, past -1, what reads it depends only on c % 2: a livelock, which no budget ends`},
		{"a counter read through two moduli and a bound", dir, "c: c - 1", `      - {to: done, when: 'c % 2 == 0 && c % 3 == 0 && c > 0'}`,
			`from state "start" no final state can be reached: the run is caught in q → p → q → p → q → p → q → p → q → p → q → p → q until max_transitions; c shrinks on every pass (c: c - 1) and, past 0, what reads it depends only on c % 2, c % 3: a livelock, which no budget ends`},
		{"a list that grows past its limit", dir + "\n  items: {type: list, default: []}\n  n: {type: int, default: 0}", `items: 'concat(items, ["x"])'`, `      - {to: done, when: 'len(items) < n'}`,
			`from state "start" no final state can be reached: the run is caught in q → p → q until max_transitions; len(items) grows on every pass (items: concat(items, ["x"])) and, past 0 (n), no comparison that reads it changes: a livelock, which no budget ends`},
		{"a list the budget cuts first", dir + "\n  items: {type: list, default: []}", `items: 'concat(items, ["x"])'`, `      - {to: done, when: 'len(items) >= 100'}`, ""},
		{"a list whose items a guard reads", dir + "\n  items: {type: list, default: []}", `items: 'concat(items, [c])'`, `      - {to: done, when: '15 in items'}`, ""},
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
			require.Equal(t, loop[0], loop[len(loop)-1])
			require.Subset(t, []string{"p", "q"}, loop)
			require.True(t, strings.HasSuffix(r.Property(check.PropBounds).Message, ": a livelock (see termination)"), r.Property(check.PropBounds).Message)
		})
	}
}

// The path that spends the budget is one of many, and the search looked
// only at the variables it changes at its end: in the repository's
// retry_loop with a loop seeded before flaky_call, that path ends with an
// outside RESET (…, lv, lv, attempt), which changes nothing on every pass,
// so termination PASSed, though every run that enters lv (a RESET leads
// back to it) is caught there. The search now holds every loop variable of
// the spec.
func TestALivelockIsFoundWhenTheBudgetsPathEndsWithAnEventFromOutside(t *testing.T) {
	src, err := os.ReadFile("../../specs/examples/retry_loop.yaml")
	require.NoError(t, err)
	s := strings.Replace(string(src), "      - to: flaky_call\n", "      - to: lv\n", 1)
	s = strings.Replace(s, "  errors:      {type: list, default: []}\n", "  errors:      {type: list, default: []}\n  c:           {type: int, default: 0}\n", 1)
	s = strings.Replace(s, "  done:\n    final: true\n", `  done:
    final: true
  lv:
    do: noop
    set: {c: c + 1}
    next:
      - {to: out, when: c < 0}
      - {to: lv}
  out:
    do: noop
    next: flaky_call
`, 1)
	require.Contains(t, s, "  lv:\n")
	m := spectest.Compile(t, s, spectest.Registry())
	r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
	b := r.Property(check.PropBounds)
	require.Equal(t, check.Fail, b.Verdict)
	require.NotContains(t, b.Message, "it goes round", "the budget's path does not end going round the loop")
	term := r.Property(check.PropTermination)
	require.Equal(t, check.Fail, term.Verdict, term.Message)
	require.Contains(t, term.Message, "c grows on every pass (c: c + 1) and, past 0, no comparison that reads it changes: a livelock, which no budget ends")
	require.True(t, strings.HasSuffix(b.Message, "; a livelock (see termination)"), b.Message)
}
