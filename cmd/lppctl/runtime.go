package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/lpp"
	"github.com/lppctl/lppctl/machine/runstore"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// runtimeIO is what a run gives the actions besides their configuration:
// where to log, who to ask. Commands that do not run anything pass nil.
type runtimeIO struct {
	RunID   string
	RunDir  string    // the run's directory ("" when the run is not durable)
	Audit   io.Writer // the gateway's audit log (JSON lines)
	LLMLog  io.Writer // the LLM call log with token usage (JSON lines)
	NoInput bool      // never prompt: pause instead
	Quiet   bool      // -q: the actions show only what a person is asked about
	// OutUnseen says that Out reaches no person (a Temporal worker's): what
	// the person must see goes into the step's notes, which the follower prints.
	OutUnseen bool
	In        io.Reader // the person's terminal, when interactive
	Out       io.Writer
}

// runStoreFlags are the flags that choose where runs live (run, resume, runs).
func runStoreFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "run-dir", EnvVars: []string{runstore.EnvDir}, Usage: "keep runs in `DIR` (default: ROOT/.lppctl/runs, ROOT being --root, else the current directory or the nearest folder above it holding config/tools_config.yaml)", Action: checkRunDir},
	}
}

// checkRunDir refuses a run folder that begins with a ~ no shell expanded
// (--run-dir=~/runs, a quoted "~/runs", LPPCTL_RUN_DIR=~/runs in an env
// file): taken as it is, the runs went into a folder named ~ under the
// current one, and lppctl runs elsewhere listed none of them.
func checkRunDir(_ *cli.Context, dir string) error {
	if dir == "~" || strings.HasPrefix(dir, "~/") || strings.HasPrefix(dir, "~"+string(filepath.Separator)) {
		return usageErrorf("--run-dir (or %s) %s: the ~ was not expanded (no shell expands it quoted, after =, or in an env file) and would be a folder named ~ here; give the folder as $HOME%s or an absolute path", runstore.EnvDir, dir, dir[1:])
	}
	return nil
}

// earlySignals catches SIGINT and SIGTERM from the start of a run or resume
// process (package init), so that a Ctrl-C while lppctl loads the spec is
// not lost to the default handling (death by signal) but cancels the
// command's context (interruptContext) like a later one.
var earlySignals struct {
	sync.Mutex
	ch chan os.Signal
}

func init() {
	if len(os.Args) > 1 && (os.Args[1] == "run" || os.Args[1] == "resume") {
		earlySignals.ch = make(chan os.Signal, 1)
		signal.Notify(earlySignals.ch, os.Interrupt, syscall.SIGTERM)
	}
}

// interruptContext returns a context that the first SIGINT or SIGTERM
// cancels (also one received before, see earlySignals); the default handling
// then comes back, so that a second one kills the process. run and resume
// take it before they create or touch the run, so that a Ctrl-C at any
// moment stops at a clean point. A closed stdout (lppctl run | head) no
// longer kills the process with SIGPIPE from then on: writes to it fail, and
// the run goes on without showing its progress (see keepRunningWithoutStdout).
func interruptContext(c *cli.Context) (context.Context, context.CancelFunc) {
	keepRunningWithoutStdout()
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	earlySignals.Lock()
	early := earlySignals.ch
	earlySignals.ch = nil
	earlySignals.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	if early != nil {
		signal.Stop(early) // NotifyContext has the signals now
		select {
		case <-early:
			cancel()
		default:
		}
	}
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills the process
	}()
	return ctx, func() {
		cancel()
		stop()
	}
}

var sigpipe sync.Once

// keepRunningWithoutStdout catches SIGPIPE, so that a write to a closed
// stdout or stderr returns EPIPE instead of killing the process (Go's
// default for those two descriptors): a run whose reader went away must not
// be left "crashed". Processes lppctl starts get the default handling back.
func keepRunningWithoutStdout() {
	sigpipe.Do(func() {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	})
}

