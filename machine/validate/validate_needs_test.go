package validate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// needsRegistry holds actions that provide and need run memory entries.
func needsRegistry() *machine.Registry {
	reg := machine.NewBuiltinRegistry()
	ok := func(context.Context, *machine.Call) error { return nil }
	reg.MustRegister(machine.Action{Name: "plan.make", Provides: []string{"plan"}, Run: ok})
	reg.MustRegister(machine.Action{Name: "plan.other", Provides: []string{"plan"}, Run: ok})
	reg.MustRegister(machine.Action{Name: "step.prepare", Needs: []string{"plan"}, Provides: []string{"chat"}, Run: ok})
	reg.MustRegister(machine.Action{Name: "step.run", Needs: []string{"plan", "chat"}, Run: ok})
	return reg
}

// TestValidateChecksEveryPathProvidesTheMemoryAnActionNeeds: a state whose
// action needs a run memory entry must be reached only through a state whose
// action provides it (and succeeded: an on_error route provides nothing).
func TestValidateChecksEveryPathProvidesTheMemoryAnActionNeeds(t *testing.T) {
	for _, tt := range []struct {
		name   string
		states string
		events string
		want   []string // the diagnostics, one line each, with their hint
	}{
		{
			name: "provided before it is needed",
			states: `
  start: {do: plan.make, next: prep}
  prep: {do: step.prepare, next: run}
  run: {do: step.run, next: [{to: prep, when: "false"}, done]}
  done: {final: true}`,
		},
		{
			name: "another provider on the other branch",
			states: `
  start: {do: noop, next: [{to: a, when: "true"}, b]}
  a: {do: plan.make, next: prep}
  b: {do: plan.other, next: prep}
  prep: {do: step.prepare, next: done}
  done: {final: true}`,
		},
		{
			name: "a misspelt provider is one error",
			states: `
  start: {do: plan.mkae, next: prep}
  prep: {do: step.prepare, next: run}
  run: {do: step.run, next: done}
  done: {final: true}`,
			want: []string{`test.yaml:6:15: error: unknown action "plan.mkae"; did you mean "plan.make"?`},
		},
		{
			name: "a provider without do: is one error",
			states: `
  start: {with: {}, next: prep}
  prep: {do: step.prepare, next: done}
  done: {final: true}`,
			want: []string{`test.yaml:6:11: error: state "start" has with: but no action (do:); add ` + "`do: ACTION`" + `, or remove with:`},
		},
		{
			name: "needed right away",
			states: `
  start: {do: noop, next: prep}
  prep: {do: step.prepare, next: done}
  done: {final: true}`,
			want: []string{`test.yaml:7:14: error: action "step.prepare" needs "plan" in run memory, but the path start → prep reaches state "prep" without it` +
				`; "plan" is provided by plan.make, plan.other, which no state of the spec runs: add a state that runs it before this one`},
		},
		{
			name: "one branch skips the provider",
			states: `
  start: {do: noop, next: [{to: make, when: "true"}, prep]}
  make: {do: plan.make, next: prep}
  prep: {do: step.prepare, next: run}
  run: {do: step.run, next: done}
  done: {final: true}`,
			want: []string{`test.yaml:8:14: error: action "step.prepare" needs "plan" in run memory, but the path start → prep reaches state "prep" without it` +
				`; "plan" is provided by plan.make, plan.other (state make): enter this state only after one of them`,
				`test.yaml:9:13: error: action "step.run" needs "plan" in run memory, but the path start → prep → run reaches state "run" without it` +
					`; "plan" is provided by plan.make, plan.other (state make): enter this state only after one of them`},
		},
		{
			name: "the provider's error route",
			states: `
  start: {do: plan.make, next: prep, on_error: prep}
  prep: {do: step.prepare, next: done}
  done: {final: true}`,
			want: []string{`test.yaml:7:14: error: action "step.prepare" needs "plan" in run memory, but the path start → prep reaches state "prep" without it` +
				`; "plan" is provided by plan.make, plan.other (state start): enter this state only after one of them`},
		},
		{
			name: "a second entry missing",
			states: `
  start: {do: plan.make, next: run}
  run: {do: step.run, next: done}
  done: {final: true}`,
			want: []string{`test.yaml:7:13: error: action "step.run" needs "chat" in run memory, but the path start → run reaches state "run" without it` +
				`; "chat" is provided by step.prepare, which no state of the spec runs: add a state that runs it before this one`},
		},
		{
			name: "an event from every state",
			states: `
  start: {do: noop, next: make}
  make: {do: plan.make, next: prep}
  prep: {do: step.prepare, next: done}
  done: {final: true}`,
			events: `
events:
  SKIP: {to: prep}`,
			want: []string{`test.yaml:8:14: error: action "step.prepare" needs "plan" in run memory, but the path start → prep reaches state "prep" without it` +
				`; "plan" is provided by plan.make, plan.other (state make): enter this state only after one of them`},
		},
		{
			name: "an event from states that have the entry",
			states: `
  start: {do: noop, next: make}
  make: {do: plan.make, next: prep}
  prep: {do: step.prepare, next: done}
  done: {final: true}`,
			events: `
events:
  AGAIN: {from: [make, prep], to: prep}`,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := "lpp: 1\nname: t\ninitial: start\nstates:" + tt.states + tt.events + "\n"
			src = strings.Replace(src, "initial: start\n", "initial: start\ncontext: {}\n", 1)
			spec, diags := mspec.Parse("test.yaml", []byte(src))
			if diags.HasErrors() {
				t.Fatal(diags.Err())
			}
			var got []string
			for _, d := range validate.Validate(spec, needsRegistry()) {
				if d.Severity == mspec.SevError {
					got = append(got, d.String())
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
