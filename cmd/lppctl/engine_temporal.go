package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/lppctl/lppctl/gateway"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/lpp"
	"github.com/lppctl/lppctl/machine/runstore"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/temporal"
)

// Engines a run can use.
const (
	engineLocal    = "local"
	engineTemporal = "temporal"
)

// temporalFlags choose the Temporal server (run --engine temporal, worker,
// resume, runs).
func temporalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "temporal", EnvVars: []string{"LPPCTL_TEMPORAL"}, Usage: "the Temporal server `HOST:PORT` (runs on Temporal; see docs/scale.md)"},
		&cli.StringFlag{Name: "namespace", Value: "default", Usage: "the Temporal `NAMESPACE`"},
		&cli.StringFlag{Name: "task-queue", Value: temporal.DefaultTaskQueue, Usage: "the Temporal task `QUEUE` the workers serve"},
		&cli.StringFlag{Name: "blobs", EnvVars: []string{"LPPCTL_BLOBS"}, Usage: "the blob store the large values of Temporal runs are kept in, shared by every worker and client of the task queue: a `DIR` (default ROOT/.lppctl/temporal/blobs) or s3://BUCKET[/PREFIX][?endpoint=HOST:PORT&insecure=1] (credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)"},
	}
}

// codecs holds the payload codec of each client dialTemporal made (a
// client does not tell its data converter).
var codecs sync.Map

// converterOf is the data converter of tc's payloads: its codec's, else
// one on root's default blob store.
// codecOf is the payload codec dialTemporal gave tc (nil for another).
func codecOf(tc client.Client) *temporal.Codec {
	if v, ok := codecs.Load(tc); ok {
		return v.(*temporal.Codec)
	}
	return nil
}

func converterOf(tc client.Client, root string) converter.DataConverter {
	if v, ok := codecs.Load(tc); ok {
		return v.(*temporal.Codec).DataConverter()
	}
	store, err := temporal.NewDirStore(filepath.Join(root, ".lppctl", "temporal", "blobs"))
	if err != nil {
		return converter.GetDefaultDataConverter()
	}
	return temporal.NewCodec(store, 0, 0).DataConverter()
}

// blobCodec is the payload codec of the --blobs store (docs/scale.md).
func blobCodec(c *cli.Context, limit int) (*temporal.Codec, error) {
	dir := c.String("blobs")
	if dir == "" {
		root := "."
		if c.IsSet("root") || c.String("root") != "" {
			root = c.String("root")
		}
		dir = filepath.Join(root, ".lppctl", "temporal", "blobs")
	}
	var store temporal.BlobStore
	var err error
	if strings.HasPrefix(dir, "s3://") {
		ctx, cancel := context.WithTimeout(c.Context, 10*time.Second)
		store, err = temporal.NewS3Store(ctx, dir)
		cancel()
	} else {
		store, err = temporal.NewDirStore(dir)
	}
	if err != nil {
		return nil, withCode(exitFailed, err)
	}
	return temporal.NewCodec(store, 0, limit), nil
}

// engineFlag is run's --engine.
func engineFlag() cli.Flag {
	return &cli.StringFlag{Name: "engine", Value: engineLocal, Usage: "where the run executes: `ENGINE` local (this process, journaled under .lppctl/runs) or temporal (workflows on the --temporal server, actions on lppctl workers)"}
}

// checkEngine refuses an unknown --engine, and temporal without a server.
func checkEngine(c *cli.Context) (string, error) {
	switch e := c.String("engine"); e {
	case engineLocal, "":
		return engineLocal, nil
	case engineTemporal:
		if c.String("temporal") == "" {
			return "", usageErrorf("--engine temporal needs the server: give --temporal HOST:PORT (or set LPPCTL_TEMPORAL)")
		}
		return engineTemporal, nil
	default:
		return "", usageErrorf("--engine %s: give local or temporal", e)
	}
}

// dialTemporal connects to the --temporal server.
func dialTemporal(c *cli.Context, ctx context.Context) (client.Client, error) {
	temporal.Version = versionString()
	codec, err := blobCodec(c, 0)
	if err != nil {
		return nil, err
	}
	tc, err := temporal.Dial(ctx, c.String("temporal"), c.String("namespace"), nil, codec)
	if err != nil {
		return nil, withCode(exitFailed, err)
	}
	codecs.Store(tc, codec)
	return tc, nil
}

