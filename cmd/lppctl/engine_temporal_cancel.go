package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/temporal"
)

// lppctl runs cancel of a Temporal run, and where a cancelled run stopped
// when no worker tells: a cancelled run's cancellation holds it, a run
// terminated as it continued as new is read from its latest execution's
// input.

// cancelOnTemporal cancels a Temporal run.
func cancelOnTemporal(c *cli.Context) error {
	if _, err := runArg(c, "lppctl runs cancel RUN_ID --temporal HOST:PORT"); err != nil {
		return err
	}
	if c.String("temporal") == "" {
		return usageErrorf("runs cancel stops Temporal runs: give --temporal HOST:PORT (a local run stops with Ctrl-C in its terminal)")
	}
	tc, err := dialTemporal(c, c.Context)
	if err != nil {
		return err
	}
	defer tc.Close()
	id := c.Args().First()
	st, _, err := temporal.Closed(c.Context, tc, id)
	if err != nil {
		return temporalRunError(c, id, err)
	}
	if st != "" {
		return withCode(exitUsage, fmt.Errorf("cannot cancel run %s: it has already ended (%s)", id, st))
	}
	if err := temporal.CancelRun(c.Context, tc, id); err != nil {
		return err
	}
	wait := c.Duration("wait")
	if wait <= 0 {
		fmt.Fprintf(c.App.Writer, "run %s: cancel requested; it stops at its next clean point\n", id)
		return nil
	}
	// As for a local run: wait up to --wait for it to stop (the action in
	// flight ends first) and say where it stopped.
	deadline := time.Now().Add(wait)
	var msg string
	for {
		st, msg, err = temporal.Closed(c.Context, tc, id)
		if err != nil {
			return fmt.Errorf("cannot read run %s after cancelling it: %w", id, err)
		}
		if st != "" {
			break
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(c.App.Writer, "run %s: cancel requested; it stops at its next clean point (still running after %s)\n", id, wait)
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Where it stopped: recorded in the cancellation, else from a worker
	// (it replays the run); without one, only how.
	p, qerr := cancelSummary(c.Context, tc, id, st)
	if p == nil {
		qctx, cancel := context.WithTimeout(c.Context, 10*time.Second)
		p, qerr = temporal.Query(qctx, tc, id, -1)
		cancel()
	}
	if qerr != nil || p == nil {
		p = &temporal.Progress{RunID: id}
	}
	p.Ended(st, msg)
	if st == temporal.StatusCancelled {
		fmt.Fprintf(c.App.Writer, "run %s %s\n", id, cancelledText(p))
		return nil
	}
	fmt.Fprintf(c.App.Writer, "run %s stopped before the cancel took effect: it %s in %s after %s\n", id, p.Status, p.State, countSteps(p.Steps))
	return nil
}

// cancelledText says that a run was cancelled, how, and where it stopped.
func cancelledText(p *temporal.Progress) string {
	where := fmt.Sprintf(" in %s after %s", p.State, countSteps(p.Steps))
	if p.State == "" { // no worker answered the progress query
		where = ""
	}
	return fmt.Sprintf("cancelled%s, %s", where, cmp.Or(p.Cancelled, temporal.HowCancelRequest))
}

// cancelSummary is where run id stopped when it was cancelled (st), as its
// workflow recorded it in the cancellation (no worker needed), without its
// records; nil when it is not cancelled or recorded none (a run cancelled
// by an older worker, a terminated one).
func cancelSummary(ctx context.Context, tc client.Client, id string, st machine.Status) (*temporal.Progress, error) {
	if st != temporal.StatusCancelled {
		return nil, nil
	}
	return temporal.CancelSummary(ctx, tc, id)
}

// carriedOnFailure is where run id stopped when qerr, its query's error,
// says that it closed before its latest execution's first workflow task (a
// run terminated as it continued as new: no worker can replay it): that
// execution's input (temporal.Carried); nil otherwise.
func carriedOnFailure(ctx context.Context, tc client.Client, id string, qerr error) *temporal.Progress {
	var nr *serviceerror.WorkflowNotReady
	codec := codecOf(tc)
	if !errors.As(qerr, &nr) || codec == nil {
		return nil
	}
	p, err := temporal.Carried(ctx, tc, codec, id)
	if err != nil {
		return nil
	}
	return p
}
