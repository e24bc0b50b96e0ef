package runstore

import (
	"context"
	"fmt"
	"maps"
	"os"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// The benchmarks of issue 30 (docs/performance.md): runs whose list or map
// variable grows by one item or key per transition, journaled, and resumes
// of long journals as `lppctl resume` does them (Store.Recover, then
// Recovery.Replay into a new run). .ci/perf runs them under callgrind with
// small sizes; the sizes below are the figures of the docs.

// BenchmarkAppendRun runs grow.yaml (xs: concat(xs, [n]) per transition) to
// the given number of transitions, journaled: linear when an append costs
// O(1) amortized in the set, its checks, the journal and the run.
func BenchmarkAppendRun(b *testing.B) {
	benchGrowRun(b, "grow.yaml", []int{1000, 10000, 100000})
}

// BenchmarkMapRun runs growmap.yaml to the given number of keys, journaled:
// its set m: merge(m, {KEY: n}) adds one key per transition, which costs
// O(1) amortized in the set, its checks, the journal and the run when the
// key-level path works (machine/merge.go).
func BenchmarkMapRun(b *testing.B) {
	benchGrowRun(b, "growmap.yaml", []int{1000, 10000})
}

// BenchmarkTextRun runs growtext.yaml (log: log + "step N: ..." per
// transition, a line of 70 bytes) to the given number of transitions,
// journaled: linear when the set adds the line in place
// (machine/concat.go) and the journal writes the line alone (vars_concat).
func BenchmarkTextRun(b *testing.B) {
	benchGrowRun(b, "growtext.yaml", []int{1000, 10000, 100000})
}

// BenchmarkMapActionRun runs growmap_action.yaml to the given number of
// keys, journaled: its action bench.put sets m to a copy of m with one key
// more (the copy is the action's, and the journal compares every key).
func BenchmarkMapActionRun(b *testing.B) {
	benchGrowRun(b, "growmap_action.yaml", []int{500, 10000})
}

// putMachine compiles a spec of testdata with the built-in actions and
// bench.put, which sets m to a copy of m plus the key "k<n>" (n: the
// variable n): a map of n keys after n transitions.
func putMachine(t testing.TB, name string) *machine.Machine {
	t.Helper()
	src, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	spec, diags := mspec.Parse(name, src)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{Name: "bench.put", Doc: "adds a key to m",
		Writes: []machine.VarSpec{{Name: "m", Type: mspec.TypeMap}},
		Run: func(_ context.Context, c *machine.Call) error {
			old, _ := c.Var("m").(map[string]any)
			n, _ := c.Var("n").(int)
			m := make(map[string]any, len(old)+1)
			maps.Copy(m, old)
			m[fmt.Sprintf("k%d", n)] = n
			return c.SetVar("m", m)
		}})
	m, err := machine.Compile(spec, reg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func benchGrowRun(b *testing.B, spec string, sizes []int) {
	m := putMachine(b, spec)
	for _, steps := range sizes {
		b.Run(fmt.Sprintf("steps=%d", steps), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				journalRun(b, m, map[string]any{"limit": steps}, FsyncNever)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(steps), "ns/transition")
		})
	}
}

// BenchmarkResumeSteps resumes a run of count.yaml journaled for the given
// number of steps, as `lppctl resume` does: Recover (lock, read and check
// the journal), then Replay into a new run. It reports the peak heap (a
// sampling goroutine: LPPCTL_BENCH_NO_HEAP=1 turns it off, for instruction
// counts that must not depend on the clock).
func BenchmarkResumeSteps(b *testing.B) {
	benchResume(b, "count.yaml", []int{5000, 100000, 1000000})
}

// BenchmarkResumeMap is BenchmarkResumeSteps for a run of growmap.yaml: a
// map that gained one key per step (the journal holds a patch per step).
func BenchmarkResumeMap(b *testing.B) {
	benchResume(b, "growmap.yaml", []int{1000, 10000})
}

