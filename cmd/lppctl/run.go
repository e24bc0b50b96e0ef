package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/lpp"
	"github.com/lppctl/lppctl/machine/runstore"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run a spec from its initial state",
		ArgsUsage: "[SPEC]",
		Description: `Loads and validates the spec, then interprets it until it reaches a final
state, pauses for a person, fails, or is interrupted (Ctrl-C stops at a clean
point between transitions). Progress is printed as state changes.

Every run is durable: it gets a directory (ROOT/.lppctl/runs/RUN_ID, or
--run-dir) with a journal of its steps, so that it can be continued with
lppctl resume RUN_ID after a crash, a Ctrl-C or a pause for a person
(exit code 4). lppctl runs lists them.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "spec", Aliases: []string{"f"}, Usage: "the spec `FILE` (or give it as the argument)"},
			&cli.StringSliceFlag{Name: "var", KeepSpace: true, Usage: "override a context variable's default: `NAME=VALUE` (repeatable; lists and maps as JSON)"},
			&cli.StringSliceFlag{Name: "var-file", KeepSpace: true, Usage: "override a context variable's default with a file's content: `NAME=FILE` (repeatable; for a value too long for a command line)"},
			&cli.IntFlag{Name: "max-transitions", Usage: "stop the run after `N` transitions (default: the spec's limits.max_transitions, else 10000)", DefaultText: "limits.max_transitions", Action: checkMaxTransitions},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing but errors and the final summary"},
			&cli.BoolFlag{Name: "json", Usage: "print progress as JSON lines (one per step, its changed variables whole) for machines"},
			&cli.BoolFlag{Name: "deltas", Usage: "print each step as the journal writes it (JSON Lines; implies --json): a list that grew as the items appended, a map as the keys changed, so the output grows with the run, not with its square"},
			&cli.StringSliceFlag{Name: "event", Usage: "queue event `NAME` up front: the first state it applies in takes it (repeatable)"},
			&cli.StringSliceFlag{Name: "payload", Usage: "the `JSON` object of the --event of the same rank (repeatable)"},
			&cli.BoolFlag{Name: "no-input", Usage: "never ask a person: pause the run instead (also without a terminal)"},
			&cli.StringFlag{Name: "fsync", Value: string(runstore.FsyncAlways), Usage: "journal durability: `always` (sync every step) or never (leave it to the OS)"},
		}, append(append(append(runStoreFlags(), traceFlags()...), agentFlags()...), append(temporalFlags(), engineFlag())...)...),
		Action: runAction,
	}
}

func runAction(c *cli.Context) error {
	ctx, stop := interruptContext(c)
	defer stop()
	path, err := specArg(c)
	if err != nil {
		return err
	}
	engine, err := checkEngine(c)
	if err != nil {
		return err
	}
	policy, err := runstore.ParseFsync(c.String("fsync"))
	if err != nil {
		return withCode(exitUsage, err)
	}
	cfg, err := agentConfigFrom(c)
	if err != nil {
		return err
	}
	reg, err := buildRegistry(cfg, nil)
	if err != nil {
		return err
	}
	spec, err := loadSpec(path, reg, c.App.ErrWriter, cfg.Root, validate.WithRoot(cfg.Root))
	if err != nil {
		return err
	}
	runstore.CrashPoint("run-loaded")
	vars, err := parseVars(spec, c.StringSlice("var"))
	if err != nil {
		return err
	}
	if err := varFiles(c, spec, vars); err != nil {
		return err
	}
	if err := preflightAgent(cfg, spec); err != nil {
		return err
	}
	pre, err := machine.Compile(spec, reg)
	if err != nil {
		return withCode(exitInvalidSpec, err)
	}
	events, err := eventArgs(c)
	if err != nil {
		return err
	}
	for i := range events {
		events[i].name = blueprintName(spec, events[i].name)
	}
	check, err := pre.NewRun(vars) // before a run directory is made for nothing
	if err != nil {
		return withCode(exitUsage, err)
	}
	for _, e := range events {
		if err := check.SendEvent(e.name, e.payload); err != nil {
			return withCode(exitUsage, fmt.Errorf("--event %s: %w", e.name, err))
		}
	}
	if engine == engineTemporal { // validated like a local run: an invalid spec starts no workflow
		return runOnTemporal(ctx, c, path, spec, vars, events, cfg)
	}
	store := storeFrom(c)
	agentJSON, err := saveAgentConfig(cfg.stored(store))
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("cannot run %s: %w", path, err)
	}
	if ctx.Err() != nil {
		return withCode(exitInterrupted, errors.New("interrupted before the run started; nothing was recorded"))
	}
	if err := preflightTrace(c); err != nil {
		return err
	}
	run, err := store.Create(runstore.Meta{
		Spec: specShown(store, path, abs), SpecAbs: store.RelPath(cfg.Root, abs), SpecName: spec.Name, Start: time.Now(), State: spec.Initial,
		Vars: vars, Agent: agentJSON, MaxTransitions: c.Int("max-transitions"),
		Fsync: policy, PID: os.Getpid(),
		// prompt templates (and a blueprint's compute mapping), for resume
		Files:  store.RelPaths(cfg.Root, mappingHash(spec, path, runstore.FileHashes(spec, reg, cfg.Root))),
		Events: queuedMeta(events), // kept for a resume after a crash (requeue)
	}, spec.Source)
	if err != nil {
		return storeNotWritable(store, err)
	}
	prog := runProgress(c)
	announceRun(c, prog, run) // first thing, so that even a run killed now can be found
	runstore.CrashPoint("run-created")
	sess, err := openSession(c, store, run, c.Bool("no-input"))
	if err != nil {
		run.Unlock()
		return err
	}
	m, err := sess.compile(cfg, spec)
	if err != nil {
		return err
	}
	r, err := m.NewRun(vars, append(sess.runOptions(prog, c.Int("max-transitions")), traceOptions(c, run)...)...)
	if err != nil {
		sess.close()
		return withCode(exitUsage, err)
	}
	if err := queueAll(r, events); err != nil {
		sess.close()
		return err
	}
	sess.journal.SetCommitted(0, r.State())
	if sess.trace, err = startTrace(ctx, c, run, false); err != nil {
		sess.close()
		return err
	}
	return sess.drive(ctx, c, r, prog)
}

// announceRun tells where the run is journaled: on stderr, or as a first
// JSON line {"type":"run",...} with --json.
func announceRun(c *cli.Context, prog *progress, run *runstore.Run) {
	if prog.kind == progressJSON {
		_ = prog.enc.Encode(struct {
			Type  string `json:"type"`
			RunID string `json:"run_id"`
			Dir   string `json:"dir"`
		}{"run", run.Meta.ID, run.Dir})
		return
	}
	if prog.kind == progressText {
		fmt.Fprintf(c.App.ErrWriter, "run %s (journal in %s)\n", run.Meta.ID, run.Dir)
	}
}

// specArg returns the spec path from --spec or the single argument.
func specArg(c *cli.Context) (string, error) {
	path := c.String("spec")
	switch {
	case path != "" && c.NArg() > 0:
		return "", usageErrorf("give the spec either with --spec or as the argument, not both")
	case path == "" && c.NArg() == 1:
		path = c.Args().First()
	case path == "" && c.NArg() == 0:
		return "", usageErrorf("which spec? give it with --spec FILE (e.g. lppctl %s --spec specs/skills_agent.yaml)", c.Command.Name)
	case c.NArg() > 1:
		return "", usageErrorf("one spec at a time: give one SPEC, not %d (%s): lppctl %s SPEC [--var NAME=VALUE]... (a --var is one argument, NAME=VALUE)",
			c.NArg(), strings.Join(c.Args().Slice(), " "), c.Command.Name)
	}
	return path, nil
}

// parseVars turns NAME=VALUE overrides into typed values.
func parseVars(spec *mspec.Spec, pairs []string) (map[string]any, error) {
	vars := make(map[string]any, len(pairs))
	for _, pair := range pairs {
		name, val, ok := cutEq(pair)
		if !ok {
			return nil, usageErrorf("--var %q: write NAME=VALUE", pair)
		}
		if err := parseVar(spec, vars, "--var "+pair, name, val); err != nil {
			return nil, err
		}
	}
	return vars, nil
}

// parseVar reads the value val of the context variable name into vars;
// flag is how errors name what gave it ("--var NAME=VALUE").
func parseVar(spec *mspec.Spec, vars map[string]any, flag, name, val string) error {
	v := spec.Var(name)
	if v == nil { // a blueprint's property by its own name (len is lpp_len in the spec)
		if in := blueprintName(spec, name); in != name && spec.Var(in) != nil {
			name, v = in, spec.Var(in)
		}
	}
	if v == nil && (name == mspec.VarState || name == mspec.VarLastError) {
		return usageErrorf("%s: %q is reserved: the interpreter sets it", flag, name)
	}
	if v == nil {
		names := make([]string, len(spec.Context))
		for i, cv := range spec.Context {
			names[i] = cv.Name
		}
		hint := ""
		if best, ok := mspec.DidYouMean(name, names); ok {
			hint = fmt.Sprintf("; did you mean %q?", best)
		}
		return usageErrorf("%s: the spec has no context variable %q%s", flag, name, hint)
	}
	typed, err := v.ParseOverride(val)
	if err != nil {
		return usageErrorf("%s: %v", flag, err)
	}
	vars[name] = typed
	if f := lpp.DefinedFlags(spec)[name]; f != "" { // an undeclared L++ property: the caller's value makes it exist
		vars[f] = true
	}
	return nil
}

func cutEq(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '=' {
			return s[:i], s[i+1:], i > 0
		}
	}
	return "", "", false
}

// checkMaxTransitions refuses a --max-transitions below 0 (0 leaves the
// budget to the spec).
func checkMaxTransitions(_ *cli.Context, n int) error {
	if n < 0 {
		return usageErrorf("--max-transitions %d: give a number of transitions above 0 (leave it out for the spec's limits.max_transitions, else 10000)", n)
	}
	return nil
}

// loadSpec reads, decodes and validates a spec (prompt templates looked up as
// opts say; the general actions' files in root), printing diagnostics
// (errors and warnings) to w. A spec file that does not exist, or a folder,
// is a usage error (exit code 2); an invalid spec returns an error with exit
// code 3.
func loadSpec(path string, reg *machine.Registry, w io.Writer, root string, opts ...validate.ValidateOption) (*mspec.Spec, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, usageErrorf("cannot read spec: %s is a folder: give one spec file (lppctl validate %s checks the specs in it)", path, path)
	}
	f, err := readSpecFile(path, "") // a spec, or an L++ blueprint translated in memory (lpp_spec.go)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, withCode(exitUsage, specRootHint(err, path, root))
	}
	if err != nil {
		return nil, orCode(exitInvalidSpec, err)
	}
	spec, src := f.Spec, f.Src
	diags := f.report(path, reg, actions.CheckOptions{Root: root}, opts...)
	f.finish()
	if diags.HasErrors() {
		fmt.Fprintln(w, diags.PrettyAll(src))
		err := fmt.Errorf("cannot run %s: the %s is invalid", path, map[bool]string{false: "spec", true: "blueprint"}[f.isBlueprint()])
		if hint := specProjectHint(path, root); hint != "" {
			err = fmt.Errorf("%w; %s", err, hint)
		}
		return nil, withCode(exitInvalidSpec, err)
	}
	if len(diags) > 0 {
		fmt.Fprintln(w, diags.PrettyAll(src))
	}
	return spec, nil
}
