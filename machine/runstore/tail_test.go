package runstore

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// sameAsReadJournal fails when got is not the Log ReadJournal reads now:
// the same entries and steps, every step's values the same once walked.
func sameAsReadJournal(t *testing.T, run *Run, got *Log) {
	t.Helper()
	want, err := run.ReadJournal()
	require.NoError(t, err)
	require.Equal(t, want.Steps(), got.Steps())
	require.Equal(t, want.Torn, got.Torn)
	require.Equal(t, want.TornLine, got.TornLine)
	require.Len(t, got.Entries, len(want.Entries))
	for i := range want.Entries {
		require.Equal(t, want.Entries[i].Type, got.Entries[i].Type, "entry %d", i)
	}
	require.Len(t, got.Records, len(want.Records))
	var ww, wg Walker
	for i := range want.Records {
		a, err := json.Marshal(ww.Next(want.Records[i]).Vars)
		require.NoError(t, err)
		b, err := json.Marshal(wg.Next(got.Records[i]).Vars)
		require.NoError(t, err)
		require.JSONEq(t, string(a), string(b), "step %d", i+1)
	}
}

// TestATailReadsWhatReadJournalReads writes a journal a few steps at a time
// (a list, a map and a string that grow, markers), with a torn last line
// now and then, and reads it with one Tail after each: every read is what
// ReadJournal reads, and a Log read before stays as it was.
func TestATailReadsWhatReadJournalReads(t *testing.T) {
	run, j := newTestRun(t, FsyncAlways)
	tail := run.Tail()
	var xs []any
	m := map[string]any{}
	var log []byte
	var held []*Log
	seq := 0
	for round := range 30 {
		for range 1 + round%4 {
			seq++
			xs = append(xs, seq)
			m[fmt.Sprintf("k%d", seq%7)] = seq
			log = append(log, fmt.Sprintf("line %d é\n", seq)...)
			rec := &machine.Record{Seq: seq, From: "a", To: "a", Vars: map[string]any{"xs": xs[:len(xs):len(xs)], "m": m, "log": strings.Repeat("x", refMin) + string(log)}, MapKeys: map[string][]string{"m": {fmt.Sprintf("k%d", seq%7)}}}
			if len(xs) > 1 {
				rec.Appended = map[string]int{"xs": len(xs) - 1}
			}
			require.NoError(t, j.OnStep(context.Background(), rec))
		}
		if round%5 == 2 {
			require.NoError(t, j.Mark(&Entry{Type: EntryPause, State: "a"}))
		}
		torn := round%3 == 1
		if torn { // a write cut short, completed before the next step
			f, err := os.OpenFile(run.Path(JournalFile), os.O_APPEND|os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = f.WriteString(`{"type":"step","seq":`)
			require.NoError(t, err)
			require.NoError(t, f.Close())
		}
		l, err := tail.Read()
		require.NoError(t, err, "round %d", round)
		sameAsReadJournal(t, run, l)
		held = append(held, l)
		if torn {
			require.NoError(t, os.Truncate(run.Path(JournalFile), l.good))
		}
	}
	require.NoError(t, j.Close())
	for i, l := range held[:len(held)-1] {
		assert.Less(t, len(l.Records), len(held[len(held)-1].Records), "read %d kept its steps", i)
	}
}

// TestATailReadsAReplacedOrCutJournalAgain: a journal replaced by another
// file, or cut shorter than what was read, is read from its start.
func TestATailReadsAReplacedOrCutJournalAgain(t *testing.T) {
	run, j := newTestRun(t, FsyncNever)
	for i := 1; i <= 6; i++ {
		require.NoError(t, j.OnStep(context.Background(), &machine.Record{Seq: i, From: "a", To: "a", Vars: map[string]any{"n": i}}))
	}
	require.NoError(t, j.Close())
	tail := run.Tail()
	l, err := tail.Read()
	require.NoError(t, err)
	require.Equal(t, 6, l.Steps())
	lines := journalLines(t, run)

	// Replaced: the same first lines in another file, with a step changed.
	other := strings.Replace(lines[3], `"n":3`, `"n":33`, 1)
	other = rechecksum(other[:strings.Index(other, `,"crc":`)] + "}")
	tmp := run.Path(JournalFile) + ".new"
	require.NoError(t, os.WriteFile(tmp, []byte(strings.Join(lines[:3], "")+other+strings.Join(lines[4:], "")), 0o644)) // a byte longer

	require.NoError(t, os.Remove(run.Path(CommitFile)))
	require.NoError(t, os.Rename(tmp, run.Path(JournalFile)))
	l, err = tail.Read()
	require.NoError(t, err)
	assert.Equal(t, 6, l.Steps())
	assert.Equal(t, 33, l.Records[2].Vars["n"], "the replaced journal's step")
	sameAsReadJournal(t, run, l)

	// Cut: two lines.
	writeLines(t, run, lines[:3])
	l, err = tail.Read()
	require.NoError(t, err)
	assert.Equal(t, 2, l.Steps())
	sameAsReadJournal(t, run, l)
}

// TestATailReadsOnlyWhatWasAppended: once a 5,000-step journal was read, a
// Read after one more step allocates what that step costs, not what reading
// the journal costs.
func TestATailReadsOnlyWhatWasAppended(t *testing.T) {
	run, j := newTestRun(t, FsyncNever)
	var xs []any
	step := func(seq int) {
		xs = append(xs, fmt.Sprintf("item %d", seq))
		rec := &machine.Record{Seq: seq, From: "a", To: "a", Vars: map[string]any{"xs": xs[:len(xs):len(xs)], "n": seq}}
		if len(xs) > 1 {
			rec.Appended = map[string]int{"xs": len(xs) - 1}
		}
		require.NoError(t, j.OnStep(context.Background(), rec))
	}
	for seq := 1; seq <= 5000; seq++ {
		step(seq)
	}
	require.NoError(t, j.Sync()) // the commit record: the Tail compares with it
	tail := run.Tail()
	_, err := tail.Read()
	require.NoError(t, err)
	full := readBytes(t, func() {
		_, err := run.ReadJournal()
		require.NoError(t, err)
	})
	step(5001)
	var l *Log
	again := readBytes(t, func() {
		l, err = tail.Read()
		require.NoError(t, err)
	})
	require.Equal(t, 5001, l.Steps())
	require.Len(t, l.Records, 5001)
	assert.Equal(t, xs, l.Records[5000].Vars["xs"])
	assert.Less(t, again, full/50, "bytes allocated reading one step more (%d) against the whole journal (%d)", again, full)
	require.NoError(t, j.Close())
}

// TestATailIsReadWhileTheRunWrites: pages read the same Tail at once while
// the run appends (go test -race): each Log read is whole and stays so.
func TestATailIsReadWhileTheRunWrites(t *testing.T) {
	run, j := newTestRun(t, FsyncNever)
	tail := run.Tail()
	done := make(chan struct{})
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			var kept []*Log
			for {
				select {
				case <-done:
					for _, l := range kept {
						for i, rec := range l.Records {
							if xs := rec.Vars["xs"].([]any); len(xs) != i+1 {
								errs <- fmt.Errorf("step %d holds %d items", i+1, len(xs))
								return
							}
							if s := rec.Vars["log"].(string); len(s) != refMin+2*(i+1) {
								errs <- fmt.Errorf("step %d's string holds %d bytes", i+1, len(s))
								return
							}
						}
					}
					errs <- nil
					return
				default:
				}
				l, err := tail.Read()
				if err != nil {
					errs <- err
					return
				}
				kept = append(kept, l)
			}
		}()
	}
	var xs []any
	log := []byte(strings.Repeat("x", refMin))
	for seq := 1; seq <= 400; seq++ {
		xs = append(xs, seq)
		log = append(log, "é"...)
		rec := &machine.Record{Seq: seq, From: "a", To: "a", Vars: map[string]any{"xs": xs[:len(xs):len(xs)], "log": string(log)}}
		if seq > 1 {
			rec.Appended = map[string]int{"xs": seq - 1}
		}
		require.NoError(t, j.OnStep(context.Background(), rec))
	}
	close(done)
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)
	require.NoError(t, j.Close())
}
