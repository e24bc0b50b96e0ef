package main

import (
	"cmp"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/temporal"
)

const waitGoSpec = `lpp: 1
name: waitgo
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

const grow3kSpec = `lpp: 1
name: grow
context:
  n: {type: int, default: 0}
  xs: {type: list, default: []}
initial: work
states:
  work:
    set:
      n: n + 1
      xs: 'concat(xs, [n])'
    next:
      - to: done
        when: n >= 3000
      - to: work
  done: {final: true}
`

// What runs show, runs cancel and resume say of a Temporal run they cannot
// take as asked: an unknown ID is a usage error, a run whose values are in
// a blob store this command does not read is an error (not an empty run),
// a paused run's resume command names the server, and runs cancel --wait
// waits for the run to stop and says where.
func TestTemporalShowAndCancelSayWhatTheyCannotDo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	bin := buildLppctl(t)
	root := t.TempDir()
	addr, tc := devServer(t, root)
	for name, src := range map[string]string{"sleepy.yaml": sleepySpec, "waitgo.yaml": waitGoSpec, "grow.yaml": grow3kSpec} {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(src), 0o644))
	}
	w := exec.Command(bin, "worker", "--temporal", addr, "--root", root)
	w.Env = childEnv("")
	startProcess(t, w)

	ctx := context.Background()
	startSleepy(t, tc, "sleep-1", []byte(sleepySpec))
	src := []byte(waitGoSpec)
	require.NoError(t, temporal.StartRun(ctx, tc, "", temporal.Start{RunID: "waits-1", SpecPath: "waitgo.yaml", Spec: src, SpecHash: temporal.SpecHash(src)}))
	src = []byte(grow3kSpec)
	require.NoError(t, temporal.StartRun(ctx, tc, "", temporal.Start{RunID: "grow-1", SpecPath: "grow.yaml", Spec: src, SpecHash: temporal.SpecHash(src)}))
	waitClosed(t, tc, "grow-1")
	for deadline := time.Now().Add(patience); ; time.Sleep(100 * time.Millisecond) {
		if p, err := temporal.Query(ctx, tc, "waits-1", -1); err == nil && p.Pause != nil {
			break
		}
		require.False(t, time.Now().After(deadline), "run waits-1 does not pause")
	}
	other := t.TempDir() // its default blob store is not the worker's

	tests := []struct {
		name       string
		dir        string
		args       []string
		code       int
		stdout     string // exact, unless contains
		contains   []string
		wantStderr string // exact, unless errContains
		errHas     []string
	}{
		{
			name:       "runs show of an unknown run is a usage error",
			args:       []string{"runs", "show", "nosuchrun"},
			code:       exitUsage,
			wantStderr: "lppctl: cannot find run nosuchrun on Temporal (namespace default): give its whole ID, as lppctl runs --temporal " + addr + " lists them\n",
		},
		{
			name:       "runs cancel of an unknown run is a usage error",
			args:       []string{"runs", "cancel", "nosuchrun"},
			code:       exitUsage,
			wantStderr: "lppctl: cannot find run nosuchrun on Temporal (namespace default): give its whole ID, as lppctl runs --temporal " + addr + " lists them\n",
		},
		{
			name:       "resume of an unknown run is a usage error",
			args:       []string{"resume", "nosuchrun", "--approve"},
			code:       exitUsage,
			wantStderr: "lppctl: cannot find run nosuchrun on Temporal (namespace default): give its whole ID, as lppctl runs --temporal " + addr + " lists them\n",
		},
		{
			name:     "runs show of a paused run gives the resume command with the server",
			args:     []string{"runs", "show", "waits-1"},
			contains: []string{"status: paused in wait_go after 1 step\n", "deliver one with: lppctl resume waits-1 --temporal " + addr + " --event NAME\n"},
		},
		{
			name:       "an answer the pause does not take is said once",
			args:       []string{"resume", "waits-1", "--approve"},
			code:       exitUsage,
			wantStderr: "lppctl: cannot resume run waits-1: it waits for an event (GO): give one with --event NAME\n",
		},
		{
			name:   "runs show without the workers' blob store fails",
			dir:    other,
			args:   []string{"runs", "show", "grow-1"},
			code:   exitFailed,
			errHas: []string{"lppctl: cannot show run grow-1: cannot read the result of run grow-1: cannot find blob sha256:", " in .lppctl/temporal/blobs: every worker and client of the task queue must share one blob store (--blobs); give this command the workers' blob store with --blobs DIR or s3://BUCKET[/PREFIX] (or --root, for their ROOT/.lppctl/temporal/blobs)\n"},
		},
		{
			name:   "runs trace without the workers' blob store fails",
			dir:    other,
			args:   []string{"runs", "trace", "grow-1"},
			code:   exitFailed,
			errHas: []string{"lppctl: cannot show run grow-1: ", "give this command the workers' blob store with --blobs"},
		},
		{
			name:     "runs show with the workers' blob store shows the run",
			dir:      other,
			args:     []string{"runs", "show", "grow-1", "--blobs", filepath.Join(root, ".lppctl", "temporal", "blobs")},
			contains: []string{"status: completed in done after 3001 steps\n"},
		},
		{
			name:   "runs cancel --wait waits for the run to stop and says where",
			args:   []string{"runs", "cancel", "sleep-1", "--wait", "1m"},
			stdout: "run sleep-1 cancelled in nap after 1 step, by a cancel request (lppctl runs cancel)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := lppctlOut(t, bin, cmp.Or(tt.dir, root), append(tt.args, "--temporal", addr)...)
			require.Equal(t, tt.code, code, "stdout: %s\nstderr: %s", out, errOut)
			if tt.contains == nil && tt.code == 0 {
				assert.Equal(t, tt.stdout, out)
			}
			for _, s := range tt.contains {
				assert.Contains(t, out, s)
			}
			if tt.wantStderr != "" {
				assert.Equal(t, tt.wantStderr, errOut)
			}
			for _, s := range tt.errHas {
				assert.Contains(t, errOut, s)
			}
			if tt.code != 0 {
				assert.NotContains(t, out, "status:", "no run is printed")
			}
		})
	}
}