// relTo returns p relative to root when it is inside it, else p.
func relTo(root, p string) string {
	if p == "" || root == "" || !filepath.IsAbs(p) {
		return p
	}
	if rel, err := filepath.Rel(root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return p
}

// portable returns cfg with its paths relative to its root, so that a
// worker on another machine finds them under its own root.
func (cfg agentConfig) portable() agentConfig {
	root, _ := filepath.Abs(cfg.Root)
	for _, p := range []*string{&cfg.Skill, &cfg.SkillFile, &cfg.Policy, &cfg.ClaudeMD, &cfg.SkillsLibrary, &cfg.SpecDir} {
		*p = relTo(root, *p)
	}
	cfg.Root = ""
	return cfg
}

// rebased returns a portable cfg with its relative paths under root.
func (cfg agentConfig) rebased(root string) agentConfig {
	cfg.Root = root
	for _, p := range []*string{&cfg.Skill, &cfg.SkillFile, &cfg.Policy, &cfg.ClaudeMD, &cfg.SkillsLibrary, &cfg.SpecDir} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(root, filepath.FromSlash(*p))
		}
	}
	if cfg.SpecDir == "" {
		cfg.SpecDir = root
	}
	return cfg
}

// pinnedFiles returns the prompt templates the spec names, by path relative
// to root: a Temporal run reads them as they are now, whatever happens on
// disk while it runs (a local run refuses to resume when one changed).
func pinnedFiles(spec *mspec.Spec, cfg agentConfig, root string) (map[string][]byte, error) {
	reg, err := buildRegistry(cfg, nil)
	if err != nil {
		return nil, err
	}
	var out map[string][]byte
	for _, p := range machine.FileParams(spec, reg, root) {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		rel := relTo(root, abs)
		if filepath.IsAbs(rel) {
			continue // outside the project: workers cannot be told where
		}
		b, err := os.ReadFile(abs)
		if err != nil {
			return nil, fmt.Errorf("cannot read prompt template %s: %w", rel, err)
		}
		if out == nil {
			out = map[string][]byte{}
		}
		out[rel] = b
	}
	return out, nil
}

// runOnTemporal starts a validated run as a workflow and follows it: the
// same progress lines as a local run; Ctrl-C detaches (the run goes on).
func runOnTemporal(ctx context.Context, c *cli.Context, path string, spec *mspec.Spec, vars map[string]any, events []queuedEvent, cfg agentConfig) error {
	tc, err := dialTemporal(c, ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	root, _ := filepath.Abs(cfg.Root)
	abs, _ := filepath.Abs(path)
	src, err := workflowSource(path, spec.Source)
	if err != nil {
		return err
	}
	st := temporal.Start{
		RunID: runstore.NewID(time.Now()), SpecPath: relTo(root, abs), Spec: src,
		SpecHash: temporal.SpecHash(src), MaxTransitions: c.Int("max-transitions"),
	}
	if st.Vars, err = json.Marshal(vars); err != nil {
		return fmt.Errorf("cannot send the variables: %w", err)
	}
	if st.Agent, err = json.Marshal(cfg.portable()); err != nil {
		return fmt.Errorf("cannot send the agent configuration: %w", err)
	}
	for _, e := range events {
		st.Events = append(st.Events, temporal.EventArg{Name: e.name, Payload: e.payload})
	}
	if st.Files, err = pinnedFiles(spec, cfg, root); err != nil {
		return err
	}
	if err := temporal.StartRun(ctx, tc, c.String("task-queue"), st); err != nil {
		return err
	}
	prog := runProgress(c)
	scriptedBanner(c, cfg.LLM)
	if prog.kind == progressJSON {
		_ = prog.enc.Encode(struct {
			Type   string `json:"type"`
			RunID  string `json:"run_id"`
			Engine string `json:"engine"`
		}{"run", st.RunID, engineTemporal})
	} else if prog.kind == progressText {
		fmt.Fprintf(c.App.ErrWriter, "run %s on Temporal %s (task queue %s)\n", st.RunID, c.String("temporal"), c.String("task-queue"))
	}
	return followTemporal(ctx, c, tc, st.RunID, 0, prog)
}

// followTemporal prints a Temporal run's steps from step from+1 until it
// ends or pauses, and maps how it stands to an exit code.
func followTemporal(ctx context.Context, c *cli.Context, tc client.Client, id string, from int, prog *progress) error {
	p, err := temporal.Follow(ctx, tc, id, from, temporal.FollowOptions{
		Step:   func(rec *machine.Record) { _ = prog.OnStep(ctx, rec) },
		Notice: func(msg string) { fmt.Fprintf(c.App.ErrWriter, "run %s: %s\n", id, msg) },
		Codec:  codecOf(tc),
	})
	hint := resumeOnTemporalHint(c, id)
	if ctx.Err() != nil {
		fmt.Fprintf(c.App.ErrWriter, "detached from run %s; it goes on. Follow it with: lppctl runs show %s --temporal %s\n", id, id, c.String("temporal"))
		return withCode(exitInterrupted, errors.New(""))
	}
	if err != nil {
		return err
	}
	return temporalOutcome(c, p, hint, prog)
}

// resumeOnTemporalHint is the command that answers run id: its server,
// and its namespace when not the default.
func resumeOnTemporalHint(c *cli.Context, id string) string {
	hint := fmt.Sprintf("lppctl resume %s --temporal %s", id, c.String("temporal"))
	if ns := c.String("namespace"); ns != "" && ns != "default" {
		hint += " --namespace " + ns
	}
	return hint
}

// temporalRunError is err of a command about run id: a run the server
// does not know is a usage error (exit 2), as an unknown local run is.
// Temporal runs are named by their whole ID (no prefix).
func temporalRunError(c *cli.Context, id string, err error) error {
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return usageErrorf("cannot find run %s on Temporal (namespace %s): give its whole ID, as lppctl runs --temporal %s lists them", id, cmp.Or(c.String("namespace"), "default"), c.String("temporal"))
	}
	return err
}

