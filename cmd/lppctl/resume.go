package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

func resumeCommand() *cli.Command {
	return &cli.Command{
		Name:      "resume",
		Usage:     "continue a run after a crash, a Ctrl-C or a pause for a person",
		ArgsUsage: "RUN_ID",
		Description: `Rebuilds the run's context and memory from its journal and continues from
the last committed transition: a committed step is never re-run; an action
that was interrupted mid-way runs again from its start.

A run paused for a person continues with the answer: --approve, --reject or
--answer TEXT (which ones the pause accepts is printed when it pauses). On a
terminal, without an answer, the person is asked again.

The run uses the agent configuration it started with. If the spec file has
changed since, resume refuses and lists the states that differ; if a prompt
template the spec names has changed or is gone, it refuses and names it;
--force continues with the new spec and templates. RUN_ID may be a unique
prefix.`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "approve", Usage: "answer the pause: approve"},
			&cli.BoolFlag{Name: "reject", Usage: "answer the pause: reject"},
			&cli.StringFlag{Name: "answer", Usage: "answer the pause with `TEXT` (feedback, guidance, an edited plan)"},
			&cli.StringFlag{Name: "answer-file", Usage: "answer the pause with the content of `FILE` (as --answer; for a text too long for a command line)"},
			&cli.BoolFlag{Name: "force", Usage: "continue even though the spec or its prompt templates changed since the run began"},
			// Slices, so that a second --event (or --payload) is refused
			// rather than silently winning over the first.
			&cli.StringSliceFlag{Name: "event", Usage: "fire event `NAME` from the state the run stopped in (its action is not re-run)"},
			&cli.StringSliceFlag{Name: "payload", Usage: "the `JSON` object the --event carries (checked against its payload fields)"},
			&cli.StringFlag{Name: "payload-file", Usage: "the --event's payload read from `FILE` (as --payload)"},
			&cli.BoolFlag{Name: "no-input", Usage: "never ask a person: pause the run instead (also without a terminal)"},
			&cli.IntFlag{Name: "max-transitions", Usage: "raise the run's transition budget to `N` (counted from the run's start)", Action: checkMaxTransitions},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing but errors and the final summary"},
			&cli.BoolFlag{Name: "json", Usage: "print progress as JSON lines (one per step, its changed variables whole) for machines"},
			&cli.BoolFlag{Name: "deltas", Usage: "print each step as the journal writes it (JSON Lines; implies --json): a list that grew as the items appended, a map as the keys changed, so the output grows with the run, not with its square"},
			&cli.StringFlag{Name: "root", Usage: "the project `DIR` whose .lppctl/runs holds the run (default: the current directory)"},
			// lppctl ui answers the pause its page showed, never a later one.
			&cli.IntFlag{Name: "pause-step", Hidden: true, Usage: "answer only the pause the run stood in after step `N`"},
		}, append(append(runStoreFlags(), traceFlags()...), temporalFlags()...)...),
		Action: resumeAction,
	}
}

