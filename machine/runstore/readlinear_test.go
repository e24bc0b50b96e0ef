package runstore

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readBytes returns the bytes allocated by read.
func readBytes(t *testing.T, read func()) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	read()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestReadingAJournalIsLinearInItsSteps reads back (ReadJournal, then Fold
// as lppctl runs show does) the journals of runs whose map gains a key per
// step (growmap.yaml) and whose list gains an item per step (grow.yaml), of
// 1,000 and 4,000 steps: the bytes allocated grow about as the journal (4×),
// not as its square (16×, a copy of the map per step).
func TestReadingAJournalIsLinearInItsSteps(t *testing.T) {
	for _, tt := range []struct{ spec, name string }{
		{"growmap.yaml", "m"},
		{"grow.yaml", "xs"},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			m := specMachine(t, tt.spec)
			var got []uint64
			for _, steps := range []int{1000, 4000} {
				run := journalRun(t, m, map[string]any{"limit": steps}, FsyncNever)
				var size int
				got = append(got, readBytes(t, func() {
					l, err := run.ReadJournal()
					require.NoError(t, err)
					snap, err := Fold(nil, nil, l)
					require.NoError(t, err)
					size = lenOf(snap.Vars[tt.name])
				}))
				require.Equal(t, steps, size, "the value after the last step")
			}
			ratio := float64(got[1]) / float64(got[0])
			t.Logf("bytes allocated: %d (1,000 steps), %d (4,000): ×%.2f", got[0], got[1], ratio)
			assert.LessOrEqual(t, ratio, 5.0, "bytes allocated reading 4,000 steps / 1,000 steps (%d / %d)", got[1], got[0])
		})
	}
}

func lenOf(v any) int {
	switch x := v.(type) {
	case map[string]any:
		return len(x)
	case []any:
		return len(x)
	}
	panic(fmt.Sprintf("not a map or list: %T", v))
}
