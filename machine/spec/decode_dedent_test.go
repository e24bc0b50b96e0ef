package spec

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A key of a state written at the states' indentation is given to the state
// above it, with one error; a state that is only named like a key (its
// value a mapping of state keys) stays a state.
func TestAStateKeyIndentedAsAStateIsTheStateAbovesKey(t *testing.T) {
	tests := []struct {
		name, states, want string
		next               string // the next of state a, once decoded
	}{
		{"a dedented next", "  a:\n    do: noop\n  next: b\n  b: {final: true}\n",
			`x.yaml:7:3: "next" is a key of state "a", indented as a state`, "b"},
		{"all the keys of a state", "  a:\n  do: noop\n  next: b\n  b: {final: true}\n",
			`x.yaml:6:3: "do" and "next" are keys of state "a", indented as states`, "b"},
		{"a state named like a key", "  a:\n    next: note\n  note: {next: b}\n  b: {final: true}\n", "", "note"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, diags := Parse("x.yaml", []byte("lpp: 1\nname: x\ninitial: a\nstates:\n"+tt.states))
			var msgs []string
			for _, d := range diags {
				msgs = append(msgs, d.Where()+": "+d.Msg)
			}
			if tt.want == "" {
				require.Empty(t, msgs)
			} else {
				require.Equal(t, []string{tt.want}, msgs)
			}
			require.NotNil(t, s.State("a"))
			require.Len(t, s.State("a").Next, 1)
			require.Equal(t, tt.next, s.State("a").Next[0].To)
		})
	}
}