func resumeAction(c *cli.Context) error {
	if _, err := runArg(c, "lppctl resume RUN_ID (lppctl runs lists them)"); err != nil {
		return err
	}
	ctx, stop := interruptContext(c)
	defer stop()
	in, err := resumeInput(c)
	if err != nil {
		return err
	}
	event, payload, err := resumeEvent(c)
	if err != nil {
		return err
	}
	if err := preflightTrace(c); err != nil {
		return err
	}
	if c.String("temporal") != "" {
		return resumeOnTemporal(ctx, c, c.Args().First(), in, event, payload)
	}
	store := storeFrom(c)
	if addr := c.Args().First(); strings.Contains(addr, "/") {
		top, _, _ := strings.Cut(addr, "/")
		run, err := store.Open(top)
		if err != nil {
			return unknownRunArg(addr, err)
		}
		top = run.Meta.ID
		return usageErrorf("cannot resume run %s on its own: a child run goes on when its parent does: lppctl resume %s", addr, top)
	}
	rc, err := store.Recover(c.Args().First())
	if err != nil {
		return unknownRunArg(c.Args().First(), err)
	}
	defer rc.Release() // the one cleanup: the session, once open, closes its files in drive
	run, meta := rc.Run, &rc.Run.Meta
	id := meta.ID
	for _, note := range rc.Notes {
		fmt.Fprintf(c.App.ErrWriter, "note: %s\n", note)
	}
	if err := checkPauseStep(c, rc); err != nil {
		return err
	}
	switch rc.Done {
	case runstore.DoneBefore:
		if event != "" {
			return usageErrorf("cannot fire event %q: run %s has already completed in %s; a completed run takes no events", event, id, meta.State)
		}
		fmt.Fprintf(c.App.Writer, "run %s has already completed in %s after %s; nothing left to run\n", id, meta.State, countSteps(rc.Log.Steps()))
		return nil
	case runstore.DoneNow:
		if event != "" {
			return usageErrorf("cannot fire event %q: run %s had completed in %s before it stopped; a completed run takes no events", event, id, meta.State)
		}
		fmt.Fprintf(c.App.Writer, "run %s had completed in %s after %s before it stopped; nothing left to run\n", id, meta.State, countSteps(rc.Log.Steps()))
		return nil
	}
	pause := rc.Pause()
	if in != nil && pause == nil {
		if seq := rc.Log.AnsweredWith(in); seq > 0 {
			// The same command again, after a resume that took the answer
			// was killed: the answer is committed; go on without it.
			fmt.Fprintf(c.App.ErrWriter, "note: run %s already took this answer (step %d); continuing without it\n", id, seq)
			in = nil
		}
	}
	if event != "" {
		if seq := rc.Log.TookEvent(event); seq > 0 {
			// The same command again, after a resume that delivered the
			// event was killed: the event is committed; go on without it.
			fmt.Fprintf(c.App.ErrWriter, "note: run %s already took event %s (step %d); continuing without it\n", id, event, seq)
			event, payload = "", nil
		}
	}
	switch {
	case in != nil && pause == nil:
		return usageErrorf("run %s is not waiting for a person (it is %s): resume it without --approve, --reject or --answer", id, meta.Status)
	case in != nil && pause.Kind == machine.PauseEvent:
		return usageErrorf("run %s waits in %s for an event, not an answer: deliver one with --event NAME (it accepts %s)", id, pause.State, strings.Join(pause.Options, ", "))
	case in != nil && len(pause.Options) > 0 && !slices.Contains(pause.Options, in.Kind):
		return usageErrorf("run %s paused for %s, which does not take --%s: answer with %s", id, pause.Kind, in.Kind, answerFlags(pause.Options))
	}

	if _, err := actions.ReadRetryEnv(os.Getenv); err != nil {
		return withCode(exitUsage, err)
	}
	if _, _, err := actions.ReadNowEnv(os.Getenv); err != nil {
		return withCode(exitUsage, err)
	}
	var cfg agentConfig
	if len(meta.Agent) > 0 {
		if err := json.Unmarshal(meta.Agent, &cfg); err != nil {
			return fmt.Errorf("cannot resume run %s: its agent configuration: %w", id, err)
		}
		cfg = cfg.loaded(run)
	}
	specPath, forced, err := resumeSpecPath(c, run)
	if err != nil {
		return err
	}
	reg, err := buildRegistry(cfg, nil)
	if err != nil {
		return err
	}
	if err := resumeTemplates(c, run); err != nil {
		return err
	}
	spec, err := loadResumeSpec(specPath, run.AbsPath(meta.SpecAbs), reg, cfg, c.App.ErrWriter)
	if err != nil {
		return err
	}
	if c.Bool("force") && len(meta.Files) > 0 {
		// Later resumes compare with what this one continues with.
		at := *spec
		if cfg.SpecDir != "" {
			at.File = filepath.Join(cfg.SpecDir, filepath.Base(spec.File))
		}
		meta.Files = run.RelPaths(cfg.Root, runstore.FileHashes(&at, reg, cfg.Root))
	}
	if _, err := machine.Compile(spec, reg); err != nil {
		return withCode(exitInvalidSpec, err)
	}

	sess, err := openSession(c, store, run, c.Bool("no-input"))
	if err != nil {
		return err
	}
	handed := false // to drive, which closes the session however the run ends
	defer func() {
		if !handed {
			sess.close()
		}
	}()
	m, err := sess.compile(cfg, spec)
	if err != nil {
		return err
	}
	budget := meta.MaxTransitions
	if n := c.Int("max-transitions"); n > 0 {
		budget, meta.MaxTransitions = n, n
	}
	prog := runProgress(c)
	opts := append(sess.runOptions(prog, budget), traceOptions(c, run)...)
	if in != nil {
		opts = append(opts, machine.WithInput(in))
	}
	r, err := m.NewRun(meta.Vars, opts...)
	if err == nil {
		err = rc.Replay(r) // streamed: one step in memory at a time
	}
	if err != nil {
		if forced != nil {
			return fmt.Errorf("cannot resume run %s with the new spec: %w", id, err)
		}
		return fmt.Errorf("cannot resume run %s: %w", id, err)
	}
	event = blueprintName(spec, event)
	if event != "" {
		if in != nil {
			return usageErrorf("give either --event or an answer (--approve, --reject, --answer), not both")
		}
		if err := r.CanFireEvent(event, payload); err != nil {
			if msg := driverEventRefused(spec, resumeHint(store, id), r.State(), event, m.Accepts(r.State())); msg != "" {
				return usageErrorf("%s", msg)
			}
			return withCode(exitUsage, err) // nothing done: the run keeps its spec too
		}
	}
	if forced != nil { // only once the journal replays on it and the event applies: else the copy stays the old spec
		if err := run.UpdateSpec(forced); err != nil {
			return err
		}
	}
	for _, note := range requeue(rc, r) {
		fmt.Fprintf(c.App.ErrWriter, "note: %s\n", note)
	}
	meta.Status, meta.State, meta.Steps, meta.PID, meta.Error = machine.StatusRunning, r.State(), r.Seq(), os.Getpid(), ""
	meta.End = nil
	meta.Resumes++
	if err := run.SaveMeta(); err != nil {
		return err
	}
	copyMeta := *meta
	if err := sess.journal.Mark(&runstore.Entry{Type: runstore.EntryResume, State: r.State(), Answer: in, Meta: &copyMeta}); err != nil {
		return err
	}
	sess.journal.SetCommitted(r.Seq(), r.State())
	runstore.CrashPoint("resume-started")
	if prog.kind == progressText {
		fmt.Fprintf(c.App.ErrWriter, "resuming run %s in %s after %s\n", id, r.State(), countSteps(r.Seq()))
	}
	if event != "" {
		if err := r.FireEvent(ctx, event, payload); err != nil {
			return err
		}
	}
	if sess.trace, err = startTrace(ctx, c, run, true); err != nil {
		return err
	}
	handed = true
	return sess.drive(ctx, c, r, prog)
}

