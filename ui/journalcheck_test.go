package ui

import (
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lppctl/lppctl/machine/runstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheRunsListReadsOnlyTheJournalsChangedSinceTheListBefore: a refresh
// of the Runs page over 200 runs does not read every journal again (it
// allocated 64 KB a run to check each one's lines: about 21 MB).
func TestTheRunsListReadsOnlyTheJournalsChangedSinceTheListBefore(t *testing.T) {
	f := newFixture(t, Options{})
	for range 200 {
		f.addRun(200, nil)
	}
	require.Equal(t, http.StatusOK, f.do("GET", "/", "").Code)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	w := f.do("GET", "/", "")
	runtime.ReadMemStats(&after)
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, 100, strings.Count(w.Body.String(), `<tr class="st-interrupted`))
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(5<<20), "bytes allocated by a refresh of 200 runs")
}

// TestTheRunsListShowsAJournalDamagedSinceTheListBefore: a journal changed
// after a list (a byte flipped in place, its modification time set back,
// or lines added) is checked again: the list shows it damaged.
func TestTheRunsListShowsAJournalDamagedSinceTheListBefore(t *testing.T) {
	for _, tt := range []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"a byte flipped, the time set back", func(t *testing.T, path string) {
			fi, err := os.Stat(path)
			require.NoError(t, err)
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			i := strings.Index(string(b), `"n":`)
			require.Positive(t, i)
			b[i+4]++ // the digit of n: same size, another checksum
			time.Sleep(10 * time.Millisecond)
			require.NoError(t, os.WriteFile(path, b, 0o644))
			require.NoError(t, os.Chtimes(path, fi.ModTime(), fi.ModTime()))
		}},
		{"the journal cut", func(t *testing.T, path string) {
			require.NoError(t, os.Truncate(path, 10))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			id := f.addRun(3, nil)
			require.NotContains(t, f.do("GET", "/", "").Body.String(), `badge st-damaged`)
			run, err := f.store.Open(id)
			require.NoError(t, err)
			tt.damage(t, filepath.Join(run.Dir, runstore.JournalFile))
			body := f.do("GET", "/", "").Body.String()
			assert.Contains(t, body, `badge st-damaged`)
		})
	}
}
