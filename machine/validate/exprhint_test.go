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
