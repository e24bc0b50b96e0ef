package check_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/internal/spectest"
	"github.com/lppctl/lppctl/machine/spec"
)

// A number an action writes and a guard compares through arithmetic with
// constants takes the value where the two sides meet (and its
// neighbours): the branch is explored, the defect behind it found, and the
// counterexample replays. Before, the variable took its default and
// default+1 only (nothing was "compared with" it), and the branch was
// reported unreachable.
func TestANumberComparedThroughArithmeticTakesTheValueWhereTheSidesMeet(t *testing.T) {
	tests := []struct{ typ, guard string }{
		{"int", "n * 2 > 10"},
		{"int", "n + 5 == 12"},
		{"int", "abs(n) > 40"},
		{"int", "-n > 3"},
		{"int", "10 - n == 4"},
		{"int", "(n + 1) * 3 == 12"},
		{"int", "n * 2 == 11 || n * 2 > 14"},
		{"int", "n / 4 >= 2.5"},
		{"float", "n * 100 >= 75.5"},
		{"float", "2.0 * n - 1 < -7"},
	}
	for _, tt := range tests {
		t.Run(tt.guard, func(t *testing.T) {
			src := `lpp: 1
name: arith
context:
  n: {type: ` + tt.typ + `, default: 0}
  seen: {type: bool, default: false}
initial: ask
states:
  ask:
    do: measure
    next:
      - {to: hit, when: '` + tt.guard + `'}
      - {to: done}
  hit:
    do: noop
    next:
      - {to: done, when: seen}
  done: {final: true}
`
			var write any
			reg := spectest.Registry()
			reg.MustRegister(machine.Action{Name: "measure",
				Run: func(_ context.Context, c *machine.Call) error { return c.SetVar("n", write) },
				WritesFor: func(map[string]any) []machine.VarSpec {
					return []machine.VarSpec{{Name: "n", Type: spec.TypeAny}}
				}})
			m := spectest.Compile(t, src, reg)
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			require.Equal(t, check.Pass, r.Property(check.PropReachable).Verdict, r.Property(check.PropReachable).Message)
			dl := r.Property(check.PropDeadlock)
			require.Equal(t, check.Fail, dl.Verdict)
			require.Len(t, dl.Trace.Steps, 2)
			write = dl.Trace.Steps[0].Wrote["n"]

			run, err := m.NewRun(nil)
			require.NoError(t, err)
			require.ErrorContains(t, run.Run(context.Background()), `no transition holds in state "hit"`)
		})
	}
}
