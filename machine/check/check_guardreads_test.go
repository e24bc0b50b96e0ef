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

// A list or a map read through `len(x) in [...]`, a key two levels deep or
// `in` on a key takes a value where the guard holds: the branch is
// explored and the defect behind it found, and the counterexample replays.
// Before, only the default, the empty value and one item were tried: the
// branch was reported unreachable and its defect missed.
func TestAListOrMapReadThroughInOrADeepKeyTakesAValueWhereTheGuardHolds(t *testing.T) {
	for _, tc := range []struct{ typ, guard string }{
		{"list", `len(x) in [2, 5]`},
		{"map", `len(x) in [3]`},
		{"map", `x.a.b == "q"`},
		{"map", `x?.a?.n > 4`},
		{"map", `"urgent" in x.tags`},
		{"list", `x[0].kind == "bug"`},
		{"map", `len(x.items) >= 2`},
	} {
		t.Run(tc.guard, func(t *testing.T) {
			src := `lpp: 1
name: reads
context:
  x: {type: ` + tc.typ + `}
initial: ask
states:
  ask:
    do: answer
    next:
      - {to: hit, when: '` + tc.guard + `'}
      - {to: done}
  hit:
    do: noop
    next:
      - {to: done, when: 'len(x) == 0'}
  done: {final: true}
`
			var write any
			reg := spectest.Registry()
			reg.MustRegister(machine.Action{Name: "answer",
				Run:    func(_ context.Context, c *machine.Call) error { return c.SetVar("x", write) },
				Writes: []machine.VarSpec{{Name: "x", Type: spec.Type(tc.typ)}}})
			m := spectest.Compile(t, src, reg)
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			require.Equal(t, check.Pass, r.Property(check.PropReachable).Verdict, r.Property(check.PropReachable).Message)
			dl := r.Property(check.PropDeadlock)
			require.Equal(t, check.Fail, dl.Verdict, dl.Message)
			require.Len(t, dl.Trace.Steps, 2)
			write = dl.Trace.Steps[0].Wrote["x"]

			run, err := m.NewRun(nil)
			require.NoError(t, err)
			require.ErrorContains(t, run.Run(context.Background()), `no transition holds in state "hit"`)
		})
	}
}
