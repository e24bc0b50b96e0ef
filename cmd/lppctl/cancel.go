package main

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

// runsCancelAction is lppctl runs cancel RUN_ID: a Temporal run's cancel
// request with --temporal, else a local run's: the process that holds the
// run's lock (lppctl run or resume) gets SIGTERM, as a Ctrl-C in its
// terminal would: the run stops at its next clean point, journals the
// interrupt and stays resumable (lppctl resume RUN_ID).
func runsCancelAction(c *cli.Context) error {
	if c.String("temporal") != "" {
		return cancelOnTemporal(c)
	}
	id, err := runArg(c, "lppctl runs cancel RUN_ID")
	if err != nil {
		return err
	}
	if w := c.Duration("wait"); w < 0 {
		return usageErrorf("--wait %s: give a duration of 0 or more (0: do not wait for the run to stop)", w)
	}
	store := storeFrom(c)
	run, err := store.Open(id)
	if err != nil {
		if errors.Is(err, runstore.ErrNotFound) {
			return usageErrorf("cannot cancel run %s: there is no such run in %s (lppctl runs lists them)", id, store.Dir)
		}
		return fmt.Errorf("cannot cancel run %s: %w", id, err)
	}
	pid, cmd, held, known := run.Holder()
	if !known {
		return fmt.Errorf("cannot cancel run %s: this system has no run locks to find the process that runs it", id)
	}
	if !held || pid <= 0 || !runstore.ProcessAlive(pid) {
		return usageErrorf("cannot cancel run %s: no process runs it (it is %s); only a running run can be cancelled", id, runStatus(run))
	}
	if cmd != "run" && cmd != "resume" {
		return fmt.Errorf("cannot cancel run %s: its lock is held by pid %d for %q, not by lppctl run or resume", id, pid, cmd)
	}
	p, err := os.FindProcess(pid)
	if err == nil {
		err = p.Signal(syscall.SIGTERM)
	}
	if err != nil {
		return fmt.Errorf("cannot cancel run %s: cannot signal pid %d: %w", id, pid, err)
	}
	wait := c.Duration("wait")
	deadline := time.Now().Add(wait)
	for run.Working() {
		if time.Now().After(deadline) {
			fmt.Fprintf(c.App.Writer, "run %s: cancel requested (pid %d); it stops at its next clean point (still running after %s)\n", id, pid, wait)
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	run, err = store.Open(id)
	if err != nil {
		return fmt.Errorf("cannot read run %s after cancelling it: %w", id, err)
	}
	m := &run.Meta
	switch m.Status {
	case machine.StatusInterrupted:
		fmt.Fprintf(c.App.Writer, "run %s cancelled: interrupted in %s after %s; continue with: %s\n", id, m.State, countSteps(m.Steps), resumeHint(store, id))
	default: // it ended (or paused) before it saw the signal
		fmt.Fprintf(c.App.Writer, "run %s stopped before the cancel took effect: it is %s in %s after %s\n", id, runStatus(run), m.State, countSteps(m.Steps))
	}
	return nil
}
