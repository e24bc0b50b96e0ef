package actions

import (
	"context"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/validate"
)

// checkerSpec model-checks the spec named by target with spec.check.
const checkerSpec = `
lpp: 1
name: checker
context:
  target: {type: string, default: ""}
  ok:     {type: bool, default: false}
  report: {type: string, default: ""}
initial: check
states:
  check:
    do: spec.check
    with: {path: target, ok: ok, report: report}
    next: [done]
  done: {final: true}
`

func TestSpecCheck(t *testing.T) {
	tests := []struct {
		name   string
		spec   string
		ok     bool
		report []string
	}{
		{
			name: "a machine that holds every property",
			spec: "lpp: 1\nname: fine\ncontext:\n  n: {type: int, default: 0}\ninitial: a\nstates:\n  a: {do: noop, next: [{to: done, when: n == 0}, {to: done}]}\n  done: {final: true}\n",
			ok:   true, report: []string{"PASS    no deadlock", "PASS    termination (no trap)"},
		},
		{
			name: "a deadlock validation cannot see, with its counterexample",
			spec: "lpp: 1\nname: stuck\ncontext:\n  n: {type: int, default: 0}\ninitial: a\nstates:\n  a: {do: noop, next: [{to: done, when: n > 0}]}\n  done: {final: true}\n",
			ok:   false, report: []string{"FAIL    no deadlock", "gen/demo/demo.yaml:7:3: "},
		},
		{
			name: "a spec that does not decode is a failed check with its diagnostics",
			spec: "lpp: 1\nname: broken\ninitial: a\nstates:\n  a: {do: nope}\n",
			ok:   false, report: []string{`gen/demo/demo.yaml:5:11: error: unknown action "nope"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := sandboxProject(t, map[string]string{"demo.yaml": tt.spec})
			d := &Deps{Root: root}
			reg := machine.NewBuiltinRegistry()
			if err := Register(reg, d); err != nil {
				t.Fatal(err)
			}
			spec, diags := validate.Check("checker.yaml", []byte(checkerSpec), reg)
			if diags.HasErrors() {
				t.Fatal(diags.PrettyAll([]byte(checkerSpec)))
			}
			m, err := machine.Compile(spec, reg)
			if err != nil {
				t.Fatal(err)
			}
			r, err := m.NewRun(map[string]any{"target": "gen/demo/demo.yaml"})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			report, _ := r.Var("report").(string)
			if r.Var("ok") != tt.ok {
				t.Errorf("ok = %v, want %v", r.Var("ok"), tt.ok)
			}
			for _, want := range tt.report {
				if !strings.Contains(report, want) {
					t.Errorf("the report lacks %q:\n%s", want, report)
				}
			}
		})
	}
}
