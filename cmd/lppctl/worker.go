package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/actions/llm"
	"github.com/lppctl/lppctl/temporal"
)

func workerCommand() *cli.Command {
	return &cli.Command{
		Name:      "worker",
		Usage:     "serve Temporal runs on this machine: their workflows and actions",
		ArgsUsage: " ",
		Description: `Serves the task queue of lppctl runs started with lppctl run --engine temporal
until Ctrl-C: it runs their workflows (the interpreter) and their actions, on
the project root (--root). Start several, on several machines: they share the
queue, and when one dies its actions go to the others. The actions that call
a model run on the queue QUEUE-llm, whose rate --llm-rps bounds for all the
workers together. See docs/scale.md.`,
		Flags: append(temporalFlags(),
			&cli.StringFlag{Name: "root", Usage: "the project root `DIR` the actions work in (default: the current directory)"},
			&cli.Float64Flag{Name: "llm-rps", Usage: "at most `N` model calls a second across every worker of the task queue (0: no limit)"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "show the actions' output and the SDK's log"},
			&cli.StringFlag{Name: "build-id", Usage: "this worker's version `ID` in the deployment (default: the lppctl version and a hash of its actions)"},
			&cli.BoolFlag{Name: "unversioned", Usage: "take part in no Worker Versioning: every run may go to this worker (for servers without worker deployments)"},
			&cli.BoolFlag{Name: "keep-current", Usage: "do not make this version the deployment's current one when it starts (new runs keep going to the current one)"},
			&cli.IntFlag{Name: "segment", Usage: "at most `N` transitions per workflow execution: past it (or 10,000 history events, or 8 MB of history, or --segment-values) a run continues as new, carrying a checkpoint and references (default 2000)"},
			&cli.IntFlag{Name: "segment-values", Value: 32, Usage: "at most `MB` of values in one execution's records (each step's changed variables, whole): past it a run continues as new, as past --segment (they are stored when it does, within the workflow task's 10 s)"},
			&cli.IntFlag{Name: "blob-limit", Value: temporal.DefaultBlobLimit >> 20, Usage: "the largest value (a context variable, an action's result) a run may hold, in `MB`: a run over it fails, naming the value"},
		),
		Action: workerAction,
	}
}

func workerAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("worker takes no arguments: %v", c.Args().Slice())
	}
	if c.String("temporal") == "" {
		return usageErrorf("which server? give --temporal HOST:PORT (or set LPPCTL_TEMPORAL)")
	}
	if c.Float64("llm-rps") < 0 {
		return usageErrorf("--llm-rps %v: give a rate of 0 (no limit) or more", c.Float64("llm-rps"))
	}
	root, err := filepath.Abs(cmp.Or(c.String("root"), "."))
	if err != nil {
		return fmt.Errorf("cannot find the root: %w", err)
	}
	ctx, stop := interruptContext(c)
	defer stop()
	var logger *slog.Logger
	out := io.Discard
	if c.Bool("verbose") {
		logger = slog.New(slog.NewTextHandler(c.App.ErrWriter, nil))
		out = c.App.ErrWriter
	}
	if c.Int("segment") < 0 {
		return usageErrorf("--segment %d: give a number of transitions of 1 or more", c.Int("segment"))
	}
	if c.Int("segment-values") <= 0 {
		return usageErrorf("--segment-values %d: give a size in MB of 1 or more", c.Int("segment-values"))
	}
	if c.Int("blob-limit") <= 0 {
		return usageErrorf("--blob-limit %d: give a size in MB of 1 or more", c.Int("blob-limit"))
	}
	limit := c.Int("blob-limit") << 20
	temporal.Version = versionString()
	codec, err := blobCodec(c, limit)
	if err != nil {
		return err
	}
	tc, err := temporal.Dial(ctx, c.String("temporal"), c.String("namespace"), logger, codec)
	if err != nil {
		return withCode(exitFailed, err)
	}
	defer tc.Close()
	retry := llm.DefaultRetry
	e := temporal.NewEngine(&temporalHost{root: root, out: out}, temporal.Options{
		TaskQueue: c.String("task-queue"),
		Retry:     temporal.Retry{Attempts: retry.Attempts, Base: retry.Base, Max: retry.Max},
		BlobLimit: limit,
		Codec:     codec,
		Segment:   temporal.Segment{Transitions: c.Int("segment"), Records: c.Int("segment-values") << 20},
	})
	v := temporal.Versioning{Off: c.Bool("unversioned"), BuildID: c.String("build-id")}
	workers := e.Workers(tc, c.Float64("llm-rps"), v)
	stopAll := func() {
		for _, w := range workers {
			w.Stop()
		}
	}
	for i, w := range workers {
		if err := w.Start(); err != nil {
			for _, started := range workers[:i] {
				started.Stop()
			}
			return fmt.Errorf("cannot start the worker: %w", err)
		}
	}
	version := "unversioned"
	if !v.Off {
		if !c.Bool("keep-current") {
			mctx, cancel := context.WithTimeout(ctx, time.Minute)
			var err error
			v, err = e.MakeCurrent(mctx, tc, v)
			cancel()
			if err != nil {
				stopAll()
				return withCode(exitFailed, fmt.Errorf("%w; a server without worker deployments needs lppctl worker --unversioned", err))
			}
		}
		version = "version " + temporal.BuildID(e.Catalog())
		if v.BuildID != "" {
			version = "version " + v.BuildID
		}
	}
	fmt.Fprintf(c.App.ErrWriter, "worker %s (%s) on %s: task queues %s and %s, root %s (Ctrl-C stops it)\n", temporal.Identity(), version, c.String("temporal"), e.TaskQueue(), e.ModelQueue(), root)
	<-ctx.Done()
	stopAll()
	fmt.Fprintln(c.App.ErrWriter, "worker stopped")
	return nil
}
