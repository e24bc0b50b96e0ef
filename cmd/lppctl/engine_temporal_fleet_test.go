package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enums "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/temporal"
)

// checkerSpec uses spec.check, which the older workers lack.
const checkerSpec = `lpp: 1
name: checker
context:
  ok: {type: bool, default: false}
  report: {type: string, default: ""}
initial: check
states:
  check:
    do: spec.check
    with: {path: '"target.yaml"', ok: ok, report: report}
    next: done
  done:
    final: true
`

// plainSpec needs nothing new: it waits a little, so that it is still
// running when the newer workers arrive.
const plainSpec = `lpp: 1
name: plain
initial: a
states:
  a:
    do: noop
    next: nap
  nap:
    do: wait
    with: {duration: 3s}
    next: done
  done:
    final: true
`

const targetSpec = `lpp: 1
name: target
initial: a
states:
  a:
    do: noop
    next: done
  done:
    final: true
`

// buildOldLppctl builds an older lppctl: its workers lack spec.check
// (worker_oldcatalog.go) and it says it is v0.0.1-old.
func buildOldLppctl(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "lppctl-old")
	cmd := exec.Command("go", "build", "-tags", "lppctl_old_catalog", "-ldflags", "-X main.version=v0.0.1-old", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cannot build the older lppctl: %v\n%s", err, out)
	}
	return bin
}

// startWorker starts an lppctl worker and returns once it serves (its
// version is the deployment's current one), with its log.
func startWorker(t *testing.T, bin, addr, root string, args ...string) *syncBuffer {
	t.Helper()
	var log syncBuffer
	w := exec.Command(bin, append([]string{"worker", "--temporal", addr, "--root", root}, args...)...)
	w.Env, w.Stdout, w.Stderr = childEnv(""), &log, &log
	startProcess(t, w)
	for deadline := time.Now().Add(patience); !strings.Contains(log.String(), "Ctrl-C stops it"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the worker does not start:\n%s", log.String())
		}
	}
	return &log
}

// A rolling upgrade: older workers (without spec.check) serve runs; newer
// ones start beside them and become the current version. No run fails for
// a missing action: the older runs stay pinned to the older workers, the
// newer ones go to the newer workers, and a run that needs spec.check
// started while only the older workers served waits for a newer one
// instead of failing.
func TestTemporalMixedFleetFailsNoRunForAMissingAction(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server and two builds of lppctl")
	}
	t.Parallel()
	root := newProject(t, "hello_skill") // the gateway's policy for spec.check
	for name, src := range map[string]string{"checker.yaml": checkerSpec, "plain.yaml": plainSpec, "target.yaml": targetSpec} {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(src), 0o644))
	}
	addr, tc := devServer(t, root)
	var oldBin, newBin string
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); oldBin = buildOldLppctl(t) }()
	go func() { defer wg.Done(); newBin = buildLppctl(t) }()
	wg.Wait()

	// Each says its version and the hash of its actions, which differ.
	var hashes []string
	for bin, want := range map[string]string{oldBin: "lppctl v0.0.1-old (actions ", newBin: "lppctl dev (actions "} {
		out, err := exec.Command(bin, "--version").Output()
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(out), want), "%s --version: %s", bin, out)
		hashes = append(hashes, strings.TrimPrefix(string(out), want)[:12])
	}
	assert.NotEqual(t, hashes[0], hashes[1], "the two builds' actions")

	oldLog := startWorker(t, oldBin, addr, root)
	assert.Contains(t, oldLog.String(), "@lppctl-v0.0.1-old (version v0.0.1-old.", "the worker's identity and version")
	ctx := context.Background()
	start := func(id, spec string) {
		src, err := os.ReadFile(filepath.Join(root, spec))
		require.NoError(t, err)
		require.NoError(t, temporal.StartRun(ctx, tc, "", temporal.Start{RunID: id, SpecPath: spec, Spec: src, SpecHash: temporal.SpecHash(src)}))
	}
	var ids []string
	for i := range 3 {
		ids = append(ids, fmt.Sprintf("old-%d", i))
		start(ids[i], "plain.yaml")
	}
	early := "early-checker" // needs spec.check while only the older workers serve
	start(early, "checker.yaml")
	// An older worker takes its first workflow task and gives it back (it
	// lacks spec.check) before a newer worker starts.
	eventually(t, patience, "no older worker gave back "+early, func() bool {
		hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		it := tc.GetWorkflowHistory(hctx, early, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				return false
			}
			if e.GetEventType() == enums.EVENT_TYPE_WORKFLOW_TASK_FAILED {
				return true
			}
		}
		return false
	})

	newLog := startWorker(t, newBin, addr, root)
	assert.Contains(t, newLog.String(), "@lppctl-dev (version dev.")
	for i := range 3 {
		id := fmt.Sprintf("new-%d", i)
		ids = append(ids, id)
		start(id, "checker.yaml")
	}
	ids = append(ids, early)

	for _, id := range ids {
		wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
		err := tc.GetWorkflow(wctx, id, "").Get(wctx, nil)
		cancel()
		if !assert.NoError(t, err, "run %s", id) {
			continue
		}
		p, err := temporal.Result(ctx, tc, id)
		require.NoError(t, err)
		assert.Equal(t, machine.StatusCompleted, p.Status, "run %s", id)
		if strings.Contains(id, "checker") || strings.HasPrefix(id, "new") {
			assert.Equal(t, true, p.Vars["ok"], "run %s: spec.check ran: %v", id, p.Vars)
		}
	}
	assertNoFailedRuns(t, tc)
	if t.Failed() {
		t.Logf("older worker:\n%s\nnewer worker:\n%s", oldLog.String(), newLog.String())
	}
}

// assertNoFailedRuns checks that the server lists no run failed.
func assertNoFailedRuns(t *testing.T, tc client.Client) {
	t.Helper()
	runs, err := temporal.ListRuns(context.Background(), tc, 0)
	require.NoError(t, err)
	for _, r := range runs {
		assert.NotEqual(t, string(machine.StatusFailed), r.Status, "run %s", r.RunID)
	}
}
