package ui

import (
	"fmt"
	"html"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestALivePageFoldsOnlyTheStepsMadeSince: the page of a live run,
// refreshed a step later, folds that step onto the fold of the page before
// (the context now, the walk to the timeline's page), not the whole
// journal again: what it allocates does not grow with the run's steps.
// Each step changes a key of a map, which the fold of a step copies.
func TestALivePageFoldsOnlyTheStepsMadeSince(t *testing.T) {
	f := newFixture(t, Options{PageSize: 50})
	again := map[int]uint64{}
	for _, steps := range []int{2000, 20000} {
		m := map[string]any{}
		var id string
		f.addStepsRun(steps, func(rec *machine.Record) {
			k := fmt.Sprintf("k%d", rec.Seq%10)
			m[k] = fmt.Sprintf("value <%d>", rec.Seq)
			rec.Vars = map[string]any{"m": m}
			if rec.Seq > 1 { // the first step writes m whole
				rec.MapKeys = map[string][]string{"m": {k}}
			}
		}, func(i int) {
			if i < steps-1 {
				return
			}
			if id == "" {
				runs, err := f.store.List()
				require.NoError(t, err)
				for _, r := range runs {
					if r.Meta.Status == machine.StatusRunning || r.Meta.Steps == 0 {
						id = r.Meta.ID
					}
				}
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			body := f.do("GET", "/runs/"+id, "").Body.String()
			runtime.ReadMemStats(&after)
			require.Contains(t, body, html.EscapeString(quote(fmt.Sprintf("value <%d>", i))), "step %d's value", i)
			if i == steps {
				again[steps] = after.TotalAlloc - before.TotalAlloc
			}
		})
	}
	t.Logf("bytes allocated by the page a step later: %v", again)
	assert.Less(t, float64(again[20000]), 1.5*float64(again[2000]), "bytes allocated by the page a step later, by the run's steps")
}

// TestAPageOfAGrowingRunIsThePageAServerNewlyStartedMakes: the folds kept
// from the pages before (a live run's last page, then older pages, the
// context after a step, the last page again) make the same pages as a
// server that reads and folds the journal for the first time.
func TestAPageOfAGrowingRunIsThePageAServerNewlyStartedMakes(t *testing.T) {
	f := newFixture(t, Options{PageSize: 50})
	formKey := regexp.MustCompile(`name="form_key" value="[0-9a-f]+"|<dt>started</dt><dd>[^<]*</dd>`) // made with the page, or by the clock
	page := func(id, query string, fresh bool) string {
		if fresh {
			f.srv.journals = recent[*runstore.Tail]{keep: journalsKept}
			f.srv.folds = recent[*runFold]{keep: foldsKept}
		}
		w := f.do("GET", "/runs/"+id+query, "")
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
		return formKey.ReplaceAllString(w.Body.String(), "")
	}
	m := map[string]any{}
	text := strings.Repeat("a transcript that grows\n", 100) // longer than textCap: a step shows the text it added
	var id string
	f.addStepsRun(300, func(rec *machine.Record) {
		k := fmt.Sprintf("k%d", rec.Seq%7)
		m[k] = fmt.Sprintf("value <%d>", rec.Seq)
		text += fmt.Sprintf("line %d\n", rec.Seq)
		rec.Vars = map[string]any{"m": m, "text": text}
		rec.Memory = []machine.MemOp{{Op: machine.OpAppend, Key: "log", Value: []byte(fmt.Sprintf(`"step %d"`, rec.Seq))}}
		if rec.Seq > 1 {
			rec.MapKeys = map[string][]string{"m": {k}}
		}
	}, func(i int) {
		if id == "" {
			runs, err := f.store.List()
			require.NoError(t, err)
			id = runs[0].Meta.ID
		}
		switch i {
		case 120, 121, 200:
			page(id, "", false) // the live page, folded on from the page before
		case 300:
			for _, q := range []string{"", "?page=1", "?page=3", "?at=150", "?page=2&at=40", ""} {
				kept := page(id, q, false)
				assert.Equal(t, page(id, q, true), kept, "the page %s", q)
			}
		}
	})
}
