package check_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// An expression that fails is reported by the check as the run reports it:
// the same message, without expr's own "(line:col)" and caret lines, at the
// same place (the failing operation, not the expression's start); a null
// where expr's builtins need a value says so instead of expr's reflect
// message. Before, the check pointed at the start of `q + 10 % d` and
// pasted expr's snippet, and int(nil) read "reflect: call of
// reflect.Value.Type on zero Value".
func TestTheCheckReportsAFailingExpressionAsTheRunDoes(t *testing.T) {
	tests := []struct {
		name, where, decl, expr string
		msg                     string
		pos                     string // line:col of the failing operation
	}{
		{"a division by zero inside a sum", "set", "{type: int, default: 0}", "q + 10 % d",
			"integer division by zero: 10 % 0", "11:22"},
		{"int of a null", "set", "{type: int, default: 0}", "int(n)",
			"a null value (nil) where a value is needed: test it first (x == nil ? 0 : int(x)) or give the variable a default", "11:15"},
		{"a division by zero in a guard", "guard", "", "q + 10 % d > 1",
			"integer division by zero: 10 % 0", "12:34"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := `    set: {f: "` + tt.expr + `"}
    next: done`
			if tt.where == "guard" {
				a = `    next:
      - {to: done, when: "` + tt.expr + `"}
      - {to: done}`
			}
			src := `lpp: 1
name: evalmsg
context:
  d: {type: int, default: 0}
  q: {type: int, default: 0}
  n: {type: int, nullable: true}
  f: {type: int, default: 0}
initial: a
states:
  a:
` + a + `
  done: {final: true}
`
			m := spectest.Compile(t, src, spectest.Registry())
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			var eval *check.PropertyResult
			for i := range r.Properties {
				if r.Properties[i].Property == check.PropEvaluation {
					eval = &r.Properties[i]
				}
			}
			require.NotNil(t, eval)
			require.Equal(t, check.Fail, eval.Verdict)
			require.Contains(t, eval.Message, ": "+tt.msg)
			require.NotContains(t, eval.Message, "\n", "no snippet of expr's")
			require.Equal(t, tt.pos, fmt.Sprintf("%d:%d", eval.Pos.Line, eval.Pos.Col))

			run, err := m.NewRun(nil)
			require.NoError(t, err)
			err = run.Run(context.Background())
			var ee *machine.EvalError
			require.True(t, errors.As(err, &ee), "%v", err)
			require.Equal(t, tt.msg, ee.Msg)
			require.Equal(t, tt.pos, fmt.Sprintf("%d:%d", ee.Pos.Line, ee.Pos.Col))
		})
	}
}
