package machine

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/lppctl/lppctl/internal/textx"

	"github.com/expr-lang/expr/file"
)

// EvalError is an expression of the spec that failed when the run evaluated
// it (an integer overflow, a division by zero, a value that is not a finite
// number...). It says where the expression is written and what it is.
type EvalError struct {
	File string
	Pos  Pos    // where the failing part of the expression is written
	What string // "set retries", "parameter \"value\"", "guard"
	Expr string // the expression's text
	Msg  string // what went wrong
	Err  error  // the cause (errors.Is works through it: ErrIntOverflow, ...)
}

func (e *EvalError) Error() string {
	d := Diagnostic{File: e.File, Pos: e.Pos}
	return fmt.Sprintf("%s: %s: %s (in %s)", d.Where(), e.What, e.Msg, oneLineExpr(e.Expr))
}

func (e *EvalError) Unwrap() error { return e.Err }

// oneLineExpr renders an expression for a message: on one line, cut when long.
func oneLineExpr(src string) string {
	r := []rune(textx.OneLine(src))
	if len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return string(r)
}

// evalError turns an error of evaluating the expression src, written at
// start in the spec, into an *EvalError located at the failing operation.
func (m *Machine) evalError(what, src string, start Pos, err error) error {
	e := &EvalError{File: m.spec.File, Pos: start, What: what, Expr: src, Msg: err.Error(), Err: err}
	var fe *file.Error
	if errors.As(err, &fe) {
		e.Msg = fe.Message
		if m.spec.Source != nil {
			e.Pos = ExprPos(m.spec.Source, start, src, fe.From)
		}
		if fe.Prev != nil {
			e.Err = fe.Prev
		}
	}
	return e
}

// notFinite returns the first value inside v (v itself, or an item of a list
// or map, at any depth) that is a float and not a finite number, and true;
// JSON, and so the run's journal, cannot hold one.
func NotFinite(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return x, true
		}
	case []any:
		for _, item := range x {
			if f, bad := NotFinite(item); bad {
				return f, true
			}
		}
	case map[string]any:
		for _, item := range x {
			if f, bad := NotFinite(item); bad {
				return f, true
			}
		}
	}
	return 0, false
}

// checkFinite fails when the value of the expression src holds a float that
// is not a finite number.
func (m *Machine) checkFinite(what, src string, start Pos, v any) error {
	f, bad := NotFinite(v)
	if !bad {
		return nil
	}
	msg := fmt.Sprintf("the value is %v, %s", f, ErrNotFinite)
	if _, whole := v.(float64); !whole {
		msg = fmt.Sprintf("the value holds %v, %s", f, ErrNotFinite)
	}
	return &EvalError{File: m.spec.File, Pos: start, What: what, Expr: src, Msg: msg + "; a division by zero or an overflow gives one: guard the operation, e.g. `d == 0 ? 0.0 : x / d`", Err: ErrNotFinite}
}

// checkParam checks the value v of the expression of parameter p: a finite
// number, and the parameter's format if it has one (then v becomes the
// format's canonical text).
func (m *Machine) checkParam(p cparam, v any) (any, error) {
	what := fmt.Sprintf("parameter %q", p.name)
	if err := m.checkFinite(what, p.src, p.at, v); err != nil || p.format == "" {
		return v, err
	}
	s, err := p.format.Value(v)
	if err != nil {
		return nil, &EvalError{File: m.spec.File, Pos: p.at, What: what, Expr: p.src, Msg: strings.TrimPrefix(err.Error(), ErrFormat.Error()+": "), Err: err}
	}
	return s, nil
}