// checkPauseStep refuses a decision meant for a pause the run no longer
// stands in (--pause-step N: the pause after step N), under the run's lock,
// so that a second decision for the same pause is refused, not applied to
// whatever the run asks next.
func checkPauseStep(c *cli.Context, rc *runstore.Recovery) error {
	if !c.IsSet("pause-step") {
		return nil
	}
	want, steps := c.Int("pause-step"), rc.Log.Steps()
	p := rc.Pause()
	if p != nil && steps == want {
		return nil
	}
	meta := &rc.Run.Meta
	return stalePause(meta.ID, want, p != nil, meta.Status, meta.State, steps)
}

// stalePause is the refusal of a decision for the pause after step want
// (--pause-step) by a run that stands elsewhere: taken already when the run
// no longer waits, or meant for another pause than the one it waits in.
func stalePause(id string, want int, paused bool, status machine.Status, state string, steps int) error {
	if paused {
		return usageErrorf("run %s waits in %s after %s; this decision answers a pause after step %d, not the one it waits in now (an older page, or a form that names another pause): nothing was done; reload to see what it waits for", id, state, countSteps(steps), want)
	}
	return usageErrorf("run %s no longer waits for this decision (it paused after step %d; it is %s in %s after %s now): the decision was already taken; reload to see what it waits for", id, want, status, state, countSteps(steps))
}

