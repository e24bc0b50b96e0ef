package actions

import (
	"context"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/validate"
)

const inputSpec = `
lpp: 1
name: ask
context:
  target: {type: string, default: ""}
events:
  START: {}
  SUBMIT:
    payload: {target: string}
initial: idle
states:
  idle:
    do: human.input
    with: {prompt: "What should it do?", into: target, emit: START}
    on:
      START: {to: done, when: target != ""}
      SUBMIT: {to: done, set: {target: event.payload.target}}
  done: {final: true}
`

func TestHumanInput(t *testing.T) {
	tests := []struct {
		name        string
		interactive bool
		in          string
		vars        map[string]any
		done        bool
		target      string
		out         string
	}{
		{"a terminal is asked and the answer starts the run", true, "count words\n", nil, true, "count words", "What should it do? "},
		{"an empty answer leaves the run waiting", true, "\n", nil, false, "", "What should it do? "},
		{"a value already given is not asked for", true, "ignored\n", map[string]any{"target": "given"}, true, "given", ""},
		{"without a terminal the run waits", false, "ignored\n", nil, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			d := &Deps{Root: t.TempDir(), Interactive: tt.interactive, In: strings.NewReader(tt.in), Out: &out}
			reg := machine.NewBuiltinRegistry()
			if err := Register(reg, d); err != nil {
				t.Fatal(err)
			}
			spec, diags := validate.Check("ask.yaml", []byte(inputSpec), reg)
			if diags.HasErrors() {
				t.Fatal(diags.PrettyAll([]byte(inputSpec)))
			}
			m, err := machine.Compile(spec, reg)
			if err != nil {
				t.Fatal(err)
			}
			r, err := m.NewRun(tt.vars)
			if err != nil {
				t.Fatal(err)
			}
			err = r.Run(context.Background())
			_, paused := machine.AsPause(err)
			if tt.done && err != nil || !tt.done && !paused {
				t.Fatalf("run: %v (state %s)", err, r.State())
			}
			if got := r.Var("target"); got != tt.target {
				t.Errorf("target = %q, want %q", got, tt.target)
			}
			if out.String() != tt.out {
				t.Errorf("the terminal shows %q, want %q", out.String(), tt.out)
			}
		})
	}
}
