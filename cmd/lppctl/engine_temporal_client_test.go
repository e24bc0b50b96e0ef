package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/lppctl/lppctl/temporal"
)

const quickSpec = `lpp: 1
name: quick
initial: a
states:
  a:
    do: noop
    next: done
  done:
    final: true
`

// napSpec waits 20 s after its first step: the server is killed while it
// naps (a durable timer), and it ends only after the server is back.
const napSpec = `lpp: 1
name: nap
initial: a
states:
  a:
    do: noop
    next: nap
  nap:
    do: wait
    with: {duration: 20s}
    next: done
  done:
    final: true
`

// growSpec grows its text by chunk (given with --var) each step.
const growSpec = `lpp: 1
name: grow
context:
  n: {type: int, default: 0}
  chunk: {type: string, default: ""}
  text: {type: string, default: ""}
initial: grow
states:
  grow:
    do: noop
    set: {n: n + 1, text: text + chunk}
    next:
      - when: n < 100000
        to: grow
      - to: done
  done:
    final: true
`

// client is an lppctl run --engine temporal in progress.
type clientRun struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	done           chan struct{}
	code           int
}

func startClient(t *testing.T, bin, root string, args ...string) *clientRun {
	t.Helper()
	c := &clientRun{stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	c.cmd = exec.Command(bin, append([]string{"run", "--engine", "temporal"}, args...)...)
	c.cmd.Dir, c.cmd.Env, c.cmd.Stdout, c.cmd.Stderr = root, childEnv(""), c.stdout, c.stderr
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, c.cmd.Start())
	go func() {
		defer close(c.done)
		err := c.cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			c.code = ee.ExitCode()
		}
	}()
	t.Cleanup(func() { _ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL); <-c.done })
	return c
}

// wait waits for the client's end (up to d) and says whether it ended.
func (c *clientRun) wait(d time.Duration) bool {
	select {
	case <-c.done:
		return true
	case <-time.After(d):
		return false
	}
}

var runIDRe = regexp.MustCompile(`run (\S+) on Temporal`)

// id waits for the client to say which run it started.
func (c *clientRun) id(t *testing.T) string {
	t.Helper()
	for deadline := time.Now().Add(patience); ; time.Sleep(50 * time.Millisecond) {
		if m := runIDRe.FindStringSubmatch(c.stderr.String()); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the client does not say its run:\n%s", c.stderr.String())
		}
	}
}

// patience bounds a wait for what normally happens within seconds (a run's
// first step, a line of output, a process's end): far enough that a loaded
// machine does not reach it, so that only a broken test ends there.
const patience = 3 * time.Minute

// eventually waits up to d for cond.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", d, what)
		}
	}
}

func stepsOf(tc client.Client, id string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p, err := temporal.Query(ctx, tc, id, 0)
	if err != nil {
		return -1
	}
	return p.Steps
}

