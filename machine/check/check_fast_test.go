package check

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/expr-lang/expr/vm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// The variables the compiled-evaluation tests read, by slot: ints a, b, c,
// strings s, t, bools f, g, and n, an int that may be null.
var fastNames = []string{"a", "b", "c", "s", "t", "f", "g", "n"}

func fastEnvTypes() map[string]any {
	return map[string]any{"a": 0, "b": 0, "c": 0, "s": "", "t": "", "f": false, "g": false, "n": 0,
		mspec.VarState: "", mspec.VarLastError: ""}
}

// fastCases are expressions of every shape the compiler knows, some it does
// not (compiles: false), and shapes where the order of checked additions
// decides whether expr fails.
var fastCases = []struct {
	src      string
	typ      mspec.Type // TypeBool: a guard
	compiles bool
}{
	{"a < b", mspec.TypeBool, true},
	{"a == 3", mspec.TypeBool, true},
	{"a != b", mspec.TypeBool, true},
	{"a >= -2", mspec.TypeBool, true},
	{"a <= b", mspec.TypeBool, true},
	{"3 > a", mspec.TypeBool, true},
	{"s == \"up\"", mspec.TypeBool, true},
	{"s != t", mspec.TypeBool, true},
	{"s < t", mspec.TypeBool, true},
	{"s >= \"down\"", mspec.TypeBool, true},
	{"f && g", mspec.TypeBool, true},
	{"f and a > 1", mspec.TypeBool, true},
	{"f || !g", mspec.TypeBool, true},
	{"not f or g", mspec.TypeBool, true},
	{"f == g", mspec.TypeBool, true},
	{"f != (a < 2)", mspec.TypeBool, true},
	{"a + b + c == 6", mspec.TypeBool, true},
	{"a + b + c + 1 > 0", mspec.TypeBool, true},
	{"a + (b + c) == 0", mspec.TypeBool, true},
	{"(a + b) + (c + 1) == 0", mspec.TypeBool, true},
	{"1 + a + b > 0", mspec.TypeBool, true},
	{"a + b - c < 2", mspec.TypeBool, true},
	{"a - b > 0", mspec.TypeBool, true},
	{"a * b == 0", mspec.TypeBool, true},
	{"a % b == 1", mspec.TypeBool, true},
	{"-a == b", mspec.TypeBool, true},
	{"a in [1, 2, 3]", mspec.TypeBool, true},
	{"s in [\"up\", \"down\"]", mspec.TypeBool, true},
	{"not (s in [\"up\"])", mspec.TypeBool, true},
	{"a > 0 ? f : g", mspec.TypeBool, true},
	{"a + 1 == b", mspec.TypeBool, true},
	{"n == 2", mspec.TypeBool, true},
	{"n + 1 > a", mspec.TypeBool, true},
	{"dir == \"up\" && a < 3", mspec.TypeBool, false}, // dir is no variable: expr's checker refuses it (skipped)
	{"len(s) > 1", mspec.TypeBool, false},
	{"a / b > 1", mspec.TypeBool, false},
	{"s contains \"u\"", mspec.TypeBool, false},
	{"state == \"x\"", mspec.TypeBool, false},
	{"a + 1", mspec.TypeInt, true},
	{"a - b", mspec.TypeInt, true},
	{"a * b", mspec.TypeInt, true},
	{"a % b", mspec.TypeInt, true},
	{"-a", mspec.TypeInt, true},
	{"a + b + c", mspec.TypeInt, true},
	{"a + b + c + 5", mspec.TypeInt, true},
	{"a + b + (c + 5)", mspec.TypeInt, true},
	{"a > b ? a : b", mspec.TypeInt, true},
	{"a", mspec.TypeInt, true},
	{"n", mspec.TypeInt, true},
	{"7", mspec.TypeInt, true},
	{"-7", mspec.TypeInt, true},
	{"s", mspec.TypeString, true},
	{"\"x\"", mspec.TypeString, true},
	{"f ? s : t", mspec.TypeString, true},
	{"s + t", mspec.TypeString, false},
}

var (
	fastInts    = []int{0, 1, 2, 3, -1, -2, 7, math.MaxInt, math.MinInt, math.MaxInt - 1, math.MinInt + 1}
	fastStrings = []string{"", "up", "down", "hold"}
)

// fastValues picks boundary values for the variables, by slot (fastNames):
// n is null one time in four.
func fastValues(rng *rand.Rand) []any {
	var n any = fastInts[rng.IntN(len(fastInts))]
	if rng.IntN(4) == 0 {
		n = nil
	}
	return []any{fastInts[rng.IntN(len(fastInts))], fastInts[rng.IntN(len(fastInts))], fastInts[rng.IntN(len(fastInts))],
		fastStrings[rng.IntN(len(fastStrings))], fastStrings[rng.IntN(len(fastStrings))], rng.IntN(2) == 0, rng.IntN(2) == 0, n}
}

