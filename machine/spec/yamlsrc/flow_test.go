package yamlsrc

import (
	"testing"
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
