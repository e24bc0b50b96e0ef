package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// ForkFile, in a forked run's folder, records the run and step it was
// forked from: {"from": RUN_ID, "step": N}.
const ForkFile = "fork.json"

// forkInfo is ForkFile's content.
type forkInfo struct {
	From string `json:"from"`
	Step int    `json:"step"`
}

func runsForkCommand(storeFlags func(...cli.Flag) []cli.Flag) *cli.Command {
	return &cli.Command{
		Name:      "fork",
		Usage:     "a new run from a past step's state and context (lppctl resume continues it)",
		ArgsUsage: "RUN_ID",
		Description: `Makes a new run whose journal is the first --step N steps of RUN_ID: the same
spec (the run's copy), the same --var values and agent configuration, standing
where the run stood after step N with its context and memory then. The new
run is "interrupted": lppctl resume NEW_ID continues it from there (and may
take another path: a changed file, another model reply, another answer).
Its folder records the fork (fork.json: the run and step it came from).`,
		Flags: storeFlags(
			&cli.IntFlag{Name: "step", Required: true, Usage: "fork after step `N` (0: from the start)"},
			&cli.BoolFlag{Name: "json", Usage: "print the new run's ID and where it stands as JSON"},
		),
		Action: runsForkAction,
	}
}

func runsForkAction(c *cli.Context) error {
	id, err := runArg(c, "lppctl runs fork RUN_ID --step N")
	if err != nil {
		return err
	}
	n := c.Int("step")
	store := storeFrom(c)
	src, err := store.Open(id)
	if err != nil {
		if errors.Is(err, runstore.ErrNotFound) {
			return usageErrorf("cannot fork run %s: there is no such run in %s (lppctl runs lists them)", id, store.Dir)
		}
		return fmt.Errorf("cannot fork run %s: %w", id, err)
	}
	l, err := src.ReadJournal()
	if err != nil {
		return fmt.Errorf("cannot fork run %s: %w", id, err)
	}
	if n < 0 || n > len(l.Records) {
		return usageErrorf("cannot fork run %s after step %d: it has %s (give --step 0 to %d)", id, n, countSteps(len(l.Records)), len(l.Records))
	}
	specSrc, err := src.SpecCopy()
	if err != nil {
		return fmt.Errorf("cannot fork run %s: %w", id, err)
	}
	spec, diags := mspec.Parse(src.Path(runstore.SpecFile), specSrc)
	if spec == nil || diags.HasErrors() {
		return fmt.Errorf("cannot fork run %s: its copy of the spec does not parse", id)
	}
	recs := l.Records[:n]
	snap, err := runstore.Fold(spec, src.Meta.Vars, &runstore.Log{Records: recs})
	if err != nil {
		return fmt.Errorf("cannot fork run %s: %w", id, err)
	}
	m := src.Meta
	meta := runstore.Meta{
		Spec: m.Spec, SpecAbs: m.SpecAbs, SpecName: m.SpecName, Start: time.Now(), State: snap.State,
		Steps: n, Vars: m.Vars, Agent: m.Agent, MaxTransitions: m.MaxTransitions, Fsync: m.Fsync, Files: m.Files,
		Status: machine.StatusInterrupted,
	}
	if !l.StoppedBefore(n) {
		// The events run --event queued: resume takes again those no step
		// up to n took (each step records the rank it took), as the run
		// did; once the run had stopped at a clean point, they were dropped.
		meta.Events = m.Events
	}
	// The copied steps, the fork's marker and fork.json are written before
	// the run's folder appears: a fork killed midway leaves no run whose
	// run.json counts steps its journal lacks.
	run, err := store.CreateFilled(meta, specSrc, func(run *runstore.Run) error {
		j, err := run.OpenJournal(runstore.FsyncAlways)
		if err != nil {
			return err
		}
		var walk runstore.Walker // the records' maps whole, as the journal writes them
		for _, rec := range recs {
			if err := j.OnStep(context.Background(), walk.Next(rec)); err != nil {
				j.Close()
				return err
			}
		}
		if err := j.Mark(runstore.ForkMark(id, n, snap.State)); err != nil {
			j.Close()
			return err
		}
		if err := j.Close(); err != nil {
			return err
		}
		b, _ := json.Marshal(forkInfo{From: id, Step: n})
		return os.WriteFile(filepath.Join(run.Dir, ForkFile), append(b, '\n'), 0o644)
	})
	if err != nil {
		return storeNotWritable(store, fmt.Errorf("cannot fork run %s: %w", id, err))
	}
	run.Unlock()
	newID := run.Meta.ID
	if c.Bool("json") {
		return json.NewEncoder(c.App.Writer).Encode(map[string]any{"id": newID, "from": id, "step": n, "state": snap.State})
	}
	fmt.Fprintf(c.App.Writer, "run %s forked from run %s after step %d, in %s; continue with: %s\n", newID, id, n, snap.State, resumeHint(store, newID))
	return nil
}
