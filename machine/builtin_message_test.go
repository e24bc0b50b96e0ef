package machine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// TestFailAppendsTheValueOfItsExpression checks fail's one rule, shared with
// agent.abort: message is text, and the result of the optional value
// expression follows it after a space (a string in full and as it is, other
// values as log shows them).
func TestFailAppendsTheValueOfItsExpression(t *testing.T) {
	long := strings.Repeat("x", 80)
	tests := []struct {
		name, with, want string
	}{
		{"text only", `{message: disk on fire}`, "disk on fire"},
		{"default text", `{}`, "failed on purpose"},
		{"an int value", `{message: "attempts:", value: n + 1}`, "attempts: 3"},
		{"a string value in full", `{message: "cannot go on:", value: 'reason + "` + long + `"'}`, "cannot go on: upstream " + long},
		{"a list value as log shows it", `{message: "left:", value: '[1, 2]'}`, "left: [2 items]"},
		{"the default text and a value", `{value: reason}`, "failed on purpose upstream "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := compileSpec(t, `
lpp: 1
name: fail
context: {n: {type: int, default: 2}, reason: {type: string, default: "upstream "}}
initial: a
states:
  a: {do: fail, with: `+tt.with+`, next: done}
  done: {final: true}
`, nil)
			r, err := m.NewRun(nil)
			require.NoError(t, err)
			err = r.Run(context.Background())
			require.True(t, errors.Is(err, machine.ErrActionFailed), "err = %v", err)
			assert.Equal(t, `action failed: fail in state "a": `+tt.want, err.Error())
		})
	}
}