// lppctl run --engine temporal is honest about the run: it warns when no
// worker serves it (and goes on once one does), ends at once when the run
// is terminated on the server, saying so with exit 130, waits through a
// server outage (30 s with LPPCTL_FULL_TESTS=1, else 5 s) and exits 0 once
// the run completes, and a run over the
// blob limit is failed (exit 1), not cancelled, in run, runs and runs show.
func TestTemporalClientIsHonest(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server, stops it and starts it again")
	}
	t.Parallel()
	root := newProject(t, "hello_skill")
	for name, src := range map[string]string{"quick.yaml": quickSpec, "sleepy.yaml": sleepySpec, "nap.yaml": napSpec, "grow.yaml": growSpec} {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(src), 0o644))
	}
	db := filepath.Join(t.TempDir(), "temporal.db")
	addr, srv := startDevServer(t, db)
	tc := dialDev(t, addr, root)
	bin := buildLppctl(t)
	parent := t // the worker serves every subtest

	t.Run("no worker: a warning, then the run once one starts", func(t *testing.T) {
		c := startClient(t, bin, root, "--temporal", addr, "quick.yaml")
		id := c.id(t)
		eventually(t, patience, "no warning:\n"+c.stderr.String(), func() bool {
			return strings.Contains(c.stderr.String(), "run "+id+": no worker polls task queue lppctl: the run waits until one starts (lppctl worker)\n")
		})
		startWorker(parent, bin, addr, root)
		require.True(t, c.wait(patience), "the client does not end:\n%s", c.stderr.String())
		assert.Equal(t, 0, c.code, c.stderr.String())
		assert.Contains(t, c.stdout.String(), "completed in done after 2 steps\n")
		// runs show asks the worker where the completed run ended, and says
		// the same as from the result (no worker polls "nobody").
		withWorker, _, code := lppctlOut(t, bin, root, "runs", "show", id, "--temporal", addr)
		assert.Equal(t, 0, code)
		assert.Contains(t, withWorker, "status: completed in done after 2 steps\n")
		fromResult, _, code := lppctlOut(t, bin, root, "runs", "show", id, "--temporal", addr, "--task-queue", "nobody")
		assert.Equal(t, 0, code)
		assert.Equal(t, fromResult, withWorker)
	})

	t.Run("terminated: the client ends at once, saying so", func(t *testing.T) {
		c := startClient(t, bin, root, "--temporal", addr, "sleepy.yaml")
		id := c.id(t)
		eventually(t, patience, "the run does not reach nap", func() bool { return stepsOf(tc, id) >= 1 })
		begin := time.Now()
		require.NoError(t, tc.TerminateWorkflow(context.Background(), id, "", "maintenance"))
		// The run naps an hour: a client that ends at all did not wait for
		// it. How soon is logged, not judged (the machine may be loaded).
		ended := c.wait(patience)
		took := time.Since(begin)
		require.True(t, ended, "the client still follows the terminated run:\n%s", c.stderr.String())
		t.Logf("the client ended %s after the termination", took.Round(time.Millisecond))
		assert.Equal(t, exitInterrupted, c.code)
		assert.Contains(t, c.stdout.String(), "cancelled in nap after 1 step, terminated on the Temporal server: maintenance; a cancelled run does not continue: start a new one with lppctl run --engine temporal\n")
	})

	t.Run("over the blob limit: failed, not cancelled", func(t *testing.T) {
		w := exec.Command(bin, "worker", "--temporal", addr, "--root", root, "--task-queue", "small", "--blob-limit", "1")
		var log syncBuffer
		w.Env, w.Stdout, w.Stderr = childEnv(""), &log, &log
		startProcess(t, w)
		c := startClient(t, bin, root, "--temporal", addr, "--task-queue", "small", "grow.yaml", "--var", "chunk="+strings.Repeat("x", 64<<10))
		id := c.id(t)
		require.True(t, c.wait(patience), "the client does not end:\n%s\n%s", c.stderr.String(), log.String())
		assert.Equal(t, exitFailed, c.code)
		want := "context variable text (set by step 16 in state grow) is 1.0 MB, over the blob limit of 1.0 MB: keep large data in files, or raise the limit (lppctl worker --blob-limit)"
		assert.Contains(t, c.stdout.String(), "failed in grow after 16 steps\n")
		assert.Contains(t, c.stderr.String(), want)
		out, _, code := lppctlOut(t, bin, root, "runs", "--temporal", addr)
		assert.Equal(t, 0, code)
		assert.Regexp(t, regexp.QuoteMeta(id)+` +failed `, out)
		out, _, _ = lppctlOut(t, bin, root, "runs", "show", id, "--temporal", addr, "--task-queue", "small")
		assert.Contains(t, out, "status: failed in grow after 16 steps\n")
		assert.Contains(t, out, want)
	})

	outage := sized(t, "server outage", 5*time.Second, 30*time.Second)
	t.Run("server down: the client waits, then exits 0 with the run", func(t *testing.T) {
		c := startClient(t, bin, root, "--temporal", addr, "nap.yaml")
		id := c.id(t)
		eventually(t, patience, "the run does not reach nap", func() bool { return stepsOf(tc, id) >= 1 })
		require.NoError(t, syscall.Kill(-srv.Process.Pid, syscall.SIGKILL))
		_ = srv.Wait()
		eventually(t, patience, "the client does not say it waits:\n"+c.stderr.String(), func() bool {
			return strings.Contains(c.stderr.String(), "run "+id+": cannot reach the Temporal server (")
		})
		require.False(t, c.wait(outage), "the client ended while the server was down: exit %d\n%s%s", c.code, c.stdout.String(), c.stderr.String())
		srv = restartDevServer(t, addr, db)
		require.True(t, c.wait(patience), "the client does not end once the server is back:\n%s", c.stderr.String())
		assert.Equal(t, 0, c.code, c.stderr.String())
		assert.Contains(t, c.stdout.String(), "completed in done after 3 steps\n")
		assert.Contains(t, c.stderr.String(), "run "+id+": the Temporal server answers again: following the run\n")
	})
}
