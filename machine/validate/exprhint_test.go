package validate

import (
	"testing"

	"github.com/expr-lang/expr/builtin"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TestEveryExpressionBuiltinHasAUsage keeps builtinUsage complete: a hint
// for a wrong number of arguments can quote any built-in's call.
func TestEveryExpressionBuiltinHasAUsage(t *testing.T) {
	for _, name := range builtin.Names {
		if _, ok := builtinUsage[name]; !ok {
			t.Errorf("builtinUsage has no usage for %s()", name)
		}
	}
	for name := range builtinUsage {
		if !mspec.IsBuiltin(name) {
			t.Errorf("builtinUsage names %s(), which is not an expression built-in", name)
		}
	}
}

// TestCalledFuncFindsTheCallAnErrorIsReportedIn: expr reports a wrong
// number of arguments at the function's name or at the closing parenthesis.
func TestCalledFuncFindsTheCallAnErrorIsReportedIn(t *testing.T) {
	for _, tt := range []struct {
		line string
		col  int
		want string
	}{
		{`when: len() > 0`, 7, "len"},
		{`when: hasPrefix (x)`, 7, "hasPrefix"},
		{`when: len(filter(items)) > 0`, 23, "filter"},
		{`when: len(filter(items, f(x))) > 0`, 29, "filter"},
		{`when: upper(trim(reply, "x", "y"))`, 13, "trim"},
		{`when: x > 0`, 7, ""},
		{`when: (x > 0`, 12, ""},
		{`x`, 0, ""},
		{`x`, 5, ""},
	} {
		if got := calledFunc(tt.line, tt.col); got != tt.want {
			t.Errorf("calledFunc(%q, %d) = %q, want %q", tt.line, tt.col, got, tt.want)
		}
	}
}

// A syntax error says how to fix it: the messages expr gives for a cut
// expression, an unclosed string, a single = and another token out of place
// (they had no hint: about one error in eight in an audit's fuzzed specs).
func TestSyntaxErrorsSayHowToFixThem(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{`n >`, "the expression ends too early: an operator, a comma or an opened bracket still needs what follows it"},
		{`s == 'a`, "a string is not closed: end it with the quote it starts with ('...' or \"...\")"},
		{`verdict = "FAIL"`, "compare with ==: a single = is not an operator of expressions (set: assigns)"},
		{`n > > 1`, "expressions are expr's (https://expr-lang.org/docs/language-definition): names, literals ('text', 3, true, [1, 2], {k: 1}), operators and calls"},
	} {
		_, err := mspec.CompileGuard(tt.src, map[string]any{"n": 0, "s": "", "verdict": ""})
		if err == nil {
			t.Fatalf("%s compiles", tt.src)
		}
		e := mspec.LocateExprError(err, mspec.Pos{Line: 1, Col: 1})
		if got := exprHint(e.Msg, tt.src, e.Pos.Col); got != tt.want {
			t.Errorf("%s (%s): hint %q, want %q", tt.src, e.Msg, got, tt.want)
		}
	}
}
