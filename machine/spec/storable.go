package spec

import (
	"errors"
	"fmt"
	"maps"
	"math"
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
func TimeInside(v any) (where string, kind timeKind, found bool) {
	return TimeInsideFrom(v, 0)
}

// timeInsideFrom is timeInside for the items of a list that follow from
// items before them (appended): the path counts from index from.
func TimeInsideFrom(v any, from int) (where string, kind timeKind, found bool) {
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
