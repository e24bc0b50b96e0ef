package spec

import (
	"errors"
	"strings"

	"github.com/expr-lang/expr/file"
)

// EvalFailure reads an error of evaluating an expression: what went wrong,
// without expr's own "(line:col)" and snippet (the caller says where, in the
// spec), and where in the expression's text the failing operation starts
// (from, in runes; -1 when the error does not say). cause is what
// errors.Is should see (expr's wrapped error when it has one).
func EvalFailure(err error) (msg string, from int, cause error) {
	var fe *file.Error
	if !errors.As(err, &fe) {
		return err.Error(), -1, err
	}
	msg, cause = fe.Message, err
	if fe.Prev != nil {
		cause = fe.Prev
	}
	if strings.HasPrefix(msg, "reflect: call of reflect.Value.") && strings.HasSuffix(msg, "on zero Value") {
		// int(nil), float(nil)...: expr's builtins reflect on a null.
		msg = "a null value (nil) where a value is needed: test it first (x == nil ? 0 : int(x)) or give the variable a default"
	}
	return msg, fe.From, cause
}
