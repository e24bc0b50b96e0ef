package spec

import (
	"math"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/stretchr/testify/require"
)

// The expected values below are Python 3.11's (computed with python3 when
// the table was written; an error is a Python exception, which makes an
// lpp gate false).
var pyFuncCases = []struct {
	fn      string
	args    []any
	want    any
	wantErr bool
}{
	{"round", []any{float64(2.5)}, 2, false},
	{"round", []any{float64(0.5)}, 0, false},
	{"round", []any{float64(-0.5)}, 0, false},
	{"round", []any{float64(3.5)}, 4, false},
	{"round", []any{float64(2.46), 1}, float64(2.5), false},
	{"round", []any{float64(2.675), 2}, float64(2.67), false},
	{"round", []any{1234, -2}, 1200, false},
	{"round", []any{1250, -2}, 1200, false},
	{"round", []any{1350, -2}, 1400, false},
	{"round", []any{-1250, -2}, -1200, false},
	{"round", []any{7, 2}, 7, false},
	{"round", []any{float64(1234.5678), -2}, float64(1200.0), false},
	{"round", []any{float64(0.125), 2}, float64(0.12), false},
	{"round", []any{float64(-2.5)}, -2, false},
	{"round", []any{true}, 1, false},
	{"round", []any{nil}, nil, true},
	{"round", []any{"2"}, nil, true},
	{"round", []any{math.Inf(1)}, nil, true},
	{"round", []any{float64(2.5), nil}, 2, false},
	{"round", []any{float64(1e+300), 2}, float64(1e+300), false},
	{"mod", []any{-7, 3}, 2, false},
	{"mod", []any{7, -3}, -2, false},
	{"mod", []any{-7, -3}, -1, false},
	{"mod", []any{7, 3}, 1, false},
	{"mod", []any{float64(-7.5), 2}, float64(0.5), false},
	{"mod", []any{float64(7.5), -2}, float64(-0.5), false},
	{"mod", []any{-7, float64(3.0)}, float64(2.0), false},
	{"mod", []any{6, -3}, 0, false},
	{"mod", []any{float64(6.0), -3}, math.Copysign(0, -1), false},
	{"mod", []any{5, 0}, nil, true},
	{"mod", []any{float64(5.0), float64(0.0)}, nil, true},
	{"mod", []any{true, 2}, 1, false},
	{"mod", []any{"a", 2}, nil, true},
	{"floordiv", []any{-7, 2}, -4, false},
	{"floordiv", []any{7, -2}, -4, false},
	{"floordiv", []any{-7, -2}, 3, false},
	{"floordiv", []any{7, 2}, 3, false},
	{"floordiv", []any{float64(-7.5), 2}, float64(-4.0), false},
	{"floordiv", []any{float64(7.5), -2}, float64(-4.0), false},
	{"floordiv", []any{1, 0}, nil, true},
	{"floordiv", []any{float64(0.0), -3}, math.Copysign(0, -1), false},
	{"floordiv", []any{-6, 3}, -2, false},
	{"str", []any{nil}, "None", false},
	{"str", []any{true}, "True", false},
	{"str", []any{false}, "False", false},
	{"str", []any{float64(1.0)}, "1.0", false},
	{"str", []any{float64(2.5)}, "2.5", false},
	{"str", []any{float64(1e+16)}, "1e+16", false},
	{"str", []any{float64(1000000000000000.0)}, "1000000000000000.0", false},
	{"str", []any{float64(1e-05)}, "1e-05", false},
	{"str", []any{float64(0.0001)}, "0.0001", false},
	{"str", []any{math.Copysign(0, -1)}, "-0.0", false},
	{"str", []any{float64(1.5e-07)}, "1.5e-07", false},
	{"str", []any{float64(123456789.123)}, "123456789.123", false},
	{"str", []any{float64(0.30000000000000004)}, "0.30000000000000004", false},
	{"str", []any{42}, "42", false},
	{"str", []any{"x"}, "x", false},
	{"str", []any{[]any{1, "a", nil, true, float64(2.0)}}, "[1, 'a', None, True, 2.0]", false},
	{"str", []any{map[string]any{"a": []any{1}, "b": "it's"}}, "{'a': [1], 'b': \"it's\"}", false},
	{"str", []any{[]any{"say \"hi\" it's", "a\nb", "é"}}, "['say \"hi\" it\\'s', 'a\\nb', 'é']", false},
	{"str", []any{math.Inf(1)}, "inf", false},
	{"str", []any{[]any{}}, "[]", false},
	{"str", []any{map[string]any{}}, "{}", false},
	{"int", []any{"abc"}, nil, true},
	{"int", []any{" 42 "}, 42, false},
	{"int", []any{"4_2"}, 42, false},
	{"int", []any{"+5"}, 5, false},
	{"int", []any{"-5"}, -5, false},
	{"int", []any{"5.0"}, nil, true},
	{"int", []any{"0x10"}, nil, true},
	{"int", []any{"007"}, 7, false},
	{"int", []any{float64(2.7)}, 2, false},
	{"int", []any{float64(-2.7)}, -2, false},
	{"int", []any{true}, 1, false},
	{"int", []any{nil}, nil, true},
	{"int", []any{""}, nil, true},
	{"int", []any{"_1"}, nil, true},
	{"int", []any{"1__0"}, nil, true},
	{"int", []any{[]any{1}}, nil, true},
	{"float", []any{"x"}, nil, true},
	{"float", []any{" 1.5 "}, float64(1.5), false},
	{"float", []any{"1e3"}, float64(1000.0), false},
	{"float", []any{"inf"}, math.Inf(1), false},
	{"float", []any{"-Infinity"}, math.Inf(-1), false},
	{"float", []any{"1_000.5"}, float64(1000.5), false},
	{"float", []any{".5"}, float64(0.5), false},
	{"float", []any{"5."}, float64(5.0), false},
	{"float", []any{"0x10"}, nil, true},
	{"float", []any{nil}, nil, true},
	{"float", []any{3}, float64(3.0), false},
	{"float", []any{true}, float64(1.0), false},
	{"float", []any{"1e400"}, math.Inf(1), false},
	{"float", []any{""}, nil, true},
	{"float", []any{"."}, nil, true},
	{"sum", []any{[]any{1, 2, 3}}, 6, false},
	{"sum", []any{[]any{1, nil}}, nil, true},
	{"sum", []any{[]any{}}, 0, false},
	{"sum", []any{[]any{1, float64(2.5)}}, float64(3.5), false},
	{"sum", []any{[]any{true, true}}, 2, false},
	{"sum", []any{[]any{"a"}}, nil, true},
	{"sum", []any{"ab"}, nil, true},
	{"sum", []any{nil}, nil, true},
	{"sum", []any{[]any{float64(0.1), float64(0.1), float64(0.1), float64(0.1), float64(0.1), float64(0.1), float64(0.1), float64(0.1), float64(0.1), float64(0.1)}}, float64(0.9999999999999999), false},
	{"sum", []any{[]any{1, float64(0.1), 2}}, float64(3.1), false},
	{"min", []any{[]any{3, 1, 2}}, 1, false},
	{"min", []any{[]any{}}, nil, true},
	{"min", []any{[]any{1, "a"}}, nil, true},
	{"min", []any{[]any{1, nil}}, nil, true},
	{"min", []any{"bca"}, "a", false},
	{"min", []any{3, float64(1.5)}, float64(1.5), false},
	{"max", []any{[]any{1, true}}, 1, false},
	{"max", []any{[]any{true, 1}}, true, false},
	{"max", []any{[]any{"b", "a", "c"}}, "c", false},
	{"max", []any{nil}, nil, true},
	{"min", []any{[]any{nil}}, nil, false},
	{"max", []any{[]any{[]any{1, 2}, []any{1, 3}}}, []any{1, 3}, false},
	{"max", []any{map[string]any{"b": 1, "a": 2}}, "b", false},
	{"abs", []any{-3}, 3, false},
	{"abs", []any{float64(-2.5)}, float64(2.5), false},
	{"abs", []any{true}, 1, false},
	{"abs", []any{"a"}, nil, true},
	{"abs", []any{nil}, nil, true},
	{"len", []any{"é👍"}, 2, false},
	{"len", []any{[]any{1, 2}}, 2, false},
	{"len", []any{map[string]any{"a": 1}}, 1, false},
	{"len", []any{5}, nil, true},
	{"len", []any{nil}, nil, true},
	{"mul", []any{"ab", 2}, "abab", false},
	{"mul", []any{2, "ab"}, "abab", false},
	{"mul", []any{"ab", -1}, "", false},
	{"mul", []any{[]any{1}, 3}, []any{1, 1, 1}, false},
	{"mul", []any{"ab", float64(2.0)}, nil, true},
	{"mul", []any{3, float64(2.5)}, float64(7.5), false},
	{"mul", []any{"ab", true}, "ab", false},
	{"mul", []any{"a", "b"}, nil, true},
	{"mul", []any{nil, 2}, nil, true},
	{"eq", []any{1, true}, true, false},
	{"eq", []any{float64(1.0), true}, true, false},
	{"eq", []any{5, "5"}, false, false},
	{"eq", []any{"a", 1}, false, false},
	{"eq", []any{nil, nil}, true, false},
	{"eq", []any{nil, 0}, false, false},
	{"eq", []any{[]any{1, float64(2.0)}, []any{float64(1.0), 2}}, true, false},
	{"eq", []any{map[string]any{"a": 1}, map[string]any{"a": float64(1.0)}}, true, false},
	{"eq", []any{9007199254740993, float64(9007199254740992.0)}, false, false},
	{"eq", []any{math.NaN(), math.NaN()}, false, false},
}

