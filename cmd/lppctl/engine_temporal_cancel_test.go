package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/lppctl/lppctl/temporal"
)

const sleepySpec = `lpp: 1
name: sleepy
initial: a
states:
  a:
    do: noop
    next: nap
  nap:
    do: wait
    with: {duration: 1h}
    next: done
  done:
    final: true
`

// lppctlOut runs the lppctl binary in dir and returns its stdout, stderr and
// exit code.
func lppctlOut(t *testing.T, bin, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, childEnv("")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("lppctl %v: %v", args, err)
	}
	return o.String(), e.String(), code
}

// startSleepy starts a run that waits an hour in nap after its first step,
// and returns once it waits there.
func startSleepy(t *testing.T, tc client.Client, id string, src []byte) {
	t.Helper()
	ctx := context.Background()
	st := temporal.Start{RunID: id, SpecPath: "sleepy.yaml", Spec: src, SpecHash: temporal.SpecHash(src)}
	if err := temporal.StartRun(ctx, tc, "", st); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(patience); ; time.Sleep(100 * time.Millisecond) {
		p, err := temporal.Query(ctx, tc, id, 0)
		if err == nil && p.Steps >= 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s does not reach nap: %v", id, err)
		}
	}
}

func waitClosed(t *testing.T, tc client.Client, id string) {
	t.Helper()
	for deadline := time.Now().Add(patience); ; time.Sleep(100 * time.Millisecond) {
		st, _, err := temporal.Closed(context.Background(), tc, id)
		if err == nil && st != "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s does not end: %v", id, err)
		}
	}
}

// A run cancelled with `runs cancel` (or terminated on the server) is
// "cancelled" in runs, runs show and resume, which says how and where it
// stopped and exits 130; an answer to it is refused (exit 2).
func TestTemporalCancelledRunSaysCancelled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	bin := buildLppctl(t)
	root := t.TempDir()
	addr, tc := devServer(t, root)
	src := []byte(sleepySpec)
	if err := os.WriteFile(filepath.Join(root, "sleepy.yaml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	w := exec.Command(bin, "worker", "--temporal", addr, "--root", root)
	w.Env = childEnv("")
	worker := startProcess(t, w)

	startSleepy(t, tc, "cancel-me", src)
	if out, errOut, code := lppctlOut(t, bin, root, "runs", "cancel", "cancel-me", "--temporal", addr); code != 0 {
		t.Fatalf("runs cancel: exit %d\n%s%s", code, out, errOut)
	}
	waitClosed(t, tc, "cancel-me")
	startSleepy(t, tc, "terminate-me", src)
	if err := tc.TerminateWorkflow(context.Background(), "terminate-me", "", "operator cleanup"); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, tc, "terminate-me")

	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     string // exact, unless contains
		contains   []string
		wantStderr string
	}{
		{
			name:   "resume says how the run was cancelled",
			args:   []string{"resume", "cancel-me"},
			code:   exitInterrupted,
			stdout: "cancelled in nap after 1 step, by a cancel request (lppctl runs cancel); a cancelled run does not continue: start a new one with lppctl run --engine temporal\n",
		},
		{
			name:   "resume says the run was terminated, with the reason",
			args:   []string{"resume", "terminate-me"},
			code:   exitInterrupted,
			stdout: "cancelled in nap after 1 step, terminated on the Temporal server: operator cleanup; a cancelled run does not continue: start a new one with lppctl run --engine temporal\n",
		},
		{
			name:       "an answer to a cancelled run is refused",
			args:       []string{"resume", "cancel-me", "--approve"},
			code:       exitUsage,
			wantStderr: "lppctl: cannot resume run cancel-me: it was cancelled in nap after 1 step, by a cancel request (lppctl runs cancel); a run that has ended takes no answer or event\n",
		},
		{
			name:       "an event to a cancelled run is refused",
			args:       []string{"resume", "cancel-me", "--event", "GO"},
			code:       exitUsage,
			wantStderr: "lppctl: cannot resume run cancel-me: it was cancelled in nap after 1 step, by a cancel request (lppctl runs cancel); a run that has ended takes no answer or event\n",
		},
		{
			name:     "runs show says cancelled",
			args:     []string{"runs", "show", "cancel-me"},
			contains: []string{"status: cancelled in nap after 1 step\n", "cancelled: by a cancel request (lppctl runs cancel); a cancelled run does not continue\n"},
		},
		{
			name:     "runs lists both as cancelled",
			args:     []string{"runs"},
			contains: []string{"cancel-me                    cancelled ", "terminate-me                 cancelled "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := lppctlOut(t, bin, root, append(tt.args, "--temporal", addr)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			if tt.contains == nil && out != tt.stdout {
				t.Errorf("stdout:\n got %q\nwant %q", out, tt.stdout)
			}
			for _, s := range tt.contains {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			if tt.wantStderr != "" && errOut != tt.wantStderr {
				t.Errorf("stderr:\n got %q\nwant %q", errOut, tt.wantStderr)
			}
		})
	}

	out, _, code := lppctlOut(t, bin, root, "runs", "show", "terminate-me", "--json", "--temporal", addr)
	var p temporal.Progress
	if err := json.Unmarshal([]byte(out), &p); err != nil || code != 0 {
		t.Fatalf("runs show --json: exit %d, %v\n%s", code, err, out)
	}
	if p.Status != temporal.StatusCancelled || p.Cancelled != "terminated on the Temporal server: operator cleanup" || p.Error != "" {
		t.Errorf("runs show --json: status %q, cancelled %q, error %q", p.Status, p.Cancelled, p.Error)
	}
	// The run's variables are under context, as a local run's are.
	var both struct {
		Context map[string]any `json:"context"`
		Vars    map[string]any `json:"vars"`
	}
	if err := json.Unmarshal([]byte(out), &both); err != nil || both.Context == nil || fmt.Sprint(both.Context) != fmt.Sprint(both.Vars) {
		t.Errorf("runs show --json: context %v, vars %v (%v)", both.Context, both.Vars, err)
	}

	// Where a cancelled run stopped is recorded with its cancellation: told
	// with no worker to replay the run (before, a query that no worker
	// answered in time left it out: "it was cancelled, by a cancel request").
	_ = syscall.Kill(-worker.Process.Pid, syscall.SIGKILL)
	_ = worker.Wait()
	t.Run("with no worker, an answer to a cancelled run is refused saying where it stopped", func(t *testing.T) {
		_, errOut, code := lppctlOut(t, bin, root, "resume", "cancel-me", "--approve", "--temporal", addr)
		if code != exitUsage || errOut != "lppctl: cannot resume run cancel-me: it was cancelled in nap after 1 step, by a cancel request (lppctl runs cancel); a run that has ended takes no answer or event\n" {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})
	t.Run("with no worker, export --run draws the path of a cancelled run", func(t *testing.T) {
		out, errOut, code := lppctlOut(t, bin, root, "export", "--run", "cancel-me", "--temporal", addr)
		if code != 0 || !strings.Contains(out, "    class a,nap visited\n") {
			t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
		}
	})
	t.Run("with no worker, runs show says where a cancelled run stopped", func(t *testing.T) {
		out, errOut, code := lppctlOut(t, bin, root, "runs", "show", "cancel-me", "--temporal", addr)
		if code != 0 || !strings.HasPrefix(out, "run cancel-me (Temporal)\nspec: sleepy\nstatus: cancelled in nap after 1 step\n") {
			t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
		}
	})
}