func temporalOutcome(c *cli.Context, p *temporal.Progress, hint string, prog *progress) error {
	if prog.kind == progressJSON {
		pause := pauseOnTemporal(p.Pause, p.RunID, hint)
		_ = prog.enc.Encode(struct {
			Type   string              `json:"type"`
			Status machine.Status      `json:"status"`
			State  string              `json:"state"`
			Steps  int                 `json:"steps"`
			Pause  *machine.PauseError `json:"pause,omitempty"`
			Error  string              `json:"error,omitempty"`
			// Cancelled: how a cancelled run was stopped.
			Cancelled string `json:"cancelled,omitempty"`
		}{"end", p.Status, p.State, p.Steps, pause, p.Error, p.Cancelled})
	}
	text := prog.kind != progressJSON
	switch p.Status {
	case machine.StatusCompleted:
		if text {
			fmt.Fprintf(c.App.Writer, "completed in %s after %s\n", p.State, countSteps(p.Steps))
		}
		return nil
	case machine.StatusPaused:
		if text && p.Pause != nil {
			prompt := strings.ReplaceAll(p.Pause.Prompt, "lppctl resume "+p.RunID, hint)
			fmt.Fprintf(c.App.Writer, "paused in %s after %s: %s\n", p.State, countSteps(p.Steps), prompt)
			if p.Pause.Kind != machine.PauseEvent {
				fmt.Fprintf(c.App.ErrWriter, "continue with: %s %s\n", hint, answerFlags(p.Pause.Options))
			}
		}
		return withCode(exitPaused, errors.New(""))
	case temporal.StatusCancelled:
		if text {
			fmt.Fprintf(c.App.Writer, "%s; a cancelled run does not continue: start a new one with lppctl run --engine temporal\n", cancelledText(p))
		}
		return withCode(exitInterrupted, errors.New(""))
	}
	if text {
		fmt.Fprintf(c.App.Writer, "failed in %s after %s\n", p.State, countSteps(p.Steps))
	}
	return withCode(exitFailed, fmt.Errorf("run %s stopped: %s", p.RunID, p.Error))
}

// pauseOnTemporal is pause (of run id) as --json prints it: its prompt's
// resume command is hint, which names the server (and the namespace), as
// the text lines say it; nil for nil, pause itself when hint is "".
func pauseOnTemporal(pause *machine.PauseError, id, hint string) *machine.PauseError {
	if pause == nil || hint == "" {
		return pause
	}
	cp := *pause
	cp.Prompt = strings.ReplaceAll(pause.Prompt, "lppctl resume "+id, hint)
	return &cp
}