// resumeHint is the command that continues run id: with --run-dir when the
// runs are not in .lppctl/runs of the current directory (also when they are
// the project root's, seen from a subfolder: the command works anywhere).
func resumeHint(store *runstore.Store, id string) string {
	cmd := "lppctl resume " + id
	if filepath.Clean(store.Dir) != filepath.Clean(runstore.DefaultDir) {
		cmd += " --run-dir " + shellQuote(store.Dir)
	}
	return cmd
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// storeFrom returns the run store chosen by --run-dir, $LPPCTL_RUN_DIR or
// --root; else the project root's, found as the agent finds it (the current
// directory or the nearest folder above it holding config/tools_config.yaml),
// so that a run started in a subfolder of a project is kept, listed and
// resumed with the project's runs instead of in a stray SUBFOLDER/.lppctl.
func storeFrom(c *cli.Context) *runstore.Store {
	if dir := c.String("run-dir"); strings.TrimSpace(dir) != "" { // blank, as empty: unset
		return runstore.New(dir)
	}
	if root := c.String("root"); root != "" {
		return runstore.New(filepath.Join(root, runstore.DefaultDir))
	}
	if root := findProjectRoot("."); root != "." {
		return runstore.New(filepath.Join(root, runstore.DefaultDir))
	}
	return runstore.New("")
}

// session is a durable run in progress: its directory, journal and logs.
type session struct {
	run     *runstore.Run
	store   *runstore.Store
	journal *runstore.Journal
	audit   *os.File
	llm     *os.File
	rt      *runtimeIO
	trace   *tracedRun // nil: not traced
}

// compile builds the run's registry (the actions now get the session's
// logs and terminal) and compiles the spec against it. On error the session
// is closed.
func (s *session) compile(cfg agentConfig, spec *mspec.Spec) (*machine.Machine, error) {
	reg, deps, err := buildRegistryDeps(cfg, s.rt)
	if err != nil {
		s.close()
		return nil, err
	}
	deps.Protected = runProtected(spec, reg, cfg.Root, s.rt.RunDir)
	if lpp.IsBlueprint(spec.Source) { // a blueprint runs outside an lppctl project too
		deps.DefaultPolicy = actions.BlueprintPolicy(actions.ScriptDirs(spec))
	}
	m, err := machine.Compile(spec, reg)
	if err != nil {
		s.close()
		return nil, withCode(exitInvalidSpec, err)
	}
	return m, nil
}

// openSession opens the run's journal and logs for appending and prepares the
// actions' I/O: a person is asked on a terminal unless noInput.
func openSession(c *cli.Context, store *runstore.Store, run *runstore.Run, noInput bool) (*session, error) {
	s := &session{run: run, store: store}
	var err error
	if s.journal, err = run.OpenJournal(run.Meta.Fsync); err != nil {
		return nil, err
	}
	if s.audit, err = run.OpenLog(runstore.AuditFile); err != nil {
		s.close()
		return nil, err
	}
	if s.llm, err = run.OpenLog(runstore.LLMFile); err != nil {
		s.close()
		return nil, err
	}
	out := c.App.Writer
	if c.Bool("json") {
		out = c.App.ErrWriter // stdout carries only the JSON lines; what actions say to the person goes to stderr
	}
	s.rt = &runtimeIO{RunID: run.Meta.ID, RunDir: run.Dir, Audit: s.audit, LLMLog: s.llm, Out: out, NoInput: true, Quiet: c.Bool("quiet")}
	if f, ok := c.App.Reader.(*os.File); ok && !noInput && term.IsTerminal(int(f.Fd())) {
		s.rt.In, s.rt.NoInput = f, false
	}
	return s, nil
}

func (s *session) close() {
	for _, f := range []io.Closer{s.audit, s.llm} {
		if f != nil && f != (*os.File)(nil) {
			f.Close()
		}
	}
	if s.journal != nil {
		s.journal.Close()
	}
	s.run.Unlock()
}

// drive runs r to its end, journals how it stopped, updates run.json, prints
// the summary (with how to continue) and maps the outcome to an exit code.
// ctx is interruptContext's.
func (s *session) drive(ctx context.Context, c *cli.Context, r *machine.Run, prog *progress) error {
	defer s.trace.shutdown() // after the journal: a slow collector never holds it back
	defer s.close()
	err := s.trace.run(ctx, r)
	if errors.Is(err, machine.ErrFinished) {
		err = nil
	}
	meta := &s.run.Meta
	meta.Status, meta.State, meta.Steps, meta.PID = r.Status(), r.State(), r.Seq(), 0
	meta.Pause, meta.Error = nil, ""
	id := meta.ID
	hint := resumeHint(s.store, id)
	if jerr := s.journal.Err(); jerr != nil {
		// The journal cannot be written (a full disk, an I/O error): the
		// run stopped before the step it could not record; run.json says
		// what the journal holds.
		steps, state := s.journal.Committed()
		meta.Status, meta.State, meta.Steps, meta.Error = machine.StatusFailed, state, steps, err.Error()
		meta.Tokens = s.run.Tokens()
		if merr := s.run.SaveMeta(); merr != nil {
			fmt.Fprintf(c.App.ErrWriter, "lppctl: %v\n", merr)
		}
		return fmt.Errorf("run %s stopped: %w\nthe journal holds %d steps (the run stands in %s); once the cause is fixed, continue with: %s", id, err, steps, state, hint)
	}
	now := time.Now()
	marker := &runstore.Entry{State: r.State()}
	pause, paused := machine.AsPause(err)
	switch {
	case err == nil:
		meta.Status = machine.StatusCompleted
		meta.End = &now
		marker = nil // the last step record says End
	case paused:
		if hint != "lppctl resume "+id {
			pause.Prompt = strings.ReplaceAll(pause.Prompt, "lppctl resume "+id, hint)
		}
		meta.Status, meta.Pause = machine.StatusPaused, pause
		marker.Type, marker.Pause = runstore.EntryPause, pause
	case errors.Is(err, machine.ErrInterrupted):
		meta.Status = machine.StatusInterrupted
		marker.Type, marker.Message = runstore.EntryInterrupt, err.Error()
	default:
		meta.Status, meta.Error = machine.StatusFailed, err.Error()
		marker.Type, marker.Message = runstore.EntryFail, err.Error()
	}
	if marker != nil {
		if jerr := s.journal.Mark(marker); jerr != nil {
			fmt.Fprintf(c.App.ErrWriter, "lppctl: %v\n", jerr)
		}
	}
	if jerr := s.journal.Sync(); jerr != nil {
		fmt.Fprintf(c.App.ErrWriter, "lppctl: %v\n", jerr)
	}
	meta.Tokens = s.run.Tokens()
	if merr := s.run.SaveMeta(); merr != nil {
		// The journal says how the run stopped: listings and resume read it there.
		fmt.Fprintf(c.App.ErrWriter, "warning: %v; the run's journal records how it stopped (%s), and lppctl runs and resume read it there\n", merr, meta.Status)
	}
	if note := pendingNote(r, hint); note != "" {
		fmt.Fprintln(c.App.ErrWriter, note)
	}
	switch {
	case err == nil:
		prog.summary(r, nil)
		return nil
	case paused:
		prog.summary(r, err)
		if !strings.Contains(pause.Prompt, "lppctl resume") {
			fmt.Fprintf(c.App.ErrWriter, "continue with: %s %s\n", hint, answerFlags(pause.Options))
		}
		if pause.Kind == "approval" && prog.kind == progressText {
			fmt.Fprintln(c.App.Writer, "(lppctl run --yes approves plans without asking)")
		}
		return withCode(exitPaused, errors.New(""))
	case errors.Is(err, machine.ErrInterrupted):
		if prog.kind == progressJSON {
			prog.summary(r, err)
		}
		fmt.Fprintf(c.App.ErrWriter, "interrupted in %s after %s; continue with: %s\n", r.State(), countSteps(r.Seq()), hint)
		return withCode(exitInterrupted, errors.New(""))
	}
	prog.summary(r, err)
	if st := r.Machine().Spec().State(r.State()); st != nil && st.Final {
		// A final state whose action fails ends the run on purpose (e.g. an abort).
		fmt.Fprintf(c.App.ErrWriter, "run %s ended in %s\n", id, r.State())
	} else {
		fmt.Fprintf(c.App.ErrWriter, "run %s stopped in %s; after fixing the cause, retry the state with: %s\n", id, r.State(), hint)
	}
	return withCode(exitFailed, err)
}

// answerFlags renders a pause's accepted answers as resume flags.
func answerFlags(options []string) string {
	var parts []string
	for _, o := range options {
		switch o {
		case "approve", "reject":
			parts = append(parts, "--"+o)
		case "answer":
			parts = append(parts, "--answer TEXT")
		}
	}
	if len(parts) == 0 {
		return "--answer TEXT"
	}
	return strings.Join(parts, " | ")
}

// saveAgentConfig renders the agent configuration for run.json.
func saveAgentConfig(cfg agentConfig) (json.RawMessage, error) {
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot save the agent configuration: %w", err)
	}
	return b, nil
}

// runOptions names the run and observes it: the journal first, so that
// progress shows only committed steps.
func (s *session) runOptions(prog *progress, maxTransitions int) []machine.RunOption {
	return []machine.RunOption{
		machine.WithRunID(s.run.Meta.ID),
		machine.WithObserver(s.journal),
		machine.WithObserver(prog),
		machine.WithMaxTransitions(maxTransitions),
	}
}