func TestGateFunctionsAnswerAsPython(t *testing.T) {
	for _, tt := range pyFuncCases {
		t.Run(tt.fn+"("+pyRepr(tt.args)+")", func(t *testing.T) {
			got, err := pyFuncs[tt.fn](tt.args...)
			if tt.wantErr {
				require.Error(t, err)
				ok, _ := pyOK(append([]any{tt.fn}, tt.args...)...)
				require.Equal(t, false, ok, "py_ok")
				return
			}
			require.NoError(t, err)
			require.IsType(t, tt.want, got)
			require.Equal(t, tt.want, got)
			if f, isFloat := tt.want.(float64); isFloat {
				require.Equal(t, math.Signbit(f), math.Signbit(got.(float64)), "sign")
			}
		})
	}
}

var pyCmpCases = []struct {
	a       any
	op      string
	b       any
	want    bool
	wantErr bool
}{
	{[]any{1, 2}, "<", []any{2}, true, false},
	{[]any{1, 2}, "<", []any{1, 2, 0}, true, false},
	{[]any{1}, ">=", []any{1}, true, false},
	{1, "<", true, false, false},
	{"a", "<", 1, false, true},
	{"a", "<", "b", true, false},
	{[]any{1, "a"}, "<", []any{1, 2}, false, true},
	{2, "<=", float64(2.0), true, false},
	{math.NaN(), "<", 1, false, false},
	{"é", ">", "z", true, false},
	{map[string]any{"a": 1}, "<", map[string]any{"a": 2}, false, true},
}

