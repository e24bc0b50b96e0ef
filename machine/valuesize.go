package machine

import (
	mspec "github.com/lppctl/lppctl/machine/spec"
)

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
	n := mspec.ValueSize(cur, mspec.MaxValueBytes)
	r.keepSize(name, n)
	return n
}

// keepSize records the size n of name's value (forgotten when past the
// limit: such a value is refused before it is stored).
func (r *Run) keepSize(name string, n int) {
	if n > mspec.MaxValueBytes {
		delete(r.sizes, name)
		return
	}
	if r.sizes == nil {
		r.sizes = map[string]int{}
	}
	r.sizes[name] = n
}
