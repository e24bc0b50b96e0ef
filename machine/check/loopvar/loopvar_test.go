package loopvar_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/check/loopvar"
)

func TestOfReadsComparisonsModuliAndOtherUses(t *testing.T) {
	cases := []struct {
		name, src, v string
		list         bool
		want         loopvar.Use
	}{
		{"a comparison with a number", "c < 3", "c", false, loopvar.Use{Total: 1, Bounds: []loopvar.Bound{{Expr: "3"}}}},
		{"the number first", "3 >= c", "c", false, loopvar.Use{Total: 1, Bounds: []loopvar.Bound{{Expr: "3"}}}},
		{"a shifted counter and a limit", "c + 2 < limit * 2", "c", false, loopvar.Use{Total: 1, Bounds: []loopvar.Bound{{Expr: "limit * 2", Shift: 2}}}},
		{"a modulo", "c % 2 == 0 && ok", "c", false, loopvar.Use{Total: 1, Moduli: []int64{2}}},
		{"a modulo by a variable", "c % n == 0", "c", false, loopvar.Use{Total: 1, Other: 1}},
		{"a product", "c * 2 > 10", "c", false, loopvar.Use{Total: 1, Other: 1}},
		{"compared with itself", "c < c + 1", "c", false, loopvar.Use{Total: 2, Other: 2}},
		{"a list's length", "len(items) >= n", "items", true, loopvar.Use{Total: 1, Bounds: []loopvar.Bound{{Expr: "n"}}}},
		{"a list's items", `"x" in items`, "items", true, loopvar.Use{Total: 1, Other: 1}},
		{"a list's length through a modulo", "len(items) % 2 == 0", "items", true, loopvar.Use{Total: 1, Other: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u, ok := loopvar.Of(tc.src, tc.v, tc.list)
			require.True(t, ok)
			require.Equal(t, tc.want, u)
		})
	}
	_, ok := loopvar.Of("let c = 1; c < 2", "c", false)
	require.False(t, ok, "a let binds the name: its uses are not the variable's")
}

func TestStepReadsConstantStepsAndAppendedLiterals(t *testing.T) {
	cases := []struct {
		src  string
		list bool
		want float64
		ok   bool
	}{
		{"c + 1", false, 1, true},
		{"2 + c", false, 2, true},
		{"c - 0.5", false, -0.5, true},
		{"c", false, 0, false},
		{"c * 2", false, 0, false},
		{"c + n", false, 0, false},
		{`concat(items, ["x", y])`, true, 2, true},
		{`concat(["x"], items)`, true, 1, true},
		{`concat(items, [1 / d])`, true, 0, false},
		{`concat(items, other)`, true, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			name := "c"
			if tc.list {
				name = "items"
			}
			k, ok := loopvar.Step(tc.src, name, tc.list)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.want, k)
		})
	}
}
