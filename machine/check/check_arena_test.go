package check

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// mapped is the number of bytes the arena's blocks hold, counted anew.
func (a *arena) mapped() int {
	n := 0
	for _, b := range a.blocks {
		n += len(b)
	}
	return n
}

// mapsBlocks: the platforms where the arena maps its blocks (elsewhere they
// are heap allocations and nothing is mapped).
func mapsBlocks() bool { return mapBlock(minArenaBlock, false) != nil }

// TestArenaGivesBackWhatItMapped: a large block is mapped (a small one is
// not), zeroed and writable; freeing it, or releasing the arena, unmaps it;
// freeing a heap block does nothing.
func TestArenaGivesBackWhatItMapped(t *testing.T) {
	before := arenaMapped.Load()
	a := &arena{}
	big := arenaFilled[uint64](a, minArenaBlock/8)
	small := arenaSlice[int32](a, 16)
	other := arenaSlice[xnode](a, chunkLen)
	require.Len(t, big, minArenaBlock/8)
	require.Len(t, other, chunkLen)
	for i := range big {
		require.Zero(t, big[i])
	}
	big[len(big)-1], other[chunkLen-1] = 7, xnode{parent: 3, move: 4}
	if !mapsBlocks() {
		assert.Zero(t, a.mapped(), "%s maps nothing", runtime.GOOS)
		return
	}
	assert.Equal(t, minArenaBlock+chunkLen*8, a.mapped())
	assert.Equal(t, a.mapped(), a.bytes)
	arenaFree(a, small) // a heap block: nothing to unmap
	arenaFree(a, big)
	assert.Equal(t, chunkLen*8, a.mapped())
	assert.Equal(t, a.mapped(), a.bytes)
	a.release()
	assert.Zero(t, a.mapped())
	assert.Equal(t, before, arenaMapped.Load())
}

// TestModelCheckUnmapsItsStore: a check large enough to map its store,
// whose table doubles and whose records widen (ids past 255) on the way,
// gives back every block when it ends.
func TestModelCheckUnmapsItsStore(t *testing.T) {
	if !mapsBlocks() {
		t.Skipf("%s: the arena maps nothing", runtime.GOOS)
	}
	m := spectest.Compile(t, `lpp: 1
name: wide
limits: {max_transitions: 1000000}
context:
  n: {type: int, default: 0, range: [0, 70000]}
initial: a
states:
  a:
    next:
      - {to: done, when: n == 70000}
      - {to: a, set: {n: n + 1}}
  done: {final: true}
`, nil)
	before := arenaMapped.Load()
	r := ModelCheck(context.Background(), m, CheckOptions{})
	require.True(t, r.Complete, r.Stopped)
	assert.Equal(t, 70002, r.Stats.States)
	assert.Equal(t, before, arenaMapped.Load(), "bytes left mapped")
}