// resumeInput reads --approve, --reject and --answer (at most one).
func resumeInput(c *cli.Context) (*machine.Input, error) {
	var in []*machine.Input
	if c.Bool("approve") {
		in = append(in, &machine.Input{Kind: "approve"})
	}
	if c.Bool("reject") {
		in = append(in, &machine.Input{Kind: "reject"})
	}
	if c.IsSet("answer") {
		in = append(in, &machine.Input{Kind: "answer", Text: c.String("answer")})
	}
	if c.IsSet("answer-file") {
		text, err := readValueFile("--answer-file "+c.String("answer-file"), c.String("answer-file"))
		if err != nil {
			return nil, err
		}
		in = append(in, &machine.Input{Kind: "answer", Text: text})
	}
	switch len(in) {
	case 0:
		return nil, nil
	case 1:
		return in[0], nil
	}
	return nil, usageErrorf("give one answer: --approve, --reject, --answer TEXT or --answer-file FILE")
}

// resumeEvent reads --event NAME and its --payload JSON.
func resumeEvent(c *cli.Context) (string, map[string]any, error) {
	events, payloads := c.StringSlice("event"), c.StringSlice("payload")
	if c.IsSet("payload-file") {
		text, err := readValueFile("--payload-file "+c.String("payload-file"), c.String("payload-file"))
		if err != nil {
			return "", nil, err
		}
		payloads = append(payloads, text)
	}
	if len(events) > 1 {
		return "", nil, usageErrorf("give one event: resume delivers one (--event NAME [--payload JSON]), and is run again for the next; you gave %d (%s)", len(events), strings.Join(events, ", "))
	}
	if len(payloads) > 1 {
		return "", nil, usageErrorf("give one payload: the event carries one JSON object, and you gave %d", len(payloads))
	}
	event := ""
	if len(events) == 1 {
		event = events[0]
	}
	if len(payloads) == 0 {
		return event, nil, nil
	}
	if event == "" {
		return "", nil, usageErrorf("--payload goes with an event: lppctl resume RUN_ID --event NAME --payload JSON")
	}
	payload, err := parsePayload(event, payloads[0])
	return event, payload, err
}

// resumeSpecPath returns the spec file to continue the run with: the file it
// started from when unchanged (or changed with --force: forced is then its
// content, to record as the run's spec once the journal replays on it), the
// run's copy of it when the file is gone. A changed spec without --force is
// an error listing what differs.
func resumeSpecPath(c *cli.Context, run *runstore.Run) (path string, forced []byte, err error) {
	meta := &run.Meta
	path = resumedSpecPath(meta.Spec, run.AbsPath(meta.SpecAbs))
	if path == "" {
		path = meta.Spec
	}
	src, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(c.App.ErrWriter, "note: %s is gone; continuing with the run's copy of the spec\n", meta.Spec)
		return run.Path(runstore.SpecFile), nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("cannot resume run %s: %w", meta.ID, err)
	}
	if runstore.SpecHash(src) == meta.SpecSHA256 {
		return path, nil, nil
	}
	old, err := run.SpecCopy()
	if err != nil {
		return "", nil, err
	}
	oldSpec, newSpec := parseForDiff(run.Path(runstore.SpecFile), old, path), parseForDiff(path, src, path) // a blueprint: its translations
	var diffs []string
	if oldSpec != nil && newSpec != nil {
		diffs = runstore.DiffSpecs(oldSpec, newSpec)
	} else {
		diffs = []string{"the file no longer decodes as a spec"}
	}
	if len(diffs) == 0 {
		fmt.Fprintf(c.App.ErrWriter, "note: %s changed since the run began, in comments or layout only\n", meta.Spec)
		return path, nil, nil
	}
	list := "  " + strings.Join(diffs, "\n  ")
	if !c.Bool("force") {
		return "", nil, fmt.Errorf("cannot resume run %s: %s changed since the run began:\n%s\nresume with --force to continue with the new spec, or restore the old one (a copy is in %s)", meta.ID, meta.Spec, list, run.Path(runstore.SpecFile))
	}
	fmt.Fprintf(c.App.ErrWriter, "warning: %s changed since the run began (continuing, --force):\n%s\n", meta.Spec, list)
	return path, src, nil
}