// BenchmarkResumeText is BenchmarkResumeSteps for a run of growtext.yaml: a
// string that gained a line per step (the journal holds the line added).
func BenchmarkResumeText(b *testing.B) {
	benchResume(b, "growtext.yaml", []int{1000, 10000, 100000})
}

func benchResume(b *testing.B, spec string, sizes []int) {
	m := putMachine(b, spec)
	parent := b
	for _, steps := range sizes {
		b.Run(fmt.Sprintf("steps=%d", steps), func(b *testing.B) {
			vars := map[string]any{"limit": steps + 10}
			store, id := resumeJournal(parent, b, m, spec, vars, steps)
			var peak atomic.Uint64
			sampled := os.Getenv("LPPCTL_BENCH_NO_HEAP") == ""
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				stop := func() {}
				if sampled {
					stop = sampleHeap(&peak)
				}
				rc, err := store.Recover(id)
				if err != nil {
					b.Fatal(err)
				}
				r2, err := m.NewRun(vars, machine.WithMaxTransitions(1<<30))
				if err != nil {
					b.Fatal(err)
				}
				if err := rc.Replay(r2); err != nil {
					b.Fatal(err)
				}
				rc.Release()
				if r2.Seq() != steps {
					b.Fatalf("resumed at step %d, want %d", r2.Seq(), steps)
				}
				stop()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(steps), "ns/step")
			if sampled {
				b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
			}
		})
	}
}

// resumeJournals holds the runs resumeJournal made, by spec and number of
// steps: the testing package calls a benchmark more than once, and writing
// the journal is not what is measured.
var resumeJournals = map[string]struct {
	store *Store
	id    string
}{}

// resumeJournal returns a store holding a run of m journaled for steps
// steps, stopped (as by a kill) and unlocked; it is removed when the parent
// benchmark ends.
func resumeJournal(parent, b *testing.B, m *machine.Machine, spec string, vars map[string]any, steps int) (*Store, string) {
	key := fmt.Sprintf("%s/%d", spec, steps)
	if j, ok := resumeJournals[key]; ok {
		return j.store, j.id
	}
	dir, err := os.MkdirTemp("", "lppctl-resume-bench-")
	if err != nil {
		b.Fatal(err)
	}
	parent.Cleanup(func() {
		os.RemoveAll(dir)
		delete(resumeJournals, key)
	})
	store := New(dir)
	run, err := store.Create(Meta{Spec: spec, Vars: vars}, nil)
	if err != nil {
		b.Fatal(err)
	}
	j, err := run.OpenJournal(FsyncNever)
	if err != nil {
		b.Fatal(err)
	}
	r, err := m.NewRun(vars, machine.WithObserver(j), machine.WithMaxTransitions(1<<30))
	if err != nil {
		b.Fatal(err)
	}
	for range steps {
		if _, err := r.Step(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		b.Fatal(err)
	}
	run.Meta.Steps, run.Meta.Status, run.Meta.PID = steps, machine.StatusInterrupted, 0
	if err := run.SaveMeta(); err != nil {
		b.Fatal(err)
	}
	run.Unlock() // Create locked it for its maker
	resumeJournals[key] = struct {
		store *Store
		id    string
	}{store, run.Meta.ID}
	return store, run.Meta.ID
}

// sampleHeap records the peak of the heap's live and unswept objects above
// what they were (after a GC) into peak, every 2 ms (runtime/metrics: no
// stop of the world), until the returned function is called.
func sampleHeap(peak *atomic.Uint64) (stop func()) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > base && v-base > peak.Load() {
				peak.Store(v - base)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

func TestTheMapBenchmarksGrowTheirMap(t *testing.T) {
	for _, spec := range []string{"growmap.yaml", "growmap_action.yaml"} {
		t.Run(spec, func(t *testing.T) {
			m := putMachine(t, spec)
			r, err := m.NewRun(map[string]any{"limit": 50})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := len(r.Var("m").(map[string]any)); got != 50 {
				t.Fatalf("the map has %d keys after 50 transitions, want 50", got)
			}
		})
	}
}
