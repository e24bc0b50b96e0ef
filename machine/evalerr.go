package machine

import (
	"fmt"
	"strings"

	"github.com/lppctl/lppctl/internal/textx"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// EvalError is an expression of the spec that failed when the run evaluated
// it (an integer overflow, a division by zero, a value that is not a finite
// number...). It says where the expression is written and what it is.
type EvalError struct {
	File string
	Pos  mspec.Pos // where the failing part of the expression is written
	What string    // "set retries", "parameter \"value\"", "guard"
	Expr string    // the expression's text
	Msg  string    // what went wrong
	Err  error     // the cause (errors.Is works through it: ErrIntOverflow, ...)
}

func (e *EvalError) Error() string {
	d := mspec.Diagnostic{File: e.File, Pos: e.Pos}
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
func (m *Machine) evalError(what, src string, start mspec.Pos, err error) error {
	msg, from, cause := mspec.EvalFailure(err)
	e := &EvalError{File: m.spec.File, Pos: start, What: what, Expr: src, Msg: msg, Err: cause}
	if from >= 0 && m.spec.Source != nil {
		e.Pos = mspec.ExprPos(m.spec.Source, start, src, from)
	}
	return e
}

// checkFinite fails when the value of the expression src holds a float that
// is not a finite number.
func (m *Machine) checkFinite(what, src string, start mspec.Pos, v any) error {
	f, bad := mspec.NotFinite(v)
	if !bad {
		return nil
	}
	msg := fmt.Sprintf("the value is %v, %s", f, mspec.ErrNotFinite)
	if _, whole := v.(float64); !whole {
		msg = fmt.Sprintf("the value holds %v, %s", f, mspec.ErrNotFinite)
	}
	return &EvalError{File: m.spec.File, Pos: start, What: what, Expr: src, Msg: msg + "; a division by zero or an overflow gives one: guard the operation, e.g. `d == 0 ? 0.0 : x / d`", Err: mspec.ErrNotFinite}
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
		return nil, &EvalError{File: m.spec.File, Pos: p.at, What: what, Expr: p.src, Msg: strings.TrimPrefix(err.Error(), mspec.ErrFormat.Error()+": "), Err: err}
	}
	return s, nil
}

// checkStorable fails when the value v of the set expression src (written at
// start) is one the run's journal cannot keep as it is: a float that is not
// a finite number, or a time value inside a list or map.
func (m *Machine) checkStorable(what, src string, start mspec.Pos, v any) error {
	if err := m.checkFinite(what, src, start, v); err != nil {
		return err
	}
	return m.checkTimeInside(what, src, start, v, 0)
}

// checkStorableAt is checkStorable for the items of a list that a set
// appended after from items that were checked before.
func (m *Machine) checkStorableAt(what, src string, start mspec.Pos, items []any, from int) error {
	if err := m.checkFinite(what, src, start, items); err != nil {
		return err
	}
	return m.checkTimeInside(what, src, start, items, from)
}

func (m *Machine) checkTimeInside(what, src string, start mspec.Pos, v any, from int) error {
	where, k, bad := mspec.TimeInsideFrom(v, from)
	if !bad {
		return nil
	}
	return &EvalError{File: m.spec.File, Pos: start, What: what, Expr: src, Err: mspec.ErrTimeInValue,
		Msg: fmt.Sprintf("the value holds %s at %s, which the run's journal would store %s, so a resumed run would read %s; store it converted, e.g. %s",
			k.What, where, k.Journaled, k.Reads, k.Convert)}
}

// checkStorableValue is checkStorable for the value cv of the set a; the
// values that are always storable (an int, a string...) cost a type switch.
func (m *Machine) checkStorableValue(a *Cassign, cv any) error {
	switch cv.(type) {
	case nil, bool, int, int64, string:
		return nil
	}
	return m.checkStorable("set "+a.V.Name, a.A.Expr, a.A.ExprPos, cv)
}
