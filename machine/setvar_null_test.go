package machine_test

import (
	"context"
	"testing"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TestActionsStoreNullIntoNullableVariables: an action's SetVar stores
// null into a nullable variable (an imported L++ unit returns {"error":
// None}), and still refuses it for one that is not nullable.
func TestActionsStoreNullIntoNullableVariables(t *testing.T) {
	tests := []struct {
		name, decl, want string
	}{
		{"nullable", `{type: string, nullable: true, default: "x"}`, ""},
		{"not nullable", `string`, `action failed: clear in state "s": cannot set "e": null is not a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := machine.NewBuiltinRegistry()
			reg.MustRegister(machine.Action{
				Name:   "clear",
				Writes: []machine.VarSpec{{Name: "e", Type: mspec.TypeString}},
				Run:    func(_ context.Context, c *machine.Call) error { return c.SetVar("e", nil) },
			})
			m := compileSpec(t, "lpp: 1\nname: t\ncontext: {e: "+tt.decl+"}\ninitial: s\nstates:\n  s: {do: clear, next: done}\n  done: {final: true}\n", reg)
			r, _ := m.NewRun(nil)
			err := r.Run(context.Background())
			if tt.want == "" {
				if err != nil || r.Var("e") != nil {
					t.Fatalf("err %v, e = %#v; want no error and e null", err, r.Var("e"))
				}
				return
			}
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v, want %s", err, tt.want)
			}
		})
	}
}