// resumeTemplates compares the prompt templates (the files the spec's file
// parameters name) with their content when the run began: a changed or
// missing one is an error naming it, unless --force.
func resumeTemplates(c *cli.Context, run *runstore.Run) error {
	changes := run.ChangedFiles()
	if len(changes) == 0 {
		return nil
	}
	lines := make([]string, len(changes))
	for i, f := range changes {
		switch {
		case f.Missing && f.Err != nil:
			lines[i] = fmt.Sprintf("prompt template %s cannot be read (%v)", f.Show(), f.Err)
		case f.Missing:
			lines[i] = fmt.Sprintf("prompt template %s is gone since the run began", f.Show())
		default:
			lines[i] = fmt.Sprintf("prompt template %s changed since the run began", f.Show())
		}
	}
	if !c.Bool("force") {
		what := lines[0]
		if len(lines) > 1 {
			what = fmt.Sprintf("%d prompt templates changed since the run began:\n  %s", len(lines), strings.Join(lines, "\n  "))
		}
		return fmt.Errorf("cannot resume run %s: %s\nresume with --force to continue with the templates as they are now, or restore them", run.Meta.ID, what)
	}
	for _, l := range lines {
		fmt.Fprintf(c.App.ErrWriter, "warning: %s (continuing, --force)\n", l)
	}
	return nil
}

// resumeFileOptions makes validation look for prompt templates where the
// run's actions do: the folder of the spec the run started from (even when
// it continues with the run's copy of it), then the run's project root.
func resumeFileOptions(cfg agentConfig) []validate.ValidateOption {
	var opts []validate.ValidateOption
	if cfg.Root != "" {
		opts = append(opts, validate.WithRoot(cfg.Root))
	}
	if cfg.SpecDir != "" {
		opts = append(opts, validate.WithSpecDir(cfg.SpecDir))
	}
	return opts
}

// loadResumeSpec is loadSpec for resume: prompt templates are looked for
// where the run's actions look for them (resumeFileOptions), also when the
// run continues with its copy of the spec; a blueprint's compute mapping
// beside the blueprint the run started from (origin).
func loadResumeSpec(path, origin string, reg *machine.Registry, cfg agentConfig, w io.Writer) (*mspec.Spec, error) {
	f, err := readSpecFile(path, origin)
	if err != nil {
		return nil, orCode(exitInvalidSpec, err)
	}
	spec, src := f.Spec, f.Src
	diags := f.report(path, reg, actions.CheckOptions{Root: cfg.Root, SpecDir: cfg.SpecDir}, resumeFileOptions(cfg)...)
	f.finish()
	if len(diags) > 0 {
		fmt.Fprintln(w, diags.PrettyAll(src))
	}
	if diags.HasErrors() {
		return nil, withCode(exitInvalidSpec, fmt.Errorf("cannot resume with %s: the spec is invalid", path))
	}
	return spec, nil
}
