package machine

import (
	"errors"
	"fmt"
)

// MaxValueBytes is the largest value a set may give a context variable
// (strings counted by their bytes, lists and maps by their items): a set
// that grows a value without bound (s: s + s) stops with an error in a run
// and in the model checker instead of exhausting memory.
const MaxValueBytes = 8 << 20

// ErrValueTooLarge is wrapped by the error of a set whose value is larger
// than MaxValueBytes.
var ErrValueTooLarge = errors.New("value too large")

// valueSize returns about how many bytes v holds, stopping once past limit.
func valueSize(v any, limit int) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case []any:
		n := 8 * len(x)
		for _, e := range x {
			if n > limit {
				break
			}
			n += valueSize(e, limit-n)
		}
		return n
	case map[string]any:
		n := 16 * len(x)
		for k, e := range x {
			if n > limit {
				break
			}
			n += len(k) + valueSize(e, limit-n)
		}
		return n
	}
	return 8
}

// valueTooLarge says why the value v of a set is refused (nil when it is
// not): its size and the limit. The error wraps ErrValueTooLarge; its text
// does not name it.
func ValueTooLarge(v any) error {
	if n := valueSize(v, MaxValueBytes); n > MaxValueBytes {
		return tooLargeError{n}
	}
	return nil
}

type tooLargeError struct{ n int }

func (e tooLargeError) Error() string {
	return fmt.Sprintf("the value is %d bytes or more, past the limit of %d for a context value; a set that grows a value on every pass (s: s + s) never ends: bound it with a guard", e.n, MaxValueBytes)
}

func (tooLargeError) Unwrap() error { return ErrValueTooLarge }

// A list or map variable that grows by appends (or by changed keys) is not
// measured whole at every step: the run keeps each such variable's size
// (valueSize of its current value, at most MaxValueBytes) and adds the size
// of what a step adds to it, so the limit holds at O(1) per appended item.
// The size is forgotten whenever the variable is set otherwise than by the
// run's own sets (an action, a replayed or restored value) and measured
// again, once, at its next append.

// knownSize returns the size of name's current value cur, measuring it when
// the run does not know it.
func (r *Run) knownSize(name string, cur any) int {
	if n, ok := r.sizes[name]; ok {
		return n
	}
	n := valueSize(cur, MaxValueBytes)
	r.keepSize(name, n)
	return n
}

// keepSize records the size n of name's value (forgotten when past the
// limit: such a value is refused before it is stored).
func (r *Run) keepSize(name string, n int) {
	if n > MaxValueBytes {
		delete(r.sizes, name)
		return
	}
	if r.sizes == nil {
		r.sizes = map[string]int{}
	}
	r.sizes[name] = n
}

// itemsSize is what appending items adds to a list's size (as valueSize
// counts it), stopping once past limit.
func itemsSize(items []any, limit int) int {
	n := 8 * len(items)
	for _, e := range items {
		if n > limit {
			break
		}
		n += valueSize(e, limit-n)
	}
	return n
}
