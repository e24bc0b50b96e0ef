package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/temporal"
)

// heapWatch is a writer that discards what it is given and keeps the
// largest live heap seen between writes.
type heapWatch struct {
	n    int
	peak uint64
	out  *bytes.Buffer // the first bytes, to check them
}

func (h *heapWatch) Write(b []byte) (int, error) {
	if h.out.Len() < 1<<20 {
		h.out.Write(b)
	}
	if h.n++; h.n%16 == 0 || len(b) > 1<<20 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.peak = max(h.peak, ms.HeapAlloc)
	}
	return len(b), nil
}

// runs trace --temporal --json of a run whose map gains a key at every step
// writes each step's map whole, a step at a time: the client holds one map,
// not every step's (was: 2,000 steps of a 100-byte key held 200 MB of
// output and a copy of the map for each step, and a 20,000-step run was
// killed for memory).
func TestATraceOfAGrowingMapIsWrittenAStepAtATime(t *testing.T) {
	const steps = 2000
	item := strings.Repeat("x", 100)
	recs := []*machine.Record{{Seq: 1, Vars: map[string]any{"m": map[string]any{"k0": item}}}}
	for i := 1; i < steps; i++ {
		k := fmt.Sprintf("k%d", i)
		recs = append(recs, &machine.Record{Seq: i + 1, Vars: map[string]any{"m": map[string]any{k: item}}, MapKeys: map[string][]string{"m": {k}}})
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	w := &heapWatch{out: &bytes.Buffer{}}
	require.NoError(t, writeRunJSON(w, struct {
		RunID string `json:"run_id"`
	}{"r1"}, recs))
	assert.Less(t, w.peak, ms.HeapAlloc+32<<20, "the live heap while writing (started at %d)", ms.HeapAlloc)

	var got bytes.Buffer // a short run, whole: every step's map as it was
	require.NoError(t, writeRunJSON(&got, struct {
		RunID string `json:"run_id"`
	}{"r1"}, recs[:3]))
	var v struct {
		RunID   string            `json:"run_id"`
		Records []*machine.Record `json:"records"`
	}
	require.NoError(t, json.Unmarshal(got.Bytes(), &v))
	assert.Equal(t, "r1", v.RunID)
	require.Len(t, v.Records, 3)
	for i, rec := range temporal.WholeRecords(recs[:3]) {
		assert.Len(t, v.Records[i].Vars["m"], i+1, "step %d", i+1)
		assert.Equal(t, rec.Vars["m"], v.Records[i].Vars["m"], "step %d", i+1)
	}
}
