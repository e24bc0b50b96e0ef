package machine

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"
)

// ErrTimeInValue is wrapped by the error of a set whose list or map value
// holds a time, a duration or a time zone: the run's journal (JSON) would
// store it as another type, so a resumed run would not read what was set.
var ErrTimeInValue = errors.New("a time value inside a list or map")

// timeKind describes a time value that a list or map cannot keep across a
// resume: what it is, what the journal makes of it, and how to store it.
type timeKind struct {
	What, Journaled, Reads, Convert string
}

var TimeKinds = map[reflect.Type]timeKind{
	reflect.TypeFor[time.Time]():      {"a time", "as text", "a string", `now().Format("2006-01-02T15:04:05Z07:00") or now().Unix()`},
	reflect.TypeFor[time.Duration]():  {"a duration", "as a number of nanoseconds", "an int", `string(d) or d.Seconds()`},
	reflect.TypeFor[*time.Location](): {"a time zone", "as an empty map", "a map", `timezone("Europe/Paris").String()`},
}

// timeInside returns the first time value inside the lists and maps of v (at
// any depth; v itself is not looked at: a variable's type refuses it) and
// where it is ("[0]", ".at", "[2].when"), with its kind. It costs a type
// switch per item: the path is written only when a time value is found, and
// a map's keys are sorted only then (to name the first in key order).
func timeInside(v any) (where string, kind timeKind, found bool) {
	return timeInsideFrom(v, 0)
}

// timeInsideFrom is timeInside for the items of a list that follow from
// items before them (appended): the path counts from index from.
func timeInsideFrom(v any, from int) (where string, kind timeKind, found bool) {
	if !holdsTime(v, true) {
		return "", timeKind{}, false
	}
	var walk func(x any, path string, top bool) bool
	walk = func(x any, path string, top bool) bool {
		if x == nil {
			return false
		}
		if k, ok := TimeKinds[reflect.TypeOf(x)]; ok && !top {
			where, kind = path, k
			return true
		}
		switch c := x.(type) {
		case []any:
			for i, item := range c {
				if holdsTime(item, false) && walk(item, fmt.Sprintf("%s[%d]", path, i+from*btoi(top)), false) {
					return true
				}
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(c)) {
				if holdsTime(c[k], false) && walk(c[k], path+"."+k, false) {
					return true
				}
			}
		}
		return false
	}
	found = walk(v, "", true)
	return where, kind, found
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// holdsTime reports whether x is a time value (unless top) or holds one in
// its lists and maps, at any depth.
func holdsTime(x any, top bool) bool {
	switch c := x.(type) {
	case nil, string, bool, int, int64, float64:
		return false
	case []any:
		for _, item := range c {
			if holdsTime(item, false) {
				return true
			}
		}
		return false
	case map[string]any:
		for _, item := range c {
			if holdsTime(item, false) {
				return true
			}
		}
		return false
	}
	if top {
		return false
	}
	_, ok := TimeKinds[reflect.TypeOf(x)]
	return ok
}

// checkStorable fails when the value v of the set expression src (written at
// start) is one the run's journal cannot keep as it is: a float that is not
// a finite number, or a time value inside a list or map.
func (m *Machine) checkStorable(what, src string, start Pos, v any) error {
	if err := m.checkFinite(what, src, start, v); err != nil {
		return err
	}
	return m.checkTimeInside(what, src, start, v, 0)
}

// checkStorableAt is checkStorable for the items of a list that a set
// appended after from items that were checked before.
func (m *Machine) checkStorableAt(what, src string, start Pos, items []any, from int) error {
	if err := m.checkFinite(what, src, start, items); err != nil {
		return err
	}
	return m.checkTimeInside(what, src, start, items, from)
}

func (m *Machine) checkTimeInside(what, src string, start Pos, v any, from int) error {
	where, k, bad := timeInsideFrom(v, from)
	if !bad {
		return nil
	}
	return &EvalError{File: m.spec.File, Pos: start, What: what, Expr: src, Err: ErrTimeInValue,
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
