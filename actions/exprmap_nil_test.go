package actions

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A parameter expression that reads a field of a variable holding null
// (an imported L++ blueprint's input_map "o.k" is o?.k, o None until
// something writes it) is null, as lpp passes None; it failed ("type nil
// has no field k"), so the compute unit counted as failed and its
// output_map never wrote what the unit returned.
func TestAnExpressionReadingAFieldOfANullVariableIsNull(t *testing.T) {
	for _, tt := range []struct {
		src  string
		env  map[string]any
		want any
	}{
		{"o?.k", map[string]any{"o": nil}, nil},
		{"o?.k?.j", map[string]any{"o": nil, "n": 1}, nil},
		{"o?.k", map[string]any{"o": map[string]any{"k": 2}}, 2},
		{"n + 1", map[string]any{"n": 1, "o": nil}, 2},
	} {
		got, err := evalValue(tt.src, tt.env)
		require.NoError(t, err, tt.src)
		assert.Equal(t, tt.want, got, tt.src)
	}
	_, err := evalValue("o.k", map[string]any{"o": 3})
	require.Error(t, err, "a field of a number still fails")
}
