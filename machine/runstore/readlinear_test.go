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

// BenchmarkReadMapJournal reads back the journal of a run whose map gains a
// key per step (growmap.yaml), as lppctl runs show does: ReadJournal, then
// Fold. Its bytes and allocations per step are flat in the run's length
// when a step holds only the keys it changed (they grew with the map when
// each step held a copy of it).
func BenchmarkReadMapJournal(b *testing.B) {
	m := specMachine(b, "growmap.yaml")
	for _, steps := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("steps=%d", steps), func(b *testing.B) {
			run := journalRun(b, m, map[string]any{"limit": steps}, FsyncNever)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				l, err := run.ReadJournal()
				if err != nil {
					b.Fatal(err)
				}
				snap, err := Fold(nil, nil, l)
				if err != nil {
					b.Fatal(err)
				}
				if n := lenOf(snap.Vars["m"]); n != steps {
					b.Fatalf("%d keys, want %d", n, steps)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(steps+1), "ns/step")
		})
	}
}
