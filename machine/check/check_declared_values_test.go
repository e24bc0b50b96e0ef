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

// A write whose action declares the only values it writes (tools.call's
// status: ok, error or blocked) takes those values, not the string's
// domain: a spec that routes on each of them has no deadlock. Before, the
// check gave status "" and "other" too, and reported a deadlock no run can
// reach (exit 1 on a correct spec).
func TestAWriteTakesOnlyTheValuesItsActionDeclares(t *testing.T) {
	reg := spectest.Registry()
	reg.MustRegister(machine.Action{Name: "probe", Run: func(context.Context, *machine.Call) error { return nil },
		Writes: []machine.VarSpec{{Name: "status", Type: spec.TypeString, Values: []any{"ok", "error", "blocked"}}}})
	src := `lpp: 1
name: declared
context:
  status: {type: string, default: ""}
  tries: {type: int, default: 0, range: [0, 3]}
initial: call
states:
  call:
    do: probe
    set: {tries: tries + 1}
    next:
      - {to: done, when: 'status == "ok"'}
      - {to: call, when: 'status == "error" && tries < 3'}
      - {to: done, when: 'status == "blocked"'}
      - {to: failed, when: 'status == "error"'}
  done: {final: true}
  failed: {final: true}
`
	m := spectest.Compile(t, src, reg)
	r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
	require.True(t, r.Passed(), r.Property(check.PropDeadlock).Message)
	var status *check.VarDomain
	for i := range r.Domains {
		if r.Domains[i].Var == "status" {
			status = &r.Domains[i]
		}
	}
	require.NotNil(t, status)
	require.Equal(t, check.VarDomain{Var: "status", Values: []any{"ok", "error", "blocked"}, Source: "declared"}, *status)
}