// resumeOnTemporal answers a paused Temporal run (any machine can), then
// follows it as run does.
func resumeOnTemporal(ctx context.Context, c *cli.Context, id string, in *machine.Input, event string, payload map[string]any) error {
	tc, err := dialTemporal(c, ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	st, msg, err := temporal.Closed(ctx, tc, id)
	if err != nil {
		return temporalRunError(c, id, err)
	}
	// A cancelled run says where it stopped without a worker; a closed
	// run's query needs a worker to replay it, a running one's a worker to
	// answer: do not wait long.
	p, err := cancelSummary(ctx, tc, id, st)
	if p == nil {
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		p, err = temporal.QueryAll(qctx, tc, id, 0)
		cancel()
	}
	if st != "" {
		// The run has ended: nothing continues it; say how it ended.
		if err != nil {
			if p = carriedOnFailure(ctx, tc, id, err); p == nil {
				p = &temporal.Progress{RunID: id}
			}
		}
		p.Ended(st, msg)
		if in != nil || event != "" {
			how := fmt.Sprintf("has %s in %s after %s", p.Status, p.State, countSteps(p.Steps))
			if st == temporal.StatusCancelled {
				how = "was " + cancelledText(p)
			}
			return usageErrorf("cannot resume run %s: it %s; a run that has ended takes no answer or event", id, how)
		}
		return temporalOutcome(c, p, "", runProgress(c))
	}
	if err != nil {
		if n, perr := temporal.Pollers(ctx, tc, c.String("task-queue")); perr == nil && n == 0 {
			return fmt.Errorf("cannot ask run %s where it stands: %s", id, temporal.NoWorker(c.String("task-queue")))
		}
		return err
	}
	a := temporal.Resume{Input: in}
	if c.IsSet("pause-step") { // lppctl ui: only the pause its page showed
		want := c.Int("pause-step")
		if p.Status != machine.StatusPaused || p.Steps != want {
			return stalePause(id, want, p.Status == machine.StatusPaused, p.Status, p.State, p.Steps)
		}
		a.PauseStep = &want
	}
	var started []byte // the spec the run started with (a blueprint's: its translation)
	if event != "" {
		// A blueprint's run holds its translation: the blueprint's spelling
		// of an event (finish-it) is the translation's name (finish_it).
		if st, err := temporalStart(ctx, tc, cmp.Or(c.String("root"), "."), id); err == nil {
			event = lpp.ImportedName(st.Spec, event)
			started = st.Spec
		}
		a.Event = &temporal.EventArg{Name: event, Payload: payload}
	}
	if in == nil && event == "" {
		if p.Status != machine.StatusPaused {
			fmt.Fprintf(c.App.ErrWriter, "run %s is %s on Temporal; following it\n", id, p.Status)
		} else {
			return usageErrorf("run %s paused for %s: answer with %s", id, p.Pause.Kind, answerFlags(p.Pause.Options))
		}
	} else if err := temporal.ResumeRun(ctx, tc, id, a); err != nil {
		if msg := driverEventTemporal(started, "lppctl resume "+id+" --temporal "+shellQuote(c.String("temporal")), p.State, event); event != "" && msg != "" {
			return usageErrorf("%s", msg) // as the local engine says it
		}
		return withCode(exitUsage, err)
	}
	return followTemporal(ctx, c, tc, id, len(p.Records), runProgress(c))
}

// runsOnTemporal lists the runs the server knows.
func runsOnTemporal(c *cli.Context) error {
	tc, err := dialTemporal(c, c.Context)
	if err != nil {
		return err
	}
	defer tc.Close()
	runs, err := temporal.ListRuns(c.Context, tc, 0)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return writeJSONLines(c.App.Writer, runs)
	}
	for _, r := range runs {
		dur := "-"
		if r.End != nil {
			dur = r.End.Sub(r.Start).Round(time.Millisecond).String()
		}
		fmt.Fprintf(c.App.Writer, "%-28s %-10s %s  %s\n", r.RunID, r.Status, r.Start.UTC().Format(time.RFC3339), dur)
	}
	return nil
}

