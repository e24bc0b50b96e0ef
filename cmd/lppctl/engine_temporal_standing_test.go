package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/temporal"
)

const waitNSpec = `lpp: 1
name: waitn
context:
  n: {type: int, default: 0}
initial: wait_go
states:
  wait_go:
    do: noop
    on:
      GO: {to: done}
  done:
    final: true
events:
  GO: {}
`

// A paused run whose worker is gone: runs show says what the server alone
// tells (the memo's status, the spec, the last action and its context from
// the history) and that the rest needs a worker, instead of failing.
func TestTemporalShowOfAPausedRunWithNoWorkerSaysWhatIsKnown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	bin := buildLppctl(t)
	root := t.TempDir()
	addr, tc := devServer(t, root)
	require.NoError(t, os.WriteFile(filepath.Join(root, "waitn.yaml"), []byte(waitNSpec), 0o644))
	w := exec.Command(bin, "worker", "--temporal", addr, "--root", root)
	w.Env = childEnv("")
	startProcess(t, w)
	ctx := context.Background()
	src := []byte(waitNSpec)
	require.NoError(t, temporal.StartRun(ctx, tc, "", temporal.Start{RunID: "waitn-1", SpecPath: "waitn.yaml", Spec: src, SpecHash: temporal.SpecHash(src), Vars: json.RawMessage(`{"n": 7}`)}))
	for deadline := time.Now().Add(patience); ; time.Sleep(100 * time.Millisecond) {
		if p, err := temporal.Query(ctx, tc, "waitn-1", -1); err == nil && p.Pause != nil {
			break
		}
		require.False(t, time.Now().After(deadline), "run waitn-1 does not pause")
	}
	_ = syscall.Kill(-w.Process.Pid, syscall.SIGKILL)
	_ = w.Wait()

	out, errOut, code := lppctlOut(t, bin, root, "runs", "show", "waitn-1", "--temporal", addr)
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	assert.Contains(t, out, "run waitn-1 (Temporal)\nspec: waitn\nstatus: paused (the workflow's memo)\nlast action: none yet (the history)\n")
	assert.Contains(t, out, "not known without a worker: its state, steps, pause and memory are answered by a worker (no worker answered within 10s); ")
	assert.Contains(t, out, "start one (lppctl worker --temporal "+addr+") and ask again\ncontext (the run's starting values):\n")
	assert.Contains(t, out, "  n = 7\n")

	out, errOut, code = lppctlOut(t, bin, root, "runs", "show", "waitn-1", "--temporal", addr, "--json")
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	var got struct {
		Status     string               `json:"status"`
		LastAction *temporal.LastAction `json:"last_action"`
		Context    map[string]any       `json:"context"`
		NoWorker   string               `json:"no_worker"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "paused", got.Status)
	assert.Nil(t, got.LastAction, "noop runs in the workflow, not as an activity")
	assert.Equal(t, map[string]any{"n": 7.0}, got.Context)
	assert.Contains(t, got.NoWorker, "answered by a worker")
}
