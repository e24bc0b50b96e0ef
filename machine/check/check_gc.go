package check

import (
	"runtime/debug"
	"sync"
)

// checkGCPercent is the garbage collector's target while a large check runs.
//
// What a check keeps (records, the table, parents, successors) holds no
// pointers, so a collection costs little however large the store is; but with
// Go's default (100: collect when the heap has doubled since the last
// collection) the garbage of evaluation and of grown slices lets the heap
// reach twice what is live. At 10 the peak stays near 1.1 times the store, for
// more collections, each short. A small check keeps the default: there the
// extra collections would cost more CPU (a fifth more on 100,000 pairs) than
// the memory they save. The target is lowered once the store holds
// gcLowerAt bytes on the heap: where the arena maps it (check_arena.go), the
// collector does not manage it and the target stays.
const checkGCPercent = 10

// gcLowerAt is the size of the store (records, table, parents, successors)
// from which a check lowers the collector's target.
var gcLowerAt = 16 << 20

// keptBytes estimates what the store holds on the heap: nothing of what the
// arena mapped (check_arena.go), whose blocks the collector does not manage.
func (x *Explorer) keptBytes() int {
	word := x.store.size
	kept := x.nodes.len()*(x.store.width*word+8+1+4) + x.succ.len()*4 + len(x.store.table)*4
	return kept - x.arena.bytes
}

// maybeLowerGC lowers the collector's target once the store is large; the
// check puts it back when it ends (x.restoreGC).
func (x *Explorer) maybeLowerGC() {
	if x.restoreGC == nil && x.keptBytes() >= gcLowerAt {
		x.restoreGC = lowerGC()
	}
}

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
