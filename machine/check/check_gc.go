package check

import (
	"runtime/debug"
	"sync"
)

// checkGCPercent is the garbage collector's target while a check runs.
//
// What a check keeps (records, the table, parents, successors) holds no
// pointers, so a collection costs little however large the store is; but with
// Go's default (100: collect when the heap has doubled since the last
// collection) the garbage of evaluation and of grown slices lets the heap
// reach twice what is live. At 10 the peak stays near 1.1 times the store, for a few more
// collections, each short.
const checkGCPercent = 10

var gcTarget struct {
	sync.Mutex
	checks int // checks running
	old    int // the percentage before the first of them
}

// lowerGC sets checkGCPercent while checks run, and returns the function
// that puts back the previous percentage when the last one ends. A
// percentage already lower (or GOGC=off) is left as it is.
func lowerGC() func() {
	gcTarget.Lock()
	defer gcTarget.Unlock()
	if gcTarget.checks == 0 {
		gcTarget.old = debug.SetGCPercent(checkGCPercent)
		if gcTarget.old < 0 || gcTarget.old <= checkGCPercent {
			debug.SetGCPercent(gcTarget.old)
		}
	}
	gcTarget.checks++
	return func() {
		gcTarget.Lock()
		defer gcTarget.Unlock()
		gcTarget.checks--
		if gcTarget.checks == 0 {
			debug.SetGCPercent(gcTarget.old)
		}
	}
}
