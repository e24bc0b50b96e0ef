package spec

import (
	"testing"

	"github.com/expr-lang/expr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKeysValuesAndToPairsOfAMapAreInKeyOrder: the same map gives the same
// list at every evaluation (a Temporal workflow's replay evaluates a run's
// expressions again and must take the branches the run took). expr's own
// keys, values and toPairs took Go's map order, another at every call.
func TestKeysValuesAndToPairsOfAMapAreInKeyOrder(t *testing.T) {
	env := map[string]any{"m": map[string]any{"f": 6, "b": 2, "e": 5, "a": 1, "d": 4, "c": 3, "h": 8, "g": 7}}
	cases := []struct {
		src  string
		want any
	}{
		{`keys(m)`, []any{"a", "b", "c", "d", "e", "f", "g", "h"}},
		{`join(keys(m), ",")`, "a,b,c,d,e,f,g,h"},
		{`values(m)`, []any{1, 2, 3, 4, 5, 6, 7, 8}},
		{`toPairs(m)[0]`, [2]any{"a", 1}},
		{`map(toPairs(m), #[0])`, []any{"a", "b", "c", "d", "e", "f", "g", "h"}},
		{`keys({"y": 1, "x": 2, "z": 3})`, []any{"x", "y", "z"}},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			p, err := expr.Compile(tc.src, ExprOptions(env, tc.src)...)
			require.NoError(t, err)
			for range 50 {
				got, err := expr.Run(p, env)
				require.NoError(t, err)
				require.Equal(t, tc.want, got)
			}
		})
	}
	t.Run("not a map: expr's errors", func(t *testing.T) {
		for src, want := range map[string]string{
			`keys(x)`:    "cannot get keys from slice",
			`values(x)`:  "cannot get values from slice",
			`toPairs(x)`: "cannot transform slice to pairs",
		} {
			env := map[string]any{"x": any([]any{1})}
			p, err := expr.Compile(src) // no env: x is not known to be a list
			require.NoError(t, err, src)
			_, err = expr.Run(p, env)
			require.Error(t, err, src)
			assert.Contains(t, err.Error(), want, src)
		}
	})
}
