package spec

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
func ValueSize(v any, limit int) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case []any:
		n := 8 * len(x)
		for _, e := range x {
			if n > limit {
				break
			}
			n += ValueSize(e, limit-n)
		}
		return n
	case map[string]any:
		n := 16 * len(x)
		for k, e := range x {
			if n > limit {
				break
			}
			n += len(k) + ValueSize(e, limit-n)
		}
		return n
	}
	return 8
}

// valueTooLarge says why the value v of a set is refused (nil when it is
// not): its size and the limit. The error wraps ErrValueTooLarge; its text
// does not name it.
func ValueTooLarge(v any) error {
	if n := ValueSize(v, MaxValueBytes); n > MaxValueBytes {
		return TooLargeError{n}
	}
	return nil
}

type TooLargeError struct{ N int }

func (e TooLargeError) Error() string {
	return fmt.Sprintf("the value is %d bytes or more, past the limit of %d for a context value; a set that grows a value on every pass (s: s + s) never ends: bound it with a guard", e.N, MaxValueBytes)
}

func (TooLargeError) Unwrap() error { return ErrValueTooLarge }

// itemsSize is what appending items adds to a list's size (as valueSize
// counts it), stopping once past limit.
func ItemsSize(items []any, limit int) int {
	n := 8 * len(items)
	for _, e := range items {
		if n > limit {
			break
		}
		n += ValueSize(e, limit-n)
	}
	return n
}
