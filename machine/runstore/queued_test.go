package runstore

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// queuedRun makes a run of testdata/queued.yaml that started with two GO
// events queued (Meta.Events) and ran the given steps (1: state a took the
// first; 2: b took the second too).
func queuedRun(t *testing.T, steps int) (*machine.Machine, *Store, *Run) {
	t.Helper()
	m := specMachine(t, "queued.yaml")
	store := New(t.TempDir())
	events := []QueuedEvent{{Name: "GO", Payload: map[string]any{"k": 1}}, {Name: "GO", Payload: map[string]any{"k": 2}}}
	run, err := store.Create(Meta{Spec: "queued.yaml", State: "a", Events: events}, nil)
	require.NoError(t, err)
	j, err := run.OpenJournal(FsyncNever)
	require.NoError(t, err)
	r, err := m.NewRun(nil, machine.WithObserver(j))
	require.NoError(t, err)
	for i, e := range events {
		require.NoError(t, r.Queue(i+1, e.Name, e.Payload))
	}
	for range steps {
		done, err := r.Step(context.Background())
		require.NoError(t, err)
		require.False(t, done)
	}
	require.NoError(t, j.Close())
	run.Meta.Steps, run.Meta.State, run.Meta.PID = steps, r.State(), 0
	require.NoError(t, run.SaveMeta())
	run.Unlock()
	return m, store, run
}

// The events a run started with are kept in run.json and in the journal's
// start marker (a lost run.json is rebuilt with them), and the step that
// took one records its rank: a replay knows which were taken.
func TestTheQueuedEventsAndTheStepThatTookOneAreJournaled(t *testing.T) {
	m, store, run := queuedRun(t, 1)
	want := []QueuedEvent{{Name: "GO", Payload: map[string]any{"k": 1}}, {Name: "GO", Payload: map[string]any{"k": 2}}}

	for _, lose := range []bool{false, true} {
		if lose {
			require.NoError(t, os.Remove(run.Path(MetaFile)))
		}
		opened, err := store.Open(run.Meta.ID)
		require.NoError(t, err)
		require.Equal(t, want, opened.Meta.Events, "run.json lost: %v", lose)
	}
	l, err := run.ReadJournal()
	require.NoError(t, err)
	require.Len(t, l.Records, 1)
	require.Equal(t, 1, l.Records[0].Queued)
	require.Contains(t, journalLines(t, run)[1], `"queued":1,`)

	rc, err := store.Recover(run.Meta.ID)
	require.NoError(t, err)
	defer rc.Release()
	r, err := m.NewRun(nil)
	require.NoError(t, err)
	require.NoError(t, rc.Replay(r))
	require.True(t, r.Took(1), "the first GO was taken by step 1")
	require.False(t, r.Took(2), "the second GO was taken by no step")
	require.False(t, rc.Log.Stopped(), "the run never stopped at a clean point")
}

// A step line whose queued member is damaged is refused like any other
// damaged line, not read as a step that took no queued event (its event
// would be delivered twice).
func TestADamagedQueuedMemberIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name, member string
		want         string // from ReadJournal and Recover
		replay       string // else from Replay
	}{
		{name: "a string", member: `"queued":"1"`, want: `:2: invalid JSON: json: cannot unmarshal string into Go struct field wireEntry.Entry.Record.queued of type int`},
		{name: "a fraction", member: `"queued":1.5`, want: `:2: invalid JSON: json: cannot unmarshal number 1.5 into Go struct field wireEntry.Entry.Record.queued of type int`},
		{name: "twice (the last is read: the second event taken twice)", member: `"queued":1,"queued":2`, replay: "cannot replay step 2: it took queued event 2, which an earlier step took"},
		{name: "below 1", member: `"queued":-1`, replay: "cannot replay step 1: it took queued event -1, but queued events count from 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, store, run := queuedRun(t, 2)
			lines := journalLines(t, run)
			line := strings.Replace(lines[1], `"queued":1`, tc.member, 1)
			line = line[:strings.Index(line, `,"crc"`)] + "}\n"
			lines[1] = string(withCRC([]byte(line)))
			writeLines(t, run, lines) // step 2 after it: not a torn last line
			require.NoError(t, os.Remove(run.Path(CommitFile)))

			_, err := run.ReadJournal()

			if tc.replay != "" {
				require.NoError(t, err)
				rc, err := store.Recover(run.Meta.ID)
				require.NoError(t, err)
				defer rc.Release()
				r, err := m.NewRun(nil)
				require.NoError(t, err)
				require.EqualError(t, rc.Replay(r), tc.replay)
				return
			}
			require.EqualError(t, err, "cannot read journal: "+run.Path(JournalFile)+tc.want)
			_, err = store.Recover(run.Meta.ID)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
