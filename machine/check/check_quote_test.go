package check_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/check"
)

// TestReportsShowListsAndMapsByTheirItems: two lists (or maps) of one
// length read apart in a report; a long one shows its first items and how
// many it has.
func TestReportsShowListsAndMapsByTheirItems(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"a list", []any{"x"}, `["x"]`},
		{"another list of one item", []any{"item"}, `["item"]`},
		{"an empty list", []any{}, `[]`},
		{"a long list", []any{1, 2, 3, 4, 5, 6, 7}, `[1, 2, 3, 4, 5, … (7 items)]`},
		{"a map", map[string]any{"b": []any{true}, "a": 1}, `{"a": 1, "b": [true]}`},
		{"a long string", strings.Repeat("a", 101), `"` + strings.Repeat("a", 100) + `"… (101 bytes)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, check.QuoteValue(tt.v))
		})
	}
}
