package validate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TestAnOnErrorRouteOfAnActionThatNeverFailsIsAWarning: noop, log, wait and
// emit declare NeverFails; their on_error route is taken only when a
// parameter expression cannot be evaluated, so without one it is dead.
func TestAnOnErrorRouteOfAnActionThatNeverFailsIsAWarning(t *testing.T) {
	const spec = "lpp: 1\nname: w\ncontext:\n  n: {type: int, default: 1}\ninitial: a\nstates:\n  a:\n    ACTION\n    next: [done]\n    on_error: {to: done}\n  done: {final: true}\nevents:\n  PING: {from: a, to: done}\n"
	tests := []struct {
		name, action, want string
	}{
		{"noop", "do: noop", `on_error of state "a" is never taken: noop fails only when a parameter expression cannot be evaluated, and it has none here`},
		{"log with a message", "do: log\n    with: {message: hi}", `on_error of state "a" is never taken: log fails only when a parameter expression cannot be evaluated, and it has none here`},
		{"wait with a literal duration", "do: wait\n    with: {duration: 1s}", `on_error of state "a" is never taken: wait fails only when a parameter expression cannot be evaluated, and it has none here`},
		{"emit without a payload", "do: emit\n    with: {event: PING}", `on_error of state "a" is never taken: emit fails only when a parameter expression cannot be evaluated, and it has none here`},
		{"log with a value expression", "do: log\n    with: {message: hi, value: 10 % n}", ""},
		{"wait with a duration expression", "do: wait\n    with: {duration: 'string(n) + \"s\"'}", ""},
		{"fail", "do: fail", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(spec, "ACTION", tt.action, 1)
			_, diags := Check("w.yaml", []byte(src), machine.NewBuiltinRegistry())
			require.False(t, diags.HasErrors(), diags.PrettyAll([]byte(src)))
			var warnings []string
			for _, d := range diags {
				if d.Severity == mspec.SevWarning {
					warnings = append(warnings, d.Msg)
				}
			}
			if tt.want == "" {
				require.Empty(t, warnings)
				return
			}
			require.Equal(t, []string{tt.want}, warnings)
		})
	}
}
