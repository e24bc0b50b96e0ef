package check_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/internal/spectest"
	"github.com/lppctl/lppctl/machine/spec"
)

// nullRegistry has fetch, whose write of x is of any type (as llm.generate's
// map, script.run's and spec.run's output: a JSON value, null included), and
// typed, whose write of x is an int (as a reply's text is a string). Both
// write null into x when asked to (writeNull), as a run would get it.
func nullRegistry(writeNull *bool) *machine.Registry {
	reg := spectest.Registry()
	write := func(_ context.Context, c *machine.Call) error {
		if *writeNull {
			return c.SetVar("x", nil)
		}
		return nil
	}
	reg.MustRegister(machine.Action{Name: "fetch", Run: write,
		WritesFor: func(map[string]any) []machine.VarSpec { return []machine.VarSpec{{Name: "x", Type: spec.TypeAny}} }})
	reg.MustRegister(machine.Action{Name: "typed", Run: write, Writes: []machine.VarSpec{{Name: "x", Type: spec.TypeInt}}})
	reg.MustRegister(machine.Action{Name: "parse", Run: write, // as env.read: a value parsed as x's type
		WritesFor: func(map[string]any) []machine.VarSpec {
			return []machine.VarSpec{{Name: "x", Type: spec.TypeAny, NotNull: true}}
		}})
	return reg
}

// A nullable variable an action passes a value of any type into (a model's
// JSON reply, a script's output: an L++ compute unit's None) may become
// null whatever its default: the check gives it null as an outcome, finds
// the defect a null leads to, and its counterexample replays (the run fails
// the same way). Before, its outcomes held null only when its default was
// null: PASS for a spec whose run fails. A typed write, or a variable that
// is not nullable, never takes null (no false alarm).
func TestANullableVariableTakesNullWhereAnActionCanWriteIt(t *testing.T) {
	tests := []struct {
		name, action, decl, guard string
		fails                     string // a part of the "expressions evaluate" message; "" for a PASS
	}{
		{"an int with a default, written as any value", "fetch", "{type: int, nullable: true, default: 0}", "x > 2", "invalid operation: <nil> > int"},
		{"a string with a default, written as any value", "fetch", `{type: string, nullable: true, default: ""}`, "len(x) > 2", "invalid argument for len (type <nil>)"},
		{"a bool, written as any value", "fetch", "{type: bool, nullable: true, default: false}", "!x", "interface conversion: interface {} is nil, not bool"},
		{"a null checked before use", "fetch", "{type: int, nullable: true, default: 0}", "x != nil && x > 2", ""},
		{"an int written as an int", "typed", "{type: int, nullable: true, default: 0}", "x > 2", ""},
		{"a variable that is not nullable", "fetch", "{type: int, default: 0}", "x > 2", ""},
		{"an int written by an action that never writes null (env.read)", "parse", "{type: int, nullable: true, default: 0}", "x > 2", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := `lpp: 1
name: nullwrite
context:
  x: ` + tt.decl + `
initial: a
states:
  a:
    do: ` + tt.action + `
    next:
      - {to: done, when: '` + tt.guard + `'}
      - {to: done}
  done: {final: true}
`
			writeNull := false
			reg := nullRegistry(&writeNull)
			m := spectest.Compile(t, src, reg)
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			var eval *check.PropertyResult
			for i := range r.Properties {
				if r.Properties[i].Property == check.PropEvaluation {
					eval = &r.Properties[i]
				} else {
					require.Equal(t, check.Pass, r.Properties[i].Verdict, "%s: %s", r.Properties[i].Property, r.Properties[i].Message)
				}
			}
			require.NotNil(t, eval)
			if tt.fails == "" {
				require.Equal(t, check.Pass, eval.Verdict, eval.Message)
				return
			}
			require.Equal(t, check.Fail, eval.Verdict)
			require.Contains(t, eval.Message, tt.fails)
			require.NotNil(t, eval.Trace)
			require.Len(t, eval.Trace.Steps, 1)
			require.Equal(t, map[string]any{"x": nil}, eval.Trace.Steps[0].Wrote)

			writeNull = true // the counterexample's step: the action writes null
			run, err := m.NewRun(nil)
			require.NoError(t, err)
			err = run.Run(context.Background())
			require.Error(t, err)
			require.True(t, strings.Contains(err.Error(), tt.fails), "the run fails otherwise: %v", err)
		})
	}
}