// showOnTemporal prints a Temporal run's standing (trace: its steps too).
// completedSummary asks a completed run where it ended, without its
// records, when a worker polls queue (a worker replays the run to answer),
// so that runs show does not read every step's values from the result;
// nil when none answers.
func completedSummary(ctx context.Context, tc client.Client, id, queue string) *temporal.Progress {
	if n, err := temporal.Pollers(ctx, tc, queue); err != nil || n == 0 {
		return nil
	}
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	p, err := temporal.Query(qctx, tc, id, -1)
	if err != nil || p.Status != machine.StatusCompleted {
		return nil
	}
	return p
}

func showOnTemporal(c *cli.Context, trace bool) error {
	id, err := runArg(c, "lppctl runs "+c.Command.Name+" RUN_ID --temporal HOST:PORT (lppctl runs --temporal HOST:PORT lists them)")
	if err != nil {
		return err
	}
	tc, err := dialTemporal(c, c.Context)
	if err != nil {
		return err
	}
	defer tc.Close()
	st, msg, err := temporal.Closed(c.Context, tc, id)
	if err != nil {
		return temporalRunError(c, id, err)
	}
	var p *temporal.Progress
	if st == machine.StatusCompleted {
		if !trace { // where it ended, without its steps, from a worker if one polls
			p = completedSummary(c.Context, tc, id, c.String("task-queue"))
		}
		if p == nil {
			p, err = temporal.Result(c.Context, tc, id) // no worker needed; every step's values
		}
	} else if p, err = cancelSummary(c.Context, tc, id, st); p != nil {
		// A cancelled run says where it stopped without a worker.
		if trace {
			err = p.Flatten()
		}
		p.Segments = nil
	} else {
		// A closed run's query needs a worker to replay it, a running one's
		// a worker to answer: do not wait long.
		queue := c.String("task-queue")
		if n, perr := temporal.Pollers(c.Context, tc, queue); st == "" && perr == nil && n == 0 {
			return showStanding(c, tc, id, trace, "no worker polls task queue "+queue)
		}
		// runs show asks where the run stands, without its steps: one
		// query (a running run answers each between its workflow tasks;
		// its steps page by page, an execution a page, took longer than
		// the wait on a long run); runs trace asks for every step.
		qctx, cancel := context.WithTimeout(c.Context, 10*time.Second)
		if trace {
			p, err = temporal.QueryAll(qctx, tc, id, 0)
		} else {
			p, err = temporal.Query(qctx, tc, id, -1)
		}
		cancel()
	}
	if berr := blobStoreError(id, err); berr != nil {
		return berr
	}
	if err != nil {
		if st == "" {
			// An open run no worker answers for: what the server alone
			// tells (its memo, its history).
			return showStanding(c, tc, id, trace, "no worker answered within 10s")
		}
		// The run has ended: say how, even when no worker can tell where.
		if p = carriedOnFailure(c.Context, tc, id, err); p == nil {
			p = &temporal.Progress{RunID: id}
			fmt.Fprintf(c.App.ErrWriter, "run %s: %v\n", id, err)
		} else if trace {
			if err := p.Flatten(); err != nil {
				return fmt.Errorf("cannot show run %s: %w", id, err)
			}
		}
		p.Segments = nil
	}
	if st != "" {
		p.Ended(st, msg)
	}
	if p.Status == machine.StatusRunning && p.Pause != nil {
		p.Status = machine.StatusPaused
	}
	// The memory is answered by a worker (an ended run's by its replay):
	// an ended run with none polling shows none, without waiting.
	mem, err := machine.NewMemory(), error(nil)
	if n, perr := temporal.Pollers(c.Context, tc, c.String("task-queue")); st == "" || perr != nil || n > 0 {
		mctx, cancel := context.WithTimeout(c.Context, 10*time.Second)
		mem, err = temporal.Memory(mctx, tc, id)
		cancel()
	}
	if berr := blobStoreError(id, err); berr != nil {
		return berr
	}
	if err != nil {
		if st == "" {
			return err
		}
		mem = machine.NewMemory()
	}
	if c.Bool("json") {
		// context is the run's variables under the name a local run's
		// runs show --json gives them (vars, kept for readers of before,
		// holds the same here; a local run's vars are its --var values).
		out := struct {
			*temporal.Progress
			Context map[string]any  `json:"context"`
			Memory  *machine.Memory `json:"memory"`
		}{p, p.Vars, mem}
		if out.Context == nil { // no worker told: none known, as an object
			out.Context = map[string]any{}
		}
		p.Pause = pauseOnTemporal(p.Pause, p.RunID, resumeOnTemporalHint(c, p.RunID))
		recs := p.Records
		if !trace {
			recs = nil
		}
		p.Records = nil
		return writeRunJSON(c.App.Writer, out, recs) // each step's maps whole
	}
	w := c.App.Writer
	if p.State == "" { // an ended run no worker told of (its error above)
		fmt.Fprintf(w, "run %s (Temporal)\nspec: %s\nstatus: %s (where it stopped is answered by a worker: start one, lppctl worker --temporal %s, and ask again)\n", p.RunID, p.Spec, p.Status, c.String("temporal"))
	} else {
		fmt.Fprintf(w, "run %s (Temporal)\nspec: %s\nstatus: %s in %s after %s\n", p.RunID, p.Spec, p.Status, p.State, countSteps(p.Steps))
	}
	if p.Pause != nil { // its resume command names the server
		fmt.Fprintf(w, "paused: %s\n", strings.ReplaceAll(p.Pause.Prompt, "lppctl resume "+p.RunID, resumeOnTemporalHint(c, p.RunID)))
	}
	if p.Waiting != "" {
		fmt.Fprintf(w, "waits: %s\n", p.Waiting)
	}
	if p.Error != "" {
		fmt.Fprintf(w, "error: %s\n", p.Error)
	}
	if p.Cancelled != "" {
		fmt.Fprintf(w, "cancelled: %s; a cancelled run does not continue\n", p.Cancelled)
	}
	if trace {
		prog := newProgress(w, progressText)
		for _, rec := range p.Records {
			_ = prog.OnStep(c.Context, rec)
		}
		return nil
	}
	fmt.Fprintln(w, "context:") // each value in short, as a local run's (--json has them whole)
	for _, name := range slices.Sorted(maps.Keys(p.Vars)) {
		fmt.Fprintf(w, "  %s = %s\n", name, shorten(compactJSON(p.Vars[name]), 100))
	}
	fmt.Fprintln(w, "memory (L2):")
	for _, item := range mem.Items("l2") {
		var s string
		if json.Unmarshal(item, &s) != nil {
			s = string(item)
		}
		fmt.Fprintf(w, "  %s\n", s)
	}
	return nil
}

