package ui

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
	"github.com/stretchr/testify/require"
)

// BenchmarkLiveRunPage100k measures the page of a live run of 100,000
// steps as it refreshes after each step the run makes: the journal gained
// one step since the page before.
//
//	go test ./ui -run '^$' -bench LiveRunPage100k -benchtime 20x
func BenchmarkLiveRunPage100k(b *testing.B) {
	f := newFixture(b, Options{})
	start := time.Date(2026, 11, 22, 3, 11, 36, 0, time.UTC)
	r, err := f.store.Create(runstore.Meta{Spec: "specs/loop.yaml", SpecName: "loop", Start: start, State: "a", Fsync: runstore.FsyncNever}, []byte(loopSpec))
	require.NoError(b, err)
	j, err := r.OpenJournal(runstore.FsyncNever)
	require.NoError(b, err)
	defer j.Close()
	i := 0
	step := func() {
		i++
		rec := &machine.Record{Seq: i, From: "a", To: "a", Via: "next[0]", Action: "noop", Start: start.Add(time.Duration(i) * time.Millisecond),
			Vars: map[string]any{"n": i}, Memory: []machine.MemOp{{Op: "append", Key: "log", Value: []byte(`"step"`)}}}
		require.NoError(b, j.OnStep(context.Background(), rec))
	}
	for range 100_000 {
		step()
	}
	get := func() {
		if w := f.do("GET", "/runs/"+r.Meta.ID, ""); w.Code != http.StatusOK {
			b.Fatalf("%d: %s", w.Code, w.Body)
		}
	}
	get() // the first page reads the journal whole
	b.ResetTimer()
	for b.Loop() {
		step()
		get()
	}
}
