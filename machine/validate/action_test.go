package validate

import (
	"context"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TestWritesForVariablesMustBeDeclared checks that the variables an action
// writes by parameter (WritesFor) are validated like its static Writes.
func TestWritesForVariablesMustBeDeclared(t *testing.T) {
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{
		Name:   "test.produce",
		Params: []machine.ParamSpec{{Name: "output", Type: mspec.TypeString, Required: true}},
		WritesFor: func(params map[string]any) []machine.VarSpec {
			name, _ := params["output"].(string)
			if name == "" {
				return nil
			}
			return []machine.VarSpec{{Name: name, Type: mspec.TypeString}}
		},
		Run: func(context.Context, *machine.Call) error { return nil },
	})
	tests := []struct {
		name, ctx, want string
	}{
		{"declared", "  summary: string\n", ""},
		{"undeclared", "  other: string\n", `action "test.produce" writes context variable "summary", which the spec does not declare`},
		{"wrong type", "  summary: int\n", `action "test.produce" writes "summary" as string, but the spec declares it as int`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := "lpp: 1\nname: w\ncontext:\n" + tc.ctx + "initial: a\nstates:\n  a:\n    do: test.produce\n    with: {output: summary}\n    next: done\n  done: {final: true}\n"
			spec, diags := Check("w.yaml", []byte(src), reg)
			got := diags.PrettyAll([]byte(src))
			if tc.want == "" {
				if diags.HasErrors() {
					t.Fatalf("want no errors, got:\n%s", got)
				}
				st := spec.State("a")
				ws := reg.Lookup("test.produce").WritesOf(st)
				if len(ws) != 1 || ws[0].Name != "summary" {
					t.Fatalf("WritesOf = %+v, want summary", ws)
				}
				return
			}
			if !strings.Contains(got, tc.want) {
				t.Fatalf("want %q in:\n%s", tc.want, got)
			}
		})
	}
}
