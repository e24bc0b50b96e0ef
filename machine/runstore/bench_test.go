package runstore

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// BenchmarkJournalAppend measures the journal's cost per transition: encoding
// a typical step record (two context changes, one memory append) and
// writing it, with and without fsync.
func BenchmarkJournalAppend(b *testing.B) {
	for _, policy := range []Fsync{FsyncNever, FsyncAlways} {
		b.Run("fsync="+string(policy), func(b *testing.B) {
			s := New(b.TempDir())
			run, err := s.Create(Meta{Spec: "x.yaml"}, nil)
			if err != nil {
				b.Fatal(err)
			}
			j, err := run.OpenJournal(policy)
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			rec := &machine.Record{
				From: "tool_executor", To: "optimizer", Via: "next[1]", Guard: "pending_tools > 0",
				Action: "tools.execute", Start: time.Now(), Duration: 1234 * time.Microsecond,
				Vars:   map[string]any{"loop_count": 3, "tool_calls": 7},
				Memory: []machine.MemOp{{Op: machine.OpAppend, Key: "l3", Value: json.RawMessage(`{"role":"tool","content":"[OK] wrote out/report.md (2.1 KiB)"}`)}},
				Notes:  []mspec.Note{{Text: "ran 1 tool call"}},
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rec.Seq = i + 1
				if err := j.OnStep(ctx, rec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkResume1000 measures resuming a run from a 1,000-transition journal:
// reading and parsing the journal, and replaying it into a run.
func BenchmarkResume1000(b *testing.B) {
	m := testMachine(b)
	s := New(b.TempDir())
	start := map[string]any{"limit": 5000}
	run, err := s.Create(Meta{Spec: "counter.yaml", Vars: start}, nil)
	if err != nil {
		b.Fatal(err)
	}
	j, err := run.OpenJournal(FsyncNever)
	if err != nil {
		b.Fatal(err)
	}
	r, err := m.NewRun(start, machine.WithObserver(j))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		if _, err := r.Step(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	j.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, err := run.ReadJournal()
		if err != nil {
			b.Fatal(err)
		}
		r2, err := m.Resume(start, l.Records)
		if err != nil {
			b.Fatal(err)
		}
		if r2.Seq() != 1000 {
			b.Fatalf("resumed at step %d", r2.Seq())
		}
	}
}
