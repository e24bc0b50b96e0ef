package spec

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFlowSplitFindsWhereYAMLCutsAnUnquotedExpression: the column of the
// comma (or bracket) inside an unquoted value of a flow mapping, its key and
// the value as meant; nothing for quoted values and plain flow collections.
func TestFlowSplitFindsWhereYAMLCutsAnUnquotedExpression(t *testing.T) {
	for _, tt := range []struct {
		line       string
		col        int
		key, value string
	}{
		{`      - {to: a, when: hasPrefix(x, "a")}`, 34, "when", `hasPrefix(x, "a")`},
		{`      - {to: a, when: len(x) > 0 && hasSuffix(x, "b"), set: {n: 1}}`, 48, "when", `len(x) > 0 && hasSuffix(x, "b")`},
		{`      - {to: a, when: x in ["a", "b"]}`, 28, "when", `x in ["a", "b"]`},
		{`  s: {do: log, with: {message: hi, value: max(1, 2)}}`, 48, "value", `max(1, 2)`},
		{`      - {to: a, when: 'hasPrefix(x, "a")'}`, 0, "", ""},
		{`      - {to: a, when: "hasPrefix(x, \"a\")"}`, 0, "", ""},
		{`      - {to: a, when: x > 0}`, 0, "", ""},
		{`      - [a, b]`, 0, "", ""},
		{`    set: {n: 'n + 1', note: see (a, b)}`, 35, "note", "see (a, b)"},
	} {
		col, key, value := flowSplit(tt.line)
		if col != tt.col || key != tt.key || value != tt.value {
			t.Errorf("flowSplit(%q) = %d, %q, %q; want %d, %q, %q", tt.line, col, key, value, tt.col, tt.key, tt.value)
		}
	}
}

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