// blobStoreError is err when it says that a value of run id is missing
// from this command's blob store (it is not the workers'): the run's state
// is unknown here, not empty; nil for any other error.
func blobStoreError(id string, err error) error {
	var mb *temporal.MissingBlobError
	if !errors.As(err, &mb) {
		return nil
	}
	return fmt.Errorf("cannot show run %s: %w; give this command the workers' blob store with --blobs DIR or s3://BUCKET[/PREFIX] (or --root, for their ROOT/.lppctl/temporal/blobs)", id, err)
}

func writeJSONLines[T any](w io.Writer, items []T) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return err
		}
	}
	return nil
}

// temporalHost hosts a worker's actions on its project root.
type temporalHost struct {
	root string // absolute
	out  io.Writer
}

func (h *temporalHost) Catalog() *machine.Registry {
	reg, err := buildRegistry(agentConfig{Root: h.root}, nil)
	if err != nil {
		panic(err) // the built-in registrations cannot fail
	}
	return withoutDropped(reg)
}

// droppedActions are actions a test build leaves out of its workers, as an
// older lppctl lacks them (worker_oldcatalog.go); none in a real build.
var droppedActions []string

// withoutDropped returns reg without droppedActions.
func withoutDropped(reg *machine.Registry) *machine.Registry {
	if len(droppedActions) == 0 {
		return reg
	}
	out := machine.NewRegistry()
	for _, a := range reg.Actions() {
		if !slices.Contains(droppedActions, a.Name) {
			_ = out.Register(*a)
		}
	}
	return out
}

func (h *temporalHost) ModelAction(name string) bool {
	return strings.HasPrefix(name, "llm.") || name == "skill.teacher"
}

