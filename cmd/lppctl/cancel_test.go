package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

// longSpec ticks 1,500 times, 20 ms each: a run that is still running when
// a test cancels it.
const longSpec = `lpp: 1
name: long
description: ticks 1500 times, 20ms each (for the cancel tests)
context:
  n: {type: int, default: 0, doc: ticks so far}
  bound: {type: int, default: 1500, doc: how many ticks}
initial: tick
states:
  tick:
    do: wait
    with: {duration: 20ms}
    set: {n: n + 1}
    next:
      - {to: done, when: n >= bound}
      - to: tick
  done: {final: true}
`

// startLongRun starts lppctl run long.yaml as a process of its own in a
// fresh project and waits until its run is working; it returns the root,
// the store, the run's ID and the process.
func startLongRun(t *testing.T) (root string, store *runstore.Store, id string, cmd *exec.Cmd) {
	t.Helper()
	root = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "long.yaml"), []byte(longSpec), 0o644))
	store = runstore.New(filepath.Join(root, runstore.DefaultDir))
	cmd = exec.Command(lppctlExe(t), "run", "long.yaml", "-q", "--fsync", "never")
	cmd.Dir, cmd.Env = root, childEnv("")
	var out syncBuffer // read while the process writes it
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		if runs, err := store.List(); err == nil && len(runs) == 1 && runs[0].Working() {
			if l, err := runs[0].ScanJournal(nil); err == nil && l.Steps() > 0 {
				return root, store, runs[0].Meta.ID, cmd
			}
		}
		require.False(t, time.Now().After(deadline), "the run did not start: %s", out.String())
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRunsCancelStopsARunningRunAtACleanPoint: lppctl runs cancel stops a
// run that another process runs: that process journals the interrupt and
// exits 130, the run is interrupted and resumable; cancelling it again, or
// an unknown run, is refused with exit 2.
func TestRunsCancelStopsARunningRunAtACleanPoint(t *testing.T) {
	root, store, id, child := startLongRun(t)
	var out, errb bytes.Buffer
	code := run([]string{"lppctl", "runs", "cancel", id, "--root", root}, strings.NewReader(""), &out, &errb)
	require.Equal(t, exitOK, code, errb.String())

	err := child.Wait()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "the run's process: %v", err)
	assert.Equal(t, exitInterrupted, ee.ExitCode(), "the run's process exits as after a Ctrl-C")

	r, err := store.Open(id)
	require.NoError(t, err)
	assert.Equal(t, machine.StatusInterrupted, r.Meta.Status)
	l, err := r.ReadJournal()
	require.NoError(t, err)
	require.NotNil(t, l.Last())
	assert.Equal(t, runstore.EntryInterrupt, l.Last().Type, "the journal ends with the interrupt")
	assert.Equal(t, fmt.Sprintf("run %s cancelled: interrupted in tick after %s; continue with: lppctl resume %s --run-dir %s\n",
		id, countSteps(l.Steps()), id, shellQuote(filepath.Join(root, runstore.DefaultDir))), out.String())

	tests := []struct {
		name, id, want string
	}{
		{"a run no process runs", id, fmt.Sprintf("lppctl: cannot cancel run %s: no process runs it (it is interrupted); only a running run can be cancelled\n", id)},
		{"an unknown run", "nope", fmt.Sprintf("lppctl: cannot cancel run nope: there is no such run in %s (lppctl runs lists them)\n", filepath.Join(root, runstore.DefaultDir))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run([]string{"lppctl", "runs", "cancel", tt.id, "--root", root}, strings.NewReader(""), &out, &errb)
			assert.Equal(t, exitUsage, code)
			assert.Equal(t, tt.want, errb.String())
		})
	}
}

// TestRunsForkStartsANewRunFromAPastStep: lppctl runs fork RUN --step N
// makes a new, interrupted run standing where RUN stood after step N (its
// context then), recorded as a fork; resume continues it to the end; a step
// out of range is refused.
func TestRunsForkStartsANewRunFromAPastStep(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "slow.yaml"), []byte(strings.ReplaceAll(longSpec, "default: 1500", "default: 6")), 0o644))
	t.Chdir(root)
	t.Setenv(runstore.EnvDir, "")
	var out, errb bytes.Buffer
	require.Equal(t, exitOK, run([]string{"lppctl", "run", "slow.yaml", "-q"}, strings.NewReader(""), &out, &errb), errb.String())
	store := runstore.New(runstore.DefaultDir)
	runs, err := store.List()
	require.NoError(t, err)
	require.Len(t, runs, 1)
	id := runs[0].Meta.ID

	out.Reset()
	require.Equal(t, exitOK, run([]string{"lppctl", "runs", "fork", id, "--step", "3", "--json"}, strings.NewReader(""), &out, &errb), errb.String())
	var got struct {
		ID, From, State string
		Step            int
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	assert.Equal(t, id, got.From)
	assert.Equal(t, 3, got.Step)
	assert.Equal(t, "tick", got.State)
	fork, err := store.Open(got.ID)
	require.NoError(t, err)
	assert.Equal(t, machine.StatusInterrupted, fork.Meta.Status)
	assert.Equal(t, 3, fork.Meta.Steps)
	info, err := os.ReadFile(filepath.Join(fork.Dir, ForkFile))
	require.NoError(t, err)
	assert.JSONEq(t, fmt.Sprintf(`{"from": %q, "step": 3}`, id), string(info))
	l, err := fork.ReadJournal()
	require.NoError(t, err)
	require.Len(t, l.Records, 3)
	assert.Equal(t, 3, l.Records[2].Vars["n"], "the fork's context is the run's after step 3")

	// Its trace counts from its first (copied) step: no negative offset.
	out.Reset()
	require.Equal(t, exitOK, run([]string{"lppctl", "runs", "trace", got.ID}, strings.NewReader(""), &out, &errb), errb.String())
	assert.Contains(t, out.String(), "\n1     +0s ")
	assert.NotRegexp(t, `(?m)^\S+\s+-\d`, out.String())

	out.Reset()
	require.Equal(t, exitOK, run([]string{"lppctl", "resume", got.ID, "-q"}, strings.NewReader(""), &out, &errb), errb.String())
	assert.Equal(t, "completed in done after 7 steps\n", out.String())

	errb.Reset()
	assert.Equal(t, exitUsage, run([]string{"lppctl", "runs", "fork", id, "--step", "99"}, strings.NewReader(""), &out, &errb))
	assert.Equal(t, fmt.Sprintf("lppctl: cannot fork run %s after step 99: it has 7 steps (give --step 0 to 7)\n", id), errb.String())
}

// TestRunsCancelRefusesANegativeWait: --wait -1s is a usage error, said
// before the run is signalled; it was taken and printed "still running
// after -1s".
func TestRunsCancelRefusesANegativeWait(t *testing.T) {
	code, out, errOut := lppctlCLI(t, "runs", "cancel", "20261127-184957-874385", "--wait", "-1s", "--run-dir", t.TempDir())
	assert.Equal(t, exitUsage, code, out)
	assert.Equal(t, "lppctl: --wait -1s: give a duration of 0 or more (0: do not wait for the run to stop)\n", errOut)
}
