package machine_test

import (
	"context"
	"testing"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
)

const nullablePayloadSpec = `
lpp: 1
name: np
context:
  got: {type: string, nullable: true, default: "unset"}
initial: ask
states:
  ask:
    on:
      SUBMIT:
        - {to: none, when: event.payload.x == nil, set: {got: event.payload.x}}
        - {to: some, set: {got: event.payload.x}}
  none: {final: true}
  some: {final: true}
events:
  SUBMIT:
    payload: {x: {type: string, required: false, nullable: true}}
`

// TestANullablePayloadFieldTheEventLacksIsNull: a payload field declared
// nullable is null when the payload leaves it out (not ""), a guard tells
// it with == nil, a set stores the null, and the model check sends it too.
func TestANullablePayloadFieldTheEventLacksIsNull(t *testing.T) {
	tests := []struct {
		name    string
		payload map[string]any
		state   string
		got     any
	}{
		{"left out", nil, "none", nil},
		{"given", map[string]any{"x": "v"}, "some", "v"},
		{"given as null", map[string]any{"x": nil}, "none", nil},
	}
	m := compileSpec(t, nullablePayloadSpec, machine.NewBuiltinRegistry())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := m.NewRun(nil)
			if _, ok := machine.AsPause(r.Run(context.Background())); !ok {
				t.Fatal("want a pause for SUBMIT")
			}
			if err := r.FireEvent(context.Background(), "SUBMIT", tt.payload); err != nil {
				t.Fatal(err)
			}
			if err := r.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if r.State() != tt.state || r.Var("got") != tt.got {
				t.Errorf("state %s, got %#v; want %s, %#v", r.State(), r.Var("got"), tt.state, tt.got)
			}
		})
	}
	rep := check.ModelCheck(context.Background(), m, check.CheckOptions{})
	if p := rep.Property(check.PropReachable); p == nil || p.Verdict != check.Pass {
		t.Errorf("check: every state reachable = %+v (the check must send SUBMIT without x)", p)
	}
}
