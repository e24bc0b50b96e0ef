package runstore

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// specMachine compiles a spec of testdata with the built-in actions.
func specMachine(t testing.TB, name string) *machine.Machine {
	t.Helper()
	src, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	spec, diags := mspec.Parse(name, src)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	m, err := machine.Compile(spec, machine.NewBuiltinRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// journalRun runs m to its end with vars, journaled under policy, and
// returns the run directory.
func journalRun(t testing.TB, m *machine.Machine, vars map[string]any, policy Fsync) *Run {
	t.Helper()
	run, err := New(t.TempDir()).Create(Meta{Spec: "x.yaml", Vars: vars, Fsync: policy}, nil)
	if err != nil {
		t.Fatal(err)
	}
	j, err := run.OpenJournal(policy)
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.NewRun(vars, machine.WithObserver(j), machine.WithMaxTransitions(1<<30))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background()); err != nil && err != machine.ErrFinished {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return run
}

// BenchmarkJournalBytesPerTransition measures the journal's size per
// transition of a run whose list variable grows by one item per transition:
// flat when appends are written as deltas, growing with the run otherwise.
func BenchmarkJournalBytesPerTransition(b *testing.B) {
	m := specMachine(b, "grow.yaml")
	for _, steps := range []int{200, 20000} {
		b.Run(fmt.Sprintf("steps=%d", steps), func(b *testing.B) {
			var size int64
			for i := 0; i < b.N; i++ {
				run := journalRun(b, m, map[string]any{"limit": steps}, FsyncNever)
				fi, err := os.Stat(run.Path(JournalFile))
				if err != nil {
					b.Fatal(err)
				}
				size = fi.Size()
			}
			b.ReportMetric(float64(size)/float64(steps+1), "bytes/transition")
		})
	}
}

// BenchmarkResumeMemory measures the peak heap while a 100,000-transition
// journal is read and replayed into a run: streamed (ScanJournal, as resume
// does) and, for comparison, with every record held (ReadJournal).
func BenchmarkResumeMemory(b *testing.B) {
	const steps = 100000
	m := specMachine(b, "count.yaml")
	vars := map[string]any{"limit": steps}
	run := journalRun(b, m, vars, FsyncNever)
	for _, mode := range []string{"streamed", "all-records"} {
		b.Run(mode, func(b *testing.B) {
			var peak uint64
			for i := 0; i < b.N; i++ {
				runtime.GC()
				var base runtime.MemStats
				runtime.ReadMemStats(&base)
				peak = 0
				sample := func() {
					var ms runtime.MemStats
					runtime.ReadMemStats(&ms)
					if ms.HeapAlloc > base.HeapAlloc && ms.HeapAlloc-base.HeapAlloc > peak {
						peak = ms.HeapAlloc - base.HeapAlloc
					}
				}
				r, err := m.NewRun(vars, machine.WithMaxTransitions(1<<30))
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				replay := func(rec *machine.Record) error {
					if n++; n%5000 == 0 {
						sample()
					}
					return r.Replay(rec)
				}
				if mode == "streamed" {
					if _, err := run.ScanJournal(replay); err != nil {
						b.Fatal(err)
					}
				} else {
					l, err := run.ReadJournal()
					if err != nil {
						b.Fatal(err)
					}
					for _, rec := range l.Records {
						if err := replay(rec); err != nil {
							b.Fatal(err)
						}
					}
				}
				sample()
				if r.Seq() != steps+1 {
					b.Fatalf("replayed %d steps", r.Seq())
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}

// BenchmarkNoOpRun2000 measures a 2,000-transition run whose transitions
// only route (no action, no memory), journaled under each policy: under
// always, such steps are not synced on their own (Journal, routingOnly).
func BenchmarkNoOpRun2000(b *testing.B) {
	m := specMachine(b, "count.yaml")
	for _, policy := range []Fsync{FsyncNever, FsyncAlways} {
		b.Run("fsync="+string(policy), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				journalRun(b, m, map[string]any{"limit": 2000}, policy)
			}
		})
	}
}