func TestGateOrderingsAnswerAsPython(t *testing.T) {
	for _, tt := range pyCmpCases {
		t.Run(pyRepr(tt.a)+" "+tt.op+" "+pyRepr(tt.b), func(t *testing.T) {
			got, err := pyCmpFn(tt.a, tt.op, tt.b)
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestGateFunctionsAreCallableFromExpressions(t *testing.T) {
	env := map[string]any{"i": 0, "s": ""}
	tests := []struct {
		src  string
		want any
	}{
		{`py_mod(i, 3) == 2`, true},
		{`py_ok("int", s)`, false},
		{`py_ok("mod", i, 0)`, false},
		{`py_cmp([1, 2], "<", [2])`, true},
		{`py_str(nil) + py_str(true)`, "NoneTrue"},
		{`py_str(5.0) + " " + py_str(5.0, "number") + " " + py_str(2.5, "number")`, "5.0 5 2.5"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			p, err := expr.Compile(tt.src, ExprOptions(env, tt.src)...)
			require.NoError(t, err)
			got, err := expr.Run(p, map[string]any{"i": -7, "s": "abc"})
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestAVariableNamedLikeAGateFunctionIsStillRead(t *testing.T) {
	env := map[string]any{"py_str": ""}
	p, err := expr.Compile(`py_str + "!"`, ExprOptions(env, `py_str + "!"`)...)
	require.NoError(t, err)
	got, err := expr.Run(p, map[string]any{"py_str": "x"})
	require.NoError(t, err)
	require.Equal(t, "x!", got)
}
