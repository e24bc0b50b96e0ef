package machine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
	"github.com/looplab/fsm"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// benchSpec is a guarded two-state loop: every step runs an action, applies a
// state set, evaluates guards in order (the first fails) and moves.
const benchSpec = `
lpp: 1
name: bench
context:
  loop_count: {type: int, default: 0}
  max_loop_count: {type: int, default: 1000000000}
  pending_tools: {type: int, default: 1}
  reply: {type: string, default: "[ATTEMPTS_COMPLETE] done"}
initial: optimizer
states:
  optimizer:
    do: noop
    set: {loop_count: loop_count + 1}
    next:
      - {to: done, when: pending_tools > 0 && loop_count > max_loop_count}
      - {to: tool_executor, when: pending_tools > 0}
      - {to: done, when: 'hasPrefix(reply, "[ATTEMPTS_COMPLETE]")'}
  tool_executor:
    do: noop
    next: optimizer
  done: {final: true}
`

// BenchmarkTransition measures one interpreter step of a guarded machine:
// action call, state set, guard evaluation, transition and fsm move, record
// delivery to a no-op observer (no journal).
func BenchmarkTransition(b *testing.B) {
	m := compileSpec(b, benchSpec, nil)
	r, err := m.NewRun(nil, machine.WithMaxTransitions(b.N+10),
		machine.WithObserver(machine.ObserverFunc(func(context.Context, *machine.Record) error { return nil })))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.Step(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFloor is the floor a transition cannot beat: one raw looplab/fsm
// Event plus one expr guard evaluation.
func BenchmarkFloor(b *testing.B) {
	f := fsm.NewFSM("a", fsm.Events{
		{Name: "to:b", Src: []string{"a"}, Dst: "b"},
		{Name: "to:a", Src: []string{"b"}, Dst: "a"},
	}, nil)
	env := map[string]any{"pending_tools": 1, "loop_count": 5}
	prog, err := expr.Compile("pending_tools > 0", expr.Env(env), expr.AsBool())
	if err != nil {
		b.Fatal(err)
	}
	var v vm.VM
	ctx := context.Background()
	events := [2]string{"to:b", "to:a"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ok, err := v.Run(prog, env)
		if err != nil || ok != true {
			b.Fatal(err)
		}
		if err := f.Event(ctx, events[i%2]); err != nil {
			b.Fatal(err)
		}
	}
}

// spec20 builds a valid 20-state spec with guards and sets on every state.
func spec20() []byte {
	var sb strings.Builder
	sb.WriteString("lpp: 1\nname: twenty\ncontext:\n")
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&sb, "  c%d: {type: int, default: 0}\n", i)
	}
	sb.WriteString("  verdict: {type: string, enum: [\"\", PASS, FAIL], default: \"\"}\ninitial: s0\nstates:\n")
	for i := 0; i < 19; i++ {
		fmt.Fprintf(&sb, "  s%d:\n    do: log\n    with: {message: \"state %d\", value: c%d}\n    set: {c%d: c%d + 1}\n    next:\n", i, i, i%10, i%10, i%10)
		fmt.Fprintf(&sb, "      - {to: s0, when: 'c%d > 100 && verdict == \"FAIL\"', set: {verdict: '\"\"'}}\n", i%10)
		fmt.Fprintf(&sb, "      - to: s%d\n", i+1)
	}
	sb.WriteString("  s19: {final: true}\n")
	return []byte(sb.String())
}

// BenchmarkLoadValidate20 measures decoding, validating and compiling a 20-state spec.
func BenchmarkLoadValidate20(b *testing.B) {
	src := spec20()
	reg := machine.NewBuiltinRegistry()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		spec, diags := mspec.Parse("twenty.yaml", src)
		if diags.HasErrors() {
			b.Fatal(diags.Err())
		}
		if diags := validate.Validate(spec, reg); diags.HasErrors() {
			b.Fatal(diags.Err())
		}
		if _, err := machine.Compile(spec, reg); err != nil {
			b.Fatal(err)
		}
	}
}
