package runstore

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// bytesPerStep returns the bytes allocated per call of step, over n calls.
func bytesPerStep(t *testing.T, n int, step func(i int)) float64 {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range n {
		step(i)
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// TestAJournaledChangeCostsWhatChanged writes a list that grows by one item
// and a map that gains one key per step, from 10 and from 10,000 items: the
// bytes allocated per step must not grow with the value (an encoder that
// copied the list or encoded every key would allocate in proportion).
func TestAJournaledChangeCostsWhatChanged(t *testing.T) {
	tests := []struct {
		name string
		// vars returns the step's vars at step i from a value of size items
		vars func(size, i int) (map[string]any, map[string]int)
	}{
		{name: "a list appended to by the machine", vars: func() func(size, i int) (map[string]any, map[string]int) {
			var xs []any
			return func(size, i int) (map[string]any, map[string]int) {
				if i == 0 {
					xs = make([]any, size, size+1000)
					for k := range xs {
						xs[k] = fmt.Sprintf("item %d", k)
					}
					return map[string]any{"xs": xs[:size:size]}, nil
				}
				before := len(xs)
				xs = append(xs, i)
				return map[string]any{"xs": xs[:len(xs):len(xs)]}, map[string]int{"xs": before}
			}
		}()},
		{name: "a map that gains a key", vars: func() func(size, i int) (map[string]any, map[string]int) {
			var m map[string]any
			return func(size, i int) (map[string]any, map[string]int) {
				if i == 0 {
					m = make(map[string]any, size)
					for k := range size {
						m[fmt.Sprintf("key %d", k)] = k
					}
				} else {
					m[fmt.Sprintf("new %d", i)] = i // in place: the encoder keeps no reference to it
				}
				return map[string]any{"m": m}, nil
			}
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cost := map[int]float64{}
			for _, size := range []int{10, 10000} {
				_, j := newTestRun(t, FsyncNever)
				write := func(i int) {
					vars, appended := tt.vars(size, i)
					if err := j.OnStep(context.Background(), &machine.Record{Seq: i + 1, From: "a", To: "a", Vars: vars, Appended: appended}); err != nil {
						t.Fatal(err)
					}
				}
				write(0) // in full
				cost[size] = bytesPerStep(t, 200, func(i int) { write(i + 1) })
				require.NoError(t, j.Close())
			}
			assert.Less(t, cost[10000], 2*cost[10]+2048, "bytes allocated per step by size of the value: %v", cost)
		})
	}
}

func TestAResumedRunHasTheListItsJournalAppendedTo(t *testing.T) {
	m := specMachine(t, "grow.yaml")
	vars := map[string]any{"limit": 40}
	run, err := New(t.TempDir()).Create(Meta{Spec: "grow.yaml", Vars: vars}, nil)
	require.NoError(t, err)
	j, err := run.OpenJournal(FsyncNever)
	require.NoError(t, err)
	r, err := m.NewRun(vars, machine.WithObserver(j))
	require.NoError(t, err)
	for range 25 {
		_, err := r.Step(context.Background())
		require.NoError(t, err)
	}
	require.NoError(t, j.Close())

	var appended []map[string]int
	r2, err := m.NewRun(vars)
	require.NoError(t, err)
	_, err = run.ScanJournal(func(rec *machine.Record) error {
		appended = append(appended, rec.Appended)
		return r2.Replay(rec)
	})
	require.NoError(t, err)
	assert.Equal(t, r.Var("xs"), r2.Var("xs"))
	assert.Equal(t, map[string]int{"xs": 1}, appended[1], "the second step's items were appended to the first's")
	held := r2.Var("xs").([]any)
	want := append([]any(nil), held...)
	for range 10 { // the resumed run appends on: what it replayed stays as it was
		_, err := r2.Step(context.Background())
		require.NoError(t, err)
	}
	assert.Equal(t, want, held)
	assert.Len(t, r2.Var("xs"), 35)
}
