package machine

import (
	"fmt"
	"strings"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// A set's evaluation: every expression against the context as it was
// before the set, each by the fastest way its shape allows (an append to a
// list, keys changed in a map, text added to a string) or as written.

// assign evaluates every expression of a set against the context as it was
// before the set, then applies them all.
func (r *Run) assign(set []Cassign, changed map[string]any) (map[string]any, error) {
	if len(set) == 0 {
		return changed, nil
	}
	var buf [8]any
	var owns [8][]any // the arrays of the sets that appended (nil: set as written)
	var befores [8]int
	var sizes [8]int        // the sizes of the values of list and map variables (-1: not measured)
	var keyed [8]*mapChange // the changes of the sets that changed keys of a map (nil: set as written)
	var texts [8][]byte     // the bytes of the sets that added to a string (nil: set as written)
	vals := buf[:0]
	for i := range set {
		a := &set[i]
		if i < len(owns) {
			sizes[i] = -1
			if list, tail, n, size, ok := r.appendItems(a); ok {
				// Only the items appended are checked: the list's were before.
				if r.m.checkStorableAt("set "+a.V.Name, a.A.Expr, a.A.ExprPos, tail, n) == nil {
					owns[i], befores[i], sizes[i] = list, n, size
					vals = append(vals, list[:len(list):len(list)])
					continue
				}
				// Evaluated as written, for the error's sake.
			}
			if s, own, ok := r.addText(a); ok {
				texts[i] = own
				vals = append(vals, s)
				continue
			}
			if a.keys != nil {
				if ch, ok := r.mapKeys(a); ok {
					keyed[i] = &ch
					vals = append(vals, nil) // the map, once changed
					continue
				}
			}
		}
		v, err := r.vm.Run(a.Prog, r.env)
		if err != nil {
			return changed, r.m.evalError("set "+a.V.Name, a.A.Expr, a.A.ExprPos, err)
		}
		cv, err := r.m.coerceSet(a, v)
		if err != nil {
			return changed, err
		}
		size := mspec.ValueSize(cv, mspec.MaxValueBytes)
		if size > mspec.MaxValueBytes {
			return changed, &EvalError{File: r.m.spec.File, Pos: a.A.ExprPos, What: "set " + a.V.Name, Expr: a.A.Expr, Msg: mspec.TooLargeError{N: size}.Error(), Err: mspec.ErrValueTooLarge}
		}
		if i < len(sizes) {
			sizes[i] = size
		}
		if err := r.m.checkStorableValue(a, cv); err != nil {
			return changed, err
		}
		r.escaped(cv, a.reads)
		if err := r.m.checkEnum(a, cv); err != nil {
			return changed, err
		}
		vals = append(vals, cv)
	}
	for i, a := range set {
		switch {
		case i < len(owns) && owns[i] != nil:
			r.keepAppended(a.V.Name, owns[i], befores[i], changed)
		case r.grown != nil:
			r.keepAppended(a.V.Name, nil, -1, changed)
		}
		if a.V.Type == mspec.TypeString {
			if i < len(texts) {
				r.keepText(a.V.Name, texts[i])
			} else {
				r.keepText(a.V.Name, nil)
			}
		}
		if i < len(keyed) && keyed[i] != nil {
			vals[i] = r.applyKeys(a.V.Name, *keyed[i])
			r.keepKeys(a.V.Name, keyed[i], changed)
		} else {
			if r.keys != nil {
				r.keepKeys(a.V.Name, nil, changed)
			}
			switch {
			case a.V.Type != mspec.TypeList && a.V.Type != mspec.TypeMap:
			case i < len(sizes) && sizes[i] >= 0:
				r.keepSize(a.V.Name, sizes[i])
			default:
				delete(r.sizes, a.V.Name)
			}
		}
		r.env[a.V.Name] = vals[i]
		changed = setChanged(changed, a.V.Name, vals[i])
	}
	return changed, nil
}

func setChanged(changed map[string]any, name string, v any) map[string]any {
	if changed == nil {
		changed = make(map[string]any, 4)
	}
	changed[name] = v
	return changed
}

// trySet evaluates the set as assign does, without applying it, and
// returns the error assign would return: an event fired on a stopped run
// (FireEvent) is refused when its transition's set cannot be applied, with
// the run left as it was, rather than stopping the run between its resume
// and its next step. The set is evaluated as written (assign's faster
// shapes give the same values).
func (r *Run) trySet(set []Cassign) error {
	for i := range set {
		a := &set[i]
		v, err := r.vm.Run(a.Prog, r.env)
		if err != nil {
			return r.m.evalError("set "+a.V.Name, a.A.Expr, a.A.ExprPos, err)
		}
		cv, err := r.m.coerceSet(a, v)
		if err == nil {
			err = r.m.checkStorableValue(a, cv)
		}
		if err == nil {
			err = r.m.checkEnum(a, cv)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// coerceSet converts the value v of set a to its variable's type, or says,
// where the set is written, why it cannot be stored there (a value of
// another type, as a payload field of type any gives; null in a variable
// that is not nullable).
func (m *Machine) coerceSet(a *Cassign, v any) (any, error) {
	cv, err := a.V.Coerce(v)
	if err != nil {
		return nil, &EvalError{File: m.spec.File, Pos: a.A.ExprPos, What: "set " + a.V.Name, Expr: a.A.Expr, Err: err,
			Msg: SetValueMessage(a, v, err)}
	}
	return cv, nil
}

// checkEnum fails when the value cv of set a is not one of its variable's
// enum values.
func (m *Machine) checkEnum(a *Cassign, cv any) error {
	if s, ok := cv.(string); ok && len(a.V.Enum) > 0 && !mspec.Contains(a.V.Enum, s) {
		return &EvalError{File: m.spec.File, Pos: a.A.ExprPos, What: "set " + a.V.Name, Expr: a.A.Expr,
			Msg: fmt.Sprintf("%q is not one of %s", s, mspec.QuoteList(a.V.Enum))}
	}
	return nil
}

// SetValueMessage says why the value v of set a cannot be stored in its
// variable (err is Var.Coerce's): for null in a variable that is not
// nullable, the two ways out. The run and lppctl check report it alike.
func SetValueMessage(a *Cassign, v any, err error) string {
	if v != nil {
		return err.Error()
	}
	zero := map[mspec.Type]string{mspec.TypeInt: "0", mspec.TypeFloat: "0.0", mspec.TypeBool: "false", mspec.TypeString: `""`, mspec.TypeList: "[]", mspec.TypeMap: "{}"}[a.V.Type]
	fix := "… ?? " + zero
	if src := strings.TrimSpace(a.A.Expr); len(src) <= 40 && !strings.ContainsAny(src, "\n") {
		if strings.ContainsAny(src, " ?:") {
			src = "(" + src + ")"
		}
		fix = src + " ?? " + zero
	}
	return fmt.Sprintf("the value is null, and %s is not nullable: declare it `nullable: true`, or give a value for null: `%s`", a.V.Name, fix)
}
