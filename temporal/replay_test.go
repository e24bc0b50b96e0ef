package temporal_test

import (
	"compress/gzip"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

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
			f, err := os.Open(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			zr, err := gzip.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			hist, err := client.HistoryFromJSON(zr, client.HistoryJSONOptions{})
			if err != nil {
				t.Fatal(err)
			}
			e := temporal.NewEngine(&testHost{root: t.TempDir()}, temporal.Options{})
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(e.Workflow, workflow.RegisterOptions{Name: temporal.WorkflowName})
			quiet := log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err := r.ReplayWorkflowHistory(quiet, hist); err != nil {
				t.Fatalf("replay: %v", err)
			}
		})
	}
}
