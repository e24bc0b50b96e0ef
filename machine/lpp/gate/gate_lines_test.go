package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAGateReadsLineBreaksAndCommentsAsPythonDoes: lpp parses a gate with
// Python's ast.parse(mode="eval"), where a comment (#) runs to the end of
// its line, a line break inside brackets or after a backslash is white
// space, and one outside brackets ends the expression (text after it is a
// SyntaxError: lpp's gate is false). lppctl refused every comment, and read
// "s == 'a' or\ns == 'b'" as one expression, true where lpp's is false.
func TestAGateReadsLineBreaksAndCommentsAsPythonDoes(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"count > 1  # more than one", "(count != nil && count > 1)"},
		{"count > 1 # note\n", "(count != nil && count > 1)"},
		{"(count > 1 or\n name == 'a')", "(count != nil && count > 1) || (name != nil && name == \"a\")"},
		{"count in [1,\n 2]", "count in [1, 2]"},
		{"count > 1 \\\n or name == 'a'", "(count != nil && count > 1) || (name != nil && name == \"a\")"},
		{"\n\ncount > 1\n", "(count != nil && count > 1)"},
		{"name == '#'", "(name != nil && name == \"#\")"},
	} {
		t.Run(tt.src, func(t *testing.T) {
			got, err := Translate(tt.src, TestTypes)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