// compileFastCase compiles a case as the check does (with the spec's
// options), and its closures; ok is false when expr refuses it.
func compileFastCase(t *testing.T, src string, typ mspec.Type) (*vm.Program, *fastProg, bool) {
	t.Helper()
	var p *vm.Program
	var err error
	if typ == mspec.TypeBool {
		p, err = mspec.CompileGuard(src, fastEnvTypes())
	} else {
		p, err = mspec.CompileValue(src, typ, fastEnvTypes())
	}
	if err != nil {
		return nil, nil, false
	}
	slot := map[string]int{}
	for i, name := range fastNames {
		slot[name] = i
	}
	return p, fastCompiler{slot: slot}.compile(p.Node()), true
}

// agree runs both and fails when the closures give a value expr does not.
func agree(t *testing.T, src string, p *vm.Program, f *fastProg, vals []any) bool {
	t.Helper()
	got, ok := f.run(vals)
	if f.cond != nil {
		c, cok := f.cond(vals)
		require.Equal(t, ok, cok, "%s: run and cond disagree on %v", src, vals)
		if ok {
			require.Equal(t, got, c, "%s: run and cond disagree on %v", src, vals)
		}
	}
	if f.intFn != nil {
		n, iok := f.intFn(vals)
		require.Equal(t, ok, iok, "%s: run and intFn disagree on %v", src, vals)
		if ok {
			require.Equal(t, got, n, "%s: run and intFn disagree on %v", src, vals)
		}
	}
	if !ok {
		return false
	}
	env := fastEnvTypes()
	for i, name := range fastNames {
		env[name] = vals[i]
	}
	want, err := (&vm.VM{}).Run(p, env)
	require.NoError(t, err, "%s with %v: the closures computed %v where expr fails", src, vals, got)
	require.Equal(t, want, got, "%s with %v", src, vals)
	return true
}

// TestCompiledEvaluationAgreesWithExpr: every compiled case gives expr's
// value wherever it gives one (it defers to expr on overflow, on a division
// by zero and on a null), over every combination of boundary values, and it
// does give one on plain values (else it would defer always and prove
// nothing). The cases it does not know do not compile.
func TestCompiledEvaluationAgreesWithExpr(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() []any { return fastValues(rng) }
	for _, tc := range fastCases {
		t.Run(tc.src, func(t *testing.T) {
			p, f, ok := compileFastCase(t, tc.src, tc.typ)
			if !ok {
				require.False(t, tc.compiles, "expr refuses %s", tc.src)
				return
			}
			if !tc.compiles {
				assert.Nil(t, f, "%s compiled, but the case says it does not", tc.src)
				return
			}
			require.NotNil(t, f, "%s did not compile", tc.src)
			assert.Equal(t, tc.typ == mspec.TypeInt, f.intFn != nil, "%s: an int program has its unboxed form", tc.src)
			for range 5000 {
				agree(t, tc.src, p, f, pick())
			}
			plain := []any{2, 1, 3, "up", "down", true, false, 2}
			assert.True(t, agree(t, tc.src, p, f, plain), "%s deferred to expr on plain values", tc.src)
		})
	}
}

// TestCompiledSumsFailWhereExprFails: sums where an intermediate overflows
// in expr's order defer to expr (which fails), even when another order would
// not overflow.
func TestCompiledSumsFailWhereExprFails(t *testing.T) {
	for _, tc := range []struct {
		src  string
		vals []any
	}{
		{"a + b + c", []any{math.MaxInt, 1, -5, "", "", false, false, 0}},
		{"a + (b + c)", []any{-5, math.MaxInt, 1, "", "", false, false, 0}},
		{"a + b + c + 5", []any{math.MaxInt - 2, 3, -10, "", "", false, false, 0}},
		{"a + b + (c + 5)", []any{-9, 1, math.MaxInt - 4, "", "", false, false, 0}},
	} {
		t.Run(tc.src, func(t *testing.T) {
			p, f, ok := compileFastCase(t, tc.src, mspec.TypeInt)
			require.True(t, ok)
			require.NotNil(t, f)
			_, fok := f.run(tc.vals)
			assert.False(t, fok, "the closures computed a value")
			env := fastEnvTypes()
			for i, name := range fastNames {
				env[name] = tc.vals[i]
			}
			_, err := (&vm.VM{}).Run(p, env)
			require.ErrorIs(t, err, mspec.ErrIntOverflow)
		})
	}
}

// FuzzCompiledEvaluation: on any values, a compiled case gives expr's value
// or defers to it.
func FuzzCompiledEvaluation(f *testing.F) {
	f.Add(2, 1, 3, "up", "down", true, false, 2, false)
	f.Add(math.MaxInt, 1, -1, "", "x", false, true, math.MinInt, true)
	type compiled struct {
		src string
		p   *vm.Program
		f   *fastProg
	}
	var progs []compiled
	f.Fuzz(func(t *testing.T, a, b, c int, s, u string, x, y bool, n int, null bool) {
		if progs == nil {
			for _, tc := range fastCases {
				if p, fp, ok := compileFastCase(t, tc.src, tc.typ); ok && fp != nil {
					progs = append(progs, compiled{tc.src, p, fp})
				}
			}
		}
		var nv any = n
		if null {
			nv = nil
		}
		vals := []any{a, b, c, s, u, x, y, nv}
		for _, pr := range progs {
			agree(t, pr.src, pr.p, pr.f, vals)
		}
	})
}
