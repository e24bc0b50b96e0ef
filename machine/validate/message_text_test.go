package validate

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/lppctl/lppctl/machine"
)

// TestFailMessageThatReadsAsAnExpressionIsRefused checks that fail's text
// message refuses what reads as an expression (a quoted string, a
// concatenation, a context variable): it would be shown as written. The
// expression belongs in value:, whose result is appended.
func TestFailMessageThatReadsAsAnExpressionIsRefused(t *testing.T) {
	const hint = `move the expression to value: (its result is appended to the message), e.g. with: {message: "cannot go on:", value: reason}`
	tests := []struct {
		name, with, want string
	}{
		{"plain text", `{message: upstream returned 503}`, ""},
		{"a word that is no variable", `{message: timeout}`, ""},
		{"text and a value", `{message: "cannot go on:", value: reason}`, ""},
		{"a quoted string", `{message: '"the plan was rejected"'}`,
			`m.yaml:7:33: error: parameter "message" of action "fail" is text and reads as an expression (a string literal): it would be shown as written` + "\n" +
				` 7 |   a: {do: fail, with: {message: '"the plan was rejected"'}, next: done}` + "\n" +
				`   |                                 ^^^^^^^^^^^^^^^^^^^^^^^^^` + "\n" +
				`   = ` + hint},
		{"a concatenation", `{message: '"cannot go on: " + reason'}`,
			`m.yaml:7:33: error: parameter "message" of action "fail" is text and reads as an expression (a string literal): it would be shown as written` + "\n" +
				` 7 |   a: {do: fail, with: {message: '"cannot go on: " + reason'}, next: done}` + "\n" +
				`   |                                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^` + "\n" +
				`   = ` + hint},
		{"a context variable", `{message: reason}`,
			`m.yaml:7:33: error: parameter "message" of action "fail" is text and reads as an expression (variable "reason"): it would be shown as written` + "\n" +
				` 7 |   a: {do: fail, with: {message: reason}, next: done}` + "\n" +
				`   |                                 ^^^^^^` + "\n" +
				`   = ` + hint},
		{"the run's last error", `{message: last_error}`,
			`m.yaml:7:33: error: parameter "message" of action "fail" is text and reads as an expression (variable "last_error"): it would be shown as written` + "\n" +
				` 7 |   a: {do: fail, with: {message: last_error}, next: done}` + "\n" +
				`   |                                 ^^^^^^^^^^` + "\n" +
				`   = ` + hint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "lpp: 1\nname: m\ncontext:\n  reason: {type: string, default: x}\ninitial: a\nstates:\n  a: {do: fail, with: " + tt.with + ", next: done}\n  done: {final: true}\n"
			_, diags := Check("m.yaml", []byte(src), machine.NewBuiltinRegistry())
			got := diags.PrettyAll([]byte(src))
			if tt.want == "" {
				assert.False(t, diags.HasErrors(), "want no errors, got:\n%s", got)
				return
			}
			assert.Equal(t, tt.want+"\n\n1 error, 0 warnings", got)
		})
	}
}

// TestLogMessageMayNameAVariable checks that log's message, plain text that
// never was an expression, is not refused when it reads like one.
func TestLogMessageMayNameAVariable(t *testing.T) {
	src := "lpp: 1\nname: m\ncontext:\n  attempt: {type: int, default: 0}\ninitial: a\nstates:\n  a: {do: log, with: {message: attempt, value: attempt + 1}, next: done}\n  done: {final: true}\n"
	_, diags := Check("m.yaml", []byte(src), machine.NewBuiltinRegistry())
	assert.False(t, diags.HasErrors(), diags.PrettyAll([]byte(src)))
}
