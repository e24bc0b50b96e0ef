package ui

import (
	"context"
	"fmt"
	"html"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

// addMapRun writes a run whose step i sets key "k<i>" of map m, changes
// key "k<i-1>" and removes key "k<i-2>" every third step, as a running
// machine records a key change (Record.MapKeys, the map changed in place);
// the journal writes patches of those keys. It returns the run's ID and m
// after each step (at[i]: after step i), for the steps want names.
func (f *fixture) addMapRun(steps int, want ...int) (string, map[int]map[string]any) {
	f.t.Helper()
	m := map[string]any{"k0": 0}
	at := map[int]map[string]any{}
	id := f.addStepsRun(steps, func(rec *machine.Record) {
		i := rec.Seq
		rec.Vars = map[string]any{"m": m}
		if i > 1 { // the first step writes m whole
			keys := []string{fmt.Sprintf("k%d", i), fmt.Sprintf("k%d", i-1)}
			m[keys[0]], m[keys[1]] = i, -i
			if i%3 == 0 {
				keys = append(keys, fmt.Sprintf("k%d", i-2))
				delete(m, keys[2])
			}
			rec.MapKeys = map[string][]string{"m": keys}
		}
	}, func(i int) {
		if slices.Contains(want, i) {
			at[i] = maps.Clone(m)
		}
	})
	return id, at
}

// addStepsRun writes a run of steps steps, interrupted, each a loop step
// whose variables set fills in; after, when not nil, is called once the
// step is journaled.
func (f *fixture) addStepsRun(steps int, set func(*machine.Record), after func(i int)) string {
	f.t.Helper()
	start := time.Date(2026, 11, 22, 3, 11, 36, 0, time.UTC)
	r, err := f.store.Create(runstore.Meta{Spec: "specs/loop.yaml", SpecName: "loop", Start: start, State: "a", Fsync: runstore.FsyncNever}, []byte(loopSpec))
	require.NoError(f.t, err)
	j, err := r.OpenJournal(runstore.FsyncNever)
	require.NoError(f.t, err)
	for i := 1; i <= steps; i++ {
		rec := &machine.Record{Seq: i, From: "a", To: "a", Via: "next[0]", Action: "noop", Start: start.Add(time.Duration(i) * time.Millisecond)}
		set(rec)
		require.NoError(f.t, j.OnStep(context.Background(), rec))
		if after != nil {
			after(i)
		}
	}
	require.NoError(f.t, j.Close())
	r.Meta.Steps, r.Meta.Status = steps, machine.StatusInterrupted
	require.NoError(f.t, r.SaveMeta())
	r.Unlock()
	return r.Meta.ID
}

// TestRunPageShowsAMapChangedByKeysAsItWasAtEachStep: the journal holds the
// keys a step changed; the timeline shows each step's map whole, as it was
// after that step, and so does the context after step ?at=N.
func TestRunPageShowsAMapChangedByKeysAsItWasAtEachStep(t *testing.T) {
	f := newFixture(t, Options{PageSize: 10})
	page := []int{21, 22, 23, 24, 25, 26, 27, 28, 29, 30} // page 3 of 4, cut from the newest step back
	id, at := f.addMapRun(40, append(page, 12, 40)...)
	body := f.do("GET", "/runs/"+id+"?page=3", "").Body.String()
	require.Equal(t, []string{"21", "22", "23", "24", "25", "26", "27", "28", "29", "30"}, rows(body))
	for _, i := range page {
		assert.True(t, strings.Contains(body, `<div class="vars">`+string(showAny(map[string]any{"m": at[i]}))+`</div>`), "the timeline lacks step %d's map as it was after it", i)
	}
	for _, tt := range []struct {
		query string
		step  int
	}{
		{"?at=12", 12},
		{"", 40},
	} {
		body := f.do("GET", "/runs/"+id+tt.query, "").Body.String()
		assert.True(t, strings.Contains(body, string(showAny(at[tt.step]))), "the page lacks the context after step %d", tt.step)
	}
}

// TestRunPageReadsAMapRunInLinearMemory: serving the run page (the last
// page of the timeline, and the context after a step in the middle) of a
// run whose map changed keys at every step allocates about as the journal
// grows (4× for 4× the steps), not as its square.
func TestRunPageReadsAMapRunInLinearMemory(t *testing.T) {
	f := newFixture(t, Options{PageSize: 10})
	var got []uint64
	for _, steps := range []int{1000, 4000} {
		id, _ := f.addMapRun(steps)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for _, q := range []string{"", fmt.Sprintf("?at=%d", steps/2)} {
			w := f.do("GET", "/runs/"+id+q, "")
			require.Equal(t, 200, w.Code)
			require.True(t, strings.Contains(w.Body.String(), html.EscapeString(fmt.Sprintf(`"k%d"`, steps/2))), "a key of the middle step")
		}
		runtime.ReadMemStats(&after)
		got = append(got, after.TotalAlloc-before.TotalAlloc)
	}
	ratio := float64(got[1]) / float64(got[0])
	t.Logf("bytes allocated: %d (1,000 steps), %d (4,000): ×%.2f", got[0], got[1], ratio)
	assert.LessOrEqual(t, ratio, 5.0, "bytes allocated serving the run page of 4,000 steps / 1,000 steps")
}

// addListRun writes a run whose every step appends an item to list xs, as
// a running machine records it (Record.Appended); the journal writes the
// items appended.
func (f *fixture) addListRun(steps int) string {
	f.t.Helper()
	var xs []any
	return f.addStepsRun(steps, func(rec *machine.Record) {
		before := len(xs)
		xs = append(xs, fmt.Sprintf("item <%d>", rec.Seq))
		rec.Vars = map[string]any{"xs": xs[:len(xs):len(xs)]}
		if before > 0 {
			rec.Appended = map[string]int{"xs": before}
		}
	}, nil)
}

// TestRunPageShowsALargeValueWithinBounds: the run page of a run whose
// list grew to 2,000 and to 20,000 items is about the same size: each step
// shows the list's size, what it appended and its last items, the context
// its first and last ones, and says how many it leaves out. (Every item on
// every step made a 50-step page of a 100,000-item list 204 MB.)
func TestRunPageShowsALargeValueWithinBounds(t *testing.T) {
	f := newFixture(t, Options{PageSize: 50})
	size := map[int]int{}
	for _, steps := range []int{2000, 20000} {
		id := f.addListRun(steps)
		body := f.do("GET", "/runs/"+id, "").Body.String()
		size[steps] = len(body)
		assert.Contains(t, body, fmt.Sprintf("<small>%s items, 1 appended</small>", thousands(steps)), "the last step says what it did")
		assert.Contains(t, body, html.EscapeString(quote(fmt.Sprintf("item <%d>", steps))), "the item the last step appended")
		assert.Contains(t, body, fmt.Sprintf("… %s more items, not shown …", thousands(steps-stepBounds.members)), "a step says what it leaves out")
		assert.Contains(t, body, fmt.Sprintf("… %s more items, not shown …", thousands(steps-contextBounds.members)), "the context says what it leaves out")
	}
	assert.Less(t, float64(size[20000])/float64(size[2000]), 1.2, "bytes of the page by items of the list: %v", size)
}

func TestStepVarsShowTheKeysALargeMapChanged(t *testing.T) {
	m := map[string]any{}
	for i := range 500 {
		m[fmt.Sprintf("k%03d", i)] = i
	}
	rec := &machine.Record{Vars: map[string]any{"m": m, "n": 3}, MapKeys: map[string][]string{"m": {"k499", "k007", "k499", "gone"}}}
	got := string(showStepVars(rec, nil))
	assert.Contains(t, got, "<small>500 keys, 3 changed</small>")
	assert.Contains(t, got, `<span class="j-key">&#34;gone&#34;</span>: <code class="j-null">(removed)</code>`)
	assert.Contains(t, got, `<span class="j-key">&#34;k007&#34;</span>: <code class="j-lit">7</code>`)
	assert.Contains(t, got, "… 498 other keys, not shown …")
	assert.NotContains(t, got, "k008")
	assert.Less(t, strings.Index(got, "gone"), strings.Index(got, "k007"), "the keys in order")
}

// addTextRun writes a run whose every step adds a line to string log, as a
// running machine builds it (in place); the journal writes the lines added.
func (f *fixture) addTextRun(steps int) string {
	f.t.Helper()
	var log []byte
	return f.addStepsRun(steps, func(rec *machine.Record) {
		log = append(log, fmt.Sprintf("line <%d> of the transcript, said at step %d\n", rec.Seq, rec.Seq)...)
		rec.Vars = map[string]any{"log": string(log)}
	}, nil)
}

// TestRunPageShowsTheTextAStepAdded: each step of a run whose string gains
// a line at every step shows the line it added, not the string's first
// 2,000 characters again; the page of 2,000 and 20,000 steps is about the
// same size.
func TestRunPageShowsTheTextAStepAdded(t *testing.T) {
	f := newFixture(t, Options{PageSize: 50})
	size := map[int]int{}
	for _, steps := range []int{2000, 20000} {
		id := f.addTextRun(steps)
		body := f.do("GET", "/runs/"+id, "").Body.String()
		size[steps] = len(body)
		for _, seq := range []int{steps - 49, steps} {
			assert.Contains(t, body, html.EscapeString(fmt.Sprintf("line <%d> of the transcript, said at step %d\n", seq, seq)), "the line step %d added", seq)
		}
		assert.Contains(t, body, fmt.Sprintf("… %s bytes before, not shown; added:", thousands(len(growText(steps-1)))), "the last step says what it leaves out")
		assert.Equal(t, 1, strings.Count(body, html.EscapeString("line <1> of")), "the first line shows once, in the context")
	}
	assert.Less(t, float64(size[20000])/float64(size[2000]), 1.2, "bytes of the page by steps: %v", size)
}

// growText is addTextRun's log after steps steps.
func growText(steps int) string {
	var b strings.Builder
	for seq := 1; seq <= steps; seq++ {
		fmt.Fprintf(&b, "line <%d> of the transcript, said at step %d\n", seq, seq)
	}
	return b.String()
}

// TestALivePageReadsOnlyTheStepsMadeSince: the run page of a run that goes
// on reads its journal once, then only what the run appended since the
// page before: a page a step later costs the same at 2,000 steps and at
// 20,000 (it read the whole journal at each refresh).
func TestALivePageReadsOnlyTheStepsMadeSince(t *testing.T) {
	f := newFixture(t, Options{PageSize: 50})
	first, again := map[int]uint64{}, map[int]uint64{}
	for _, steps := range []int{2000, 20000} {
		var xs []any
		var id string
		f.addStepsRun(steps, func(rec *machine.Record) {
			before := len(xs)
			xs = append(xs, fmt.Sprintf("item <%d>", rec.Seq))
			rec.Vars = map[string]any{"xs": xs[:len(xs):len(xs)]}
			if before > 0 {
				rec.Appended = map[string]int{"xs": before}
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
			require.Contains(t, body, html.EscapeString(quote(fmt.Sprintf("item <%d>", i))), "step %d's item", i)
			if i == steps-1 {
				first[steps] = after.TotalAlloc - before.TotalAlloc
			} else {
				again[steps] = after.TotalAlloc - before.TotalAlloc
			}
		})
	}
	t.Logf("bytes allocated by the page read first: %v; a step later: %v", first, again)
	assert.Greater(t, first[20000], 3*first[2000], "the page read first reads the journal")
	assert.Less(t, float64(again[20000]), 1.5*float64(again[2000]), "bytes allocated by the page a step later, by the run's steps")
}
