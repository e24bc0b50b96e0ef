package temporal_test

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/lppctl/lppctl/temporal"
)

// Recorded histories (a dev server, lppctl worker, the Skills Agent demo:
// one run with --yes, one paused for approval and resumed with --approve)
// replay with today's workflow code: a change that would make running
// workflows non-deterministic fails here.
//
// Record a new one with: temporal workflow show -w RUN_ID -o json | gzip -9
func TestWorkflowReplaysRecordedHistories(t *testing.T) {
	for _, name := range []string{"skills_agent_yes.json.gz", "skills_agent_approve.json.gz"} {
		t.Run(name, func(t *testing.T) {
			hist := readHistory(t, name)
			e := temporal.NewEngine(&testHost{root: t.TempDir()}, temporal.Options{})
			r, err := worker.NewWorkflowReplayerWithOptions(replayerOptions(nil))
			require.NoError(t, err)
			r.RegisterWorkflowWithOptions(e.Workflow, workflow.RegisterOptions{Name: temporal.WorkflowName})
			quiet := log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err := r.ReplayWorkflowHistory(quiet, hist); err != nil {
				t.Fatalf("replay: %v", err)
			}
		})
	}
}

// readOnlyStore reads the recorded blobs and writes none back (a replay
// encodes the commands' payloads again).
type readOnlyStore struct{ *temporal.DirStore }

func (readOnlyStore) Put(context.Context, string, []byte) error { return nil }

// A run recorded with this version (a dev server, lppctl worker --segment 4,
// the blobs its payloads refer to): a loop of tools.call that continues as
// new twice, pauses for an event (its memo says paused), takes it by the
// resume Update and completes. Each execution replays with today's code
// and its claim-check codec: a later change that breaks such runs fails
// here.
func TestWorkflowReplaysAContinuedRunWithReferences(t *testing.T) {
	store, err := temporal.NewDirStore(filepath.Join("testdata", "replay_loop", "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	codec := temporal.NewCodec(readOnlyStore{store}, 0, 0)
	for _, name := range []string{"exec1.json.gz", "exec2.json.gz", "exec3.json.gz"} {
		t.Run(name, func(t *testing.T) {
			hist := readHistory(t, "replay_loop", name)
			// Recorded before the bounds were recorded in the history: the
			// replaying worker's decide, as --segment 4 did.
			e := temporal.NewEngine(&testHost{root: t.TempDir()}, temporal.Options{Codec: codec, Segment: temporal.Segment{Transitions: 4}})
			r, err := worker.NewWorkflowReplayerWithOptions(replayerOptions(codec.DataConverter()))
			if err != nil {
				t.Fatal(err)
			}
			r.RegisterWorkflowWithOptions(e.Workflow, workflow.RegisterOptions{Name: temporal.WorkflowName})
			quiet := log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err := r.ReplayWorkflowHistory(quiet, hist); err != nil {
				t.Fatalf("replay: %v", err)
			}
		})
	}
}

// The recorded run's result, from a worker that stored each execution's
// records as a JSON list of records with their values whole, still reads:
// every step once, in order.
func TestAResultOfRecordsStoredWholeReads(t *testing.T) {
	store, err := temporal.NewDirStore(filepath.Join("testdata", "replay_loop", "blobs"))
	require.NoError(t, err)
	codec := temporal.NewCodec(readOnlyStore{store}, 0, 0)
	events := readHistory(t, "replay_loop", "exec3.json.gz").GetEvents()
	done := events[len(events)-1].GetWorkflowExecutionCompletedEventAttributes()
	require.NotNil(t, done, "the run completed")
	var p temporal.Progress
	require.NoError(t, codec.DataConverter().FromPayloads(done.GetResult(), &p))
	require.Len(t, p.Segments, 3, "two executions stored, the last in the result")
	require.NoError(t, p.Flatten())
	require.Len(t, p.Records, p.Steps)
	for i, rec := range p.Records {
		assert.Equal(t, i+1, rec.Seq)
	}
}

// Runs recorded with earlier releases (a dev server, lppctl worker
// --segment-values 1) whose executions continued as new when their records
// held 1 MB of values, as each release counted them: before step lines,
// every value whole (bench/temporal/growlist.yaml, steps=150, three
// executions); in the builds just before light records (82e7b5a-fede107),
// a list appended to as its new items and a map whole (replay_appends/
// growboth.yaml: a list and a map that grow by a 100-byte item and key a
// step, four executions). Today's code counts a map's changed keys,
// but only in executions whose recorded bounds say so: these replay,
// continuing as new where they did. replay_texts/growtext.yaml gains a
// line of 1 KB at every step: recorded with the release before strings
// counted as the text added (5835c77, steps=60: each step's string whole,
// two executions; replay_texts_release) and with the first build that
// counts them so (steps=700, two executions; replay_texts).
func TestWorkflowReplaysRunsWhoseRecordsCountedValuesAsTheyDid(t *testing.T) {
	for _, tc := range []struct {
		dir   string
		execs int
	}{
		{"replay_growlist", 3},
		{"replay_appends", 4},
		{"replay_texts_release", 2},
		{"replay_texts", 2},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			// Their payloads refer to no blob a replay reads.
			store, err := temporal.NewDirStore(t.TempDir())
			require.NoError(t, err)
			codec := temporal.NewCodec(store, 0, 0)
			for i := 1; i <= tc.execs; i++ {
				hist := readHistory(t, tc.dir, fmt.Sprintf("exec%d.json.gz", i))
				e := temporal.NewEngine(&testHost{root: t.TempDir()}, temporal.Options{Codec: codec})
				r, err := worker.NewWorkflowReplayerWithOptions(replayerOptions(codec.DataConverter()))
				require.NoError(t, err)
				r.RegisterWorkflowWithOptions(e.Workflow, workflow.RegisterOptions{Name: temporal.WorkflowName})
				quiet := log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
				require.NoError(t, r.ReplayWorkflowHistory(quiet, hist), "execution %d", i)
			}
		})
	}
}

// readHistory reads a recorded history (temporal workflow show -o json,
// gzipped) from testdata.
func readHistory(t *testing.T, path ...string) *historypb.History {
	t.Helper()
	f, err := os.Open(filepath.Join(append([]string{"testdata"}, path...)...))
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	hist, err := client.HistoryFromJSON(zr, client.HistoryJSONOptions{})
	require.NoError(t, err)
	return hist
}
