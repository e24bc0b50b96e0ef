package runstore

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// TestRecoverKeepsWhatAFullReadingKeeps reads journals with Recover's
// reading (routing only, plain step lines passed over) and with a full
// reading (ScanJournal): both keep the same entries, with the same routing.
func TestRecoverKeepsWhatAFullReadingKeeps(t *testing.T) {
	plain := func(seq int) *Entry {
		return &Entry{Type: EntryStep, Record: &machine.Record{Seq: seq, From: "work", To: "work", Via: "next[1]", Action: "noop", Vars: map[string]any{"n": seq}}}
	}
	with := func(e *Entry, f func(*machine.Record)) *Entry { f(e.Record); return e }
	pause := &Entry{Type: EntryPause, State: "ask", Pause: &machine.PauseError{State: "ask", Kind: "approve"}}
	tests := []struct {
		name    string
		entries []*Entry
	}{
		{name: "plain steps only", entries: []*Entry{plain(1), plain(2), plain(3)}},
		{name: "a pause after plain steps, then an answer", entries: []*Entry{plain(1), plain(2), pause, with(plain(3), func(r *machine.Record) { r.Input = &machine.Input{Kind: "approve"} }), plain(4)}},
		{name: "steps that took events between plain ones", entries: []*Entry{plain(1), with(plain(2), func(r *machine.Record) { r.Via = "event go" }), plain(3), with(plain(4), func(r *machine.Record) { r.Via = "on go[0]" }), plain(5)}},
		{name: "an interrupt between plain steps, the last one ends the run", entries: []*Entry{plain(1), plain(2), {Type: EntryInterrupt, State: "work"}, plain(3), with(plain(4), func(r *machine.Record) { r.To, r.Via, r.End = "", "final", true })}},
		{name: "a marker last", entries: []*Entry{plain(1), plain(2), pause}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, j := newTestRun(t, FsyncNever)
			for _, e := range tt.entries {
				if e.Type == EntryStep {
					require.NoError(t, j.OnStep(context.Background(), e.Record))
				} else {
					require.NoError(t, j.Mark(e))
				}
			}
			require.NoError(t, j.Close())
			full, err := run.ScanJournal(nil)
			require.NoError(t, err)
			heads := newDecoder()
			heads.heads, heads.reuse = true, true
			got, err := run.scanWith(heads, false, nil)
			require.NoError(t, err)
			assert.Equal(t, full.Steps(), got.Steps())
			require.Len(t, got.Entries, len(full.Entries))
			for i, e := range full.Entries {
				g := got.Entries[i]
				assert.Equal(t, e.Type, g.Type, "entry %d", i)
				if e.Record != nil {
					require.NotNil(t, g.Record, "entry %d", i)
					assert.Equal(t, routingOf(e.Record), routingOf(g.Record), "entry %d", i)
				}
			}
			assert.Equal(t, routingOf(full.LastStep()), routingOf(got.LastStep()))
		})
	}
}

// routingOf is what Recover keeps of a step.
func routingOf(r *machine.Record) machine.Record {
	return machine.Record{Seq: r.Seq, From: r.From, To: r.To, Via: r.Via, Action: r.Action, Start: r.Start, Duration: r.Duration, End: r.End, Input: r.Input}
}

// TestRecoverReadsALineThatEndsWhereTheReadBufferDoes recovers a run whose
// journal has a line ending at the end of the reader's first 64 KiB: the
// line's bytes must still be what its checksum and the commit record's
// chain are computed on (a look past the line refilled the buffer under it).
func TestRecoverReadsALineThatEndsWhereTheReadBufferDoes(t *testing.T) {
	const steps, buffer = 1500, 64 << 10
	at := time.Date(2026, 11, 26, 20, 1, 27, 123456789, time.UTC) // lines of the same length, whatever the clock
	write := func(pad int) *Run {
		run, j := newTestRun(t, FsyncNever)
		for i := 1; i <= steps; i++ {
			vars := map[string]any{"n": i}
			if i == 1 {
				vars["pad"] = strings.Repeat("p", pad)
			}
			require.NoError(t, j.OnStep(context.Background(), &machine.Record{Seq: i, From: "work", To: "work", Via: "next[1]", Vars: vars, Start: at}))
		}
		require.NoError(t, j.Close())
		run.Meta.Steps, run.Meta.Status, run.Meta.PID = steps, machine.StatusInterrupted, 0
		require.NoError(t, run.SaveMeta())
		run.Unlock()
		return run
	}
	// The start marker's length varies with the clock and the run's ID: the
	// padding is corrected until the journal written has the line wanted.
	var run *Run
	var b []byte
	for pad, try := 0, 0; try < 10; try++ {
		run = write(pad)
		var err error
		b, err = os.ReadFile(run.Path(JournalFile))
		require.NoError(t, err)
		if b[buffer-1] == '\n' {
			break
		}
		pad += buffer - (bytes.LastIndexByte(b[:buffer], '\n') + 1) // the line that ended before ends at the buffer's end
	}
	require.Equal(t, byte('\n'), b[buffer-1], "a line ends at the buffer's end")

	rc, err := New(filepath.Dir(run.Dir)).Recover(run.Meta.ID)
	require.NoError(t, err)
	defer rc.Release()
	assert.Equal(t, steps, rc.Log.Steps())
}

// TestAForgedLineIsAnErrorWhenReplayReadsIt: Recover does not decode a plain
// step line whose checksum holds, so a line forged with a valid checksum but
// broken JSON (in a journal without journal.commit, whose chain would refuse
// it) is refused by Replay, with the message Recover gave before
// (`lppctl resume` puts "cannot resume run ID: " before either).
func TestAForgedLineIsAnErrorWhenReplayReadsIt(t *testing.T) {
	m, vars, store, run := fiveCountSteps(t)
	lines := journalLines(t, run)
	forged := `{"type":"step","seq":2,"from":"work","to":"work","via":"next[1]","vars":{"n":2,},"start":"2026-11-26T20:01:27Z","duration":0}` + "\n"
	lines[2] = string(withCRC([]byte(forged)))
	writeLines(t, run, lines)
	require.NoError(t, os.Remove(run.Path(CommitFile)))

	rc, err := store.Recover(run.Meta.ID)
	require.NoError(t, err)
	defer rc.Release()
	r2, err := m.NewRun(vars)
	require.NoError(t, err)
	err = rc.Replay(r2)
	require.EqualError(t, err, "cannot read journal: "+run.Path(JournalFile)+":3: invalid JSON: invalid character '}' looking for beginning of object key string")
}

// fiveCountSteps journals five steps of count.yaml's loop (n 1 to 5) in a
// new store and leaves the run interrupted: its machine, the vars it
// started with, the store and the run.
func fiveCountSteps(t *testing.T) (*machine.Machine, map[string]any, *Store, *Run) {
	t.Helper()
	m := specMachine(t, "count.yaml")
	vars := map[string]any{"limit": 100}
	store := New(t.TempDir())
	run, err := store.Create(Meta{Spec: "count.yaml", Vars: vars}, nil)
	require.NoError(t, err)
	j, err := run.OpenJournal(FsyncNever)
	require.NoError(t, err)
	for i := 1; i <= 5; i++ {
		require.NoError(t, j.OnStep(context.Background(), &machine.Record{Seq: i, From: "work", To: "work", Via: "next[1]", Vars: map[string]any{"n": i}}))
	}
	require.NoError(t, j.Close())
	run.Meta.Steps, run.Meta.Status, run.Meta.PID = 5, machine.StatusInterrupted, 0
	require.NoError(t, run.SaveMeta())
	run.Unlock()
	return m, vars, store, run
}