// Open builds the run's actions on this machine: its configuration rebased
// on this worker's root, its logs under ROOT/.lppctl/temporal/RUN_ID.
func (h *temporalHost) Open(_ context.Context, run temporal.RunInfo) (*machine.Registry, func(), error) {
	var cfg agentConfig
	if len(run.Agent) > 0 {
		if err := json.Unmarshal(run.Agent, &cfg); err != nil {
			return nil, nil, fmt.Errorf("cannot read the agent configuration of run %s: %w", run.RunID, err)
		}
	}
	cfg = cfg.rebased(h.root)
	if run.Spec != nil && !filepath.IsAbs(run.Spec.File) {
		run.Spec.File = filepath.Join(h.root, filepath.FromSlash(run.Spec.File))
	}
	dir := filepath.Join(h.root, ".lppctl", "temporal", run.RunID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("cannot make the folder of run %s: %w", run.RunID, err)
	}
	audit, err := os.OpenFile(filepath.Join(dir, runstore.AuditFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, err
	}
	llmLog, err := os.OpenFile(filepath.Join(dir, runstore.LLMFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		audit.Close()
		return nil, nil, err
	}
	release := func() { audit.Close(); llmLog.Close() }
	notices := &workerNotices{next: h.out, scripted: strings.HasPrefix(cfg.LLM, "script:")}
	rt := &runtimeIO{RunID: run.RunID, RunDir: dir, Audit: audit, LLMLog: llmLog, NoInput: true, Out: notices, Quiet: true, OutUnseen: true}
	reg, deps, err := buildRegistryDeps(cfg, rt)
	if err != nil {
		release()
		return nil, nil, err
	}
	if run.Spec != nil {
		deps.Protected = runProtected(run.Spec, reg, cfg.Root, dir)
	}
	// The prompt templates as they were when the run started.
	for rel, b := range run.Files {
		if deps.Pinned == nil {
			deps.Pinned = map[string][]byte{}
		}
		deps.Pinned[filepath.Join(h.root, filepath.FromSlash(rel))] = b
	}
	// The action's tool calls are recorded: a retry of this action gives
	// back what they did instead of doing it again (docs/scale.md).
	deps.GatewayOptions = append(deps.GatewayOptions, gateway.WithEffects(toolEffects{temporal.NewEffects(filepath.Join(dir, temporal.EffectsFile), run)}))
	return withNotices(withoutDropped(reg), notices), release, nil
}

// temporalSpecAndPath is export --run for a Temporal run: the spec (by
// default the file the run started from, which must not have changed) and
// the states the run went through.
func temporalSpecAndPath(c *cli.Context, id, path string) (string, []string, error) {
	tc, err := dialTemporal(c, c.Context)
	if err != nil {
		return "", nil, err
	}
	defer tc.Close()
	var p *temporal.Progress
	if st, _, cerr := temporal.Closed(c.Context, tc, id); cerr == nil {
		if p, _ = cancelSummary(c.Context, tc, id, st); p != nil && p.Flatten() != nil {
			p = nil
		}
	}
	if p == nil {
		if p, err = temporal.QueryAll(c.Context, tc, id, 0); err != nil {
			return "", nil, temporalRunError(c, id, err)
		}
	}
	if path == "" {
		path = filepath.FromSlash(p.SpecPath)
		src, err := os.ReadFile(path)
		if err != nil {
			return "", nil, withCode(exitUsage, fmt.Errorf("cannot read the spec run %s started from: %w; give it as SPEC", id, err))
		}
		if src, err = workflowSource(path, src); err != nil { // a blueprint's run has its translation
			return "", nil, withCode(exitUsage, fmt.Errorf("cannot read the spec run %s started from: %w; give it as SPEC", id, err))
		}
		if temporal.SpecHash(src) != p.SpecHash {
			return "", nil, withCode(exitUsage, fmt.Errorf("%s changed since run %s started (the run has %s): give the spec it ran with as SPEC", path, id, p.SpecHash))
		}
	}
	var states []string
	for _, rec := range p.Records {
		if len(states) == 0 {
			states = append(states, rec.From)
		}
		if !rec.End && rec.Via != machine.ViaWait {
			states = append(states, rec.To)
		}
	}
	return path, states, nil
}

// scriptedBanner says, as a local run does when its first model call is
// made, that the model's replies of a run started with --llm script:FILE
// are replayed: on Temporal the model is built in a worker, whose output
// the person does not see.
func scriptedBanner(c *cli.Context, choice string) {
	file, ok := strings.CutPrefix(choice, "script:")
	if !ok {
		return
	}
	out := c.App.Writer
	if c.Bool("json") || c.Bool("deltas") {
		out = c.App.ErrWriter
	}
	fmt.Fprintf(out, "*** LLM replies are SCRIPTED: replaying %s (no model is called; tools run for real) ***\n", file)
}
