package check

import (
	"sync/atomic"
	"unsafe"
)

// What a check stores (records, the lookup table, nodes, successors) is
// most of its memory, holds no pointers, lives exactly as long as the check,
// and grows in large blocks. On the Go heap it costs more than its size: the
// collector lets the heap grow to twice what was live at its last
// collection, and a block that is outgrown (a table that doubled, records
// re-encoded wider) stays until the next collection, and in the process's
// memory after that. So these blocks come from an arena mapped outside the
// heap (check_arena_unix.go): a block is a mapping of its own, its pages
// cost memory only once touched, an outgrown one is unmapped at once, and
// the check unmaps the rest when it ends (ModelCheck). Where no mapping is
// available (or a mapping fails), a block is an ordinary heap allocation.

// arenaMapped counts the bytes mapped by every arena of the process (tests:
// a check gives back all it mapped).
var arenaMapped atomic.Int64

// arena hands out the check's large blocks.
type arena struct {
	blocks map[unsafe.Pointer][]byte // mapped blocks by their first byte
	bytes  int                       // their size
}

// minArenaBlock is the smallest block worth a mapping: below it, a block is
// allocated on the heap (a small check maps nothing).
const minArenaBlock = 64 << 10

// arenaSlice returns a zeroed slice of n elements of T, which must hold no
// pointers (the collector does not see inside a mapped block).
func arenaSlice[T any](a *arena, n int) []T { return arenaAlloc[T](a, n, false) }

// arenaFilled is arenaSlice for a block the caller is about to write all
// over: its pages are mapped at once where the system can.
func arenaFilled[T any](a *arena, n int) []T { return arenaAlloc[T](a, n, true) }

func arenaAlloc[T any](a *arena, n int, populate bool) []T {
	var zero T
	size := n * int(unsafe.Sizeof(zero))
	if a == nil || size < minArenaBlock {
		return make([]T, n)
	}
	b := mapBlock(size, populate)
	if b == nil {
		return make([]T, n)
	}
	if a.blocks == nil {
		a.blocks = map[unsafe.Pointer][]byte{}
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	a.blocks[p] = b
	a.bytes += len(b)
	arenaMapped.Add(int64(len(b)))
	return unsafe.Slice((*T)(p), n)
}

// free gives back the block s is (or starts), if the arena mapped it;
// s must not be used after.
func arenaFree[T any](a *arena, s []T) {
	if a == nil || cap(s) == 0 {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(s[:1]))
	if b, ok := a.blocks[p]; ok {
		delete(a.blocks, p)
		a.bytes -= len(b)
		arenaMapped.Add(-int64(len(b)))
		unmapBlock(b)
	}
}

// release gives back every block: nothing from the arena may be used after.
func (a *arena) release() {
	if a == nil {
		return
	}
	for p, b := range a.blocks {
		delete(a.blocks, p)
		a.bytes -= len(b)
		arenaMapped.Add(-int64(len(b)))
		unmapBlock(b)
	}
}
