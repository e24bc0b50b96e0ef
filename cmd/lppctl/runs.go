package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/actions/agent"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

func runsCommand() *cli.Command {
	storeFlags := func(extra ...cli.Flag) []cli.Flag {
		return append(append(extra,
			&cli.StringFlag{Name: "root", Usage: "the project `DIR` whose .lppctl/runs to read (default: the current directory)"},
		), append(runStoreFlags(), temporalFlags()...)...)
	}
	return &cli.Command{
		Name:      "runs",
		Usage:     "list durable runs; show, trace, cancel or fork one",
		ArgsUsage: " ",
		Description: `Lists the runs (oldest first) with their status, spec, start, duration,
steps and LLM tokens. A run whose process died without a clean stop is
listed as "crashed": lppctl resume RUN_ID continues it.`,
		Flags:  storeFlags(&cli.BoolFlag{Name: "json", Usage: "print the runs' metadata as JSON lines"}),
		Action: runsListAction,
		Subcommands: []*cli.Command{
			{
				Name:      "show",
				Usage:     "a run's summary, current state, context and memory (L2)",
				ArgsUsage: "RUN_ID",
				Flags:     storeFlags(&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON"}),
				Action:    runsShowAction,
			},
			{
				Name:      "trace",
				Usage:     "a run's transitions as a timeline",
				ArgsUsage: "RUN_ID",
				Flags: storeFlags(
					&cli.BoolFlag{Name: "json", Usage: "print the journal's entries as JSON Lines, each step's variables whole (a list or map that grows at every step is printed whole at every step: see --deltas)"},
					&cli.BoolFlag{Name: "deltas", Usage: "print the journal's lines as they are in the file (JSON Lines; implies --json): a step's list as the items it appended, its map as the keys it changed, so the output grows with the run, not with its square"},
				),
				Action: runsTraceAction,
			},
			{
				Name:      "cancel",
				Usage:     "stop a running run at its next clean point (resumable); a Temporal run's too",
				ArgsUsage: "RUN_ID",
				Description: `Stops a running run at its next clean point, as a Ctrl-C in its terminal
would: the process that runs it (lppctl run or resume, found by the run's
lock) gets SIGTERM, journals the interrupt and exits; the run is then
"interrupted" and lppctl resume RUN_ID continues it. Waits up to --wait for
the run to stop. With --temporal HOST:PORT it asks a Temporal run to cancel.`,
				Flags:  storeFlags(&cli.DurationFlag{Name: "wait", Value: 30 * time.Second, Usage: "wait up to `DURATION` for the run to stop"}),
				Action: runsCancelAction,
			},
			runsForkCommand(storeFlags),
		},
	}
}

// runStatus is the run's status as listed: "crashed" for a run marked
// running that no process works on (its lock is free: the process died).
func runStatus(r *runstore.Run) string {
	if r.Meta.Status == machine.StatusRunning && !r.Working() {
		return "crashed"
	}
	return string(r.Meta.Status)
}

// refresh brings a run's step count up to date from its journal when its
// run.json may lag (running or crashed runs), and sums its tokens.
// It returns what is wrong with the run's journal (runstore.Run.CheckJournal,
// or ReadJournal for a running run), nil when nothing is.
func refresh(r *runstore.Run) (damage error) {
	damage = r.CheckJournal()
	if r.Meta.Status == machine.StatusRunning && damage == nil {
		l, err := r.ScanJournal(nil)
		damage = err
		settled := err == nil && !r.Working() && r.Settle(l) // it ended; run.json did not say so
		if err == nil && !settled {
			r.Meta.Steps = l.Steps()
			if last := l.LastStep(); last != nil {
				r.Meta.State = last.To
				if last.End {
					r.Meta.State = last.From
				}
				// A crashed run's duration runs to its last committed step.
				if end := last.Start.Add(last.Duration); end.After(r.Meta.Updated) {
					r.Meta.Updated = end
				}
			}
		}
	}
	r.Meta.Tokens = r.Tokens()
	return damage
}

// listedStatus is runStatus, or "damaged" when the run's journal is.
func listedStatus(r *runstore.Run, damage error) string {
	if damage != nil {
		return "damaged"
	}
	return runStatus(r)
}

func runDuration(r *runstore.Run) time.Duration {
	m := &r.Meta
	end := m.Updated
	if m.End != nil {
		end = *m.End
	}
	if m.Status == machine.StatusRunning && r.Working() {
		end = time.Now()
	}
	if end.Before(m.Start) {
		return 0
	}
	return end.Sub(m.Start).Round(time.Millisecond)
}

func runsListAction(c *cli.Context) error {
	if c.String("temporal") != "" {
		return runsOnTemporal(c)
	}
	if c.NArg() > 0 {
		return unknownSubcommand(c.Command, c.Args().First())
	}
	store := storeFrom(c)
	runs, err := store.List()
	if err != nil {
		return err
	}
	w := c.App.Writer
	if c.Bool("json") {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false) // guards like n >= max stay readable, as in run --json
		for _, r := range runs {
			damage := refresh(r)
			m := r.Meta
			m.Status = machine.Status(listedStatus(r, damage))
			if damage != nil {
				m.Error = damage.Error()
			}
			if err := enc.Encode(m); err != nil {
				return err
			}
		}
		return nil
	}
	if len(runs) == 0 {
		fmt.Fprintf(w, "no runs in %s\n", store.Dir)
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTATUS\tSPEC\tSTARTED\tDURATION\tSTEPS\tTOKENS\tSTATE")
	var damaged []string
	for _, r := range runs {
		damage := refresh(r)
		if damage != nil {
			damaged = append(damaged, fmt.Sprintf("%s: %v", r.Meta.ID, damage))
		}
		m := &r.Meta
		started := "-" // a run nothing could be read of has no start time
		if !m.Start.IsZero() {
			started = m.Start.Local().Format("2006-01-02 15:04:05")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", tableCell(m.ID), listedStatus(r, damage), tableCell(m.Spec),
			started, runDuration(r), m.Steps, m.Tokens, tableCell(m.State))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, d := range damaged {
		fmt.Fprintf(c.App.ErrWriter, "warning: the journal of run %s\n", d)
	}
	return nil
}

// openRunArg opens the run named by the command's single argument.
func openRunArg(c *cli.Context) (*runstore.Run, *runstore.Log, error) {
	id, err := runArg(c, "lppctl runs "+c.Command.Name+" RUN_ID (lppctl runs lists them)")
	if err != nil {
		return nil, nil, err
	}
	run, err := storeFrom(c).Open(id)
	if err != nil {
		return nil, nil, unknownRunArg(id, err)
	}
	if run.Rebuilt != nil {
		fmt.Fprintf(c.App.ErrWriter, "note: %v; rebuilt it from the journal\n", run.Rebuilt)
	}
	l, err := run.ReadJournal()
	if err == nil {
		err = run.CheckChildren() // resume resumes them: damage there is the run's
	}
	if err != nil {
		return nil, nil, &journalError{run, err}
	}
	if note := l.TornNote(); note != "" {
		fmt.Fprintf(c.App.ErrWriter, "note: %s\n", note)
	}
	return run, l, nil
}

// snapshot rebuilds the run's context and memory from its journal, with the
// context defaults of the run's copy of the spec.
func snapshot(run *runstore.Run, l *runstore.Log) (*runstore.Snapshot, error) {
	var spec *mspec.Spec
	if src, err := run.SpecCopy(); err == nil {
		spec, _ = mspec.Parse(run.Path(runstore.SpecFile), src)
	}
	return runstore.Fold(spec, run.Meta.Vars, l)
}

func runsShowAction(c *cli.Context) error {
	if c.String("temporal") != "" {
		return showOnTemporal(c, false)
	}
	run, l, err := openRunArg(c)
	if jerr, ok := errors.AsType[*journalError](err); ok {
		return showDamaged(c, jerr.run, jerr.err)
	}
	if err != nil {
		return err
	}
	snap, err := snapshot(run, l)
	if err != nil {
		return err
	}
	refresh(run)
	m := &run.Meta
	w := c.App.Writer
	if c.Bool("json") {
		out := struct {
			runstore.Meta
			Status  string          `json:"status"`
			State   string          `json:"state"`
			Steps   int             `json:"steps"`
			Context map[string]any  `json:"context"`
			Memory  *machine.Memory `json:"memory"`
			Path    []string        `json:"path"`
		}{*m, runStatus(run), snap.State, snap.Steps, snap.Vars, snap.Memory, snap.Path}
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false) // guards like n >= max stay readable, as in run --json
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	specNote := "unchanged since the run began"
	if path := run.AbsPath(m.SpecAbs); path != "" {
		if src, err := os.ReadFile(path); err != nil {
			specNote = "the file is gone"
		} else if runstore.SpecHash(src) != m.SpecSHA256 {
			specNote = "changed since the run began"
		}
	}
	fmt.Fprintf(w, "run:      %s\n", runAddress(c, run))
	fmt.Fprintf(w, "status:   %s\n", runStatus(run))
	fmt.Fprintf(w, "spec:     %s (%s; sha256 %.12s)\n", m.Spec, specNote, m.SpecSHA256)
	fmt.Fprintf(w, "state:    %s\n", snap.State)
	fmt.Fprintf(w, "steps:    %d\n", snap.Steps)
	fmt.Fprintf(w, "started:  %s (%s)\n", m.Start.Local().Format(time.RFC3339), runDuration(run))
	fmt.Fprintf(w, "tokens:   %d\n", m.Tokens)
	if m.Resumes > 0 {
		fmt.Fprintf(w, "resumed:  %d times\n", m.Resumes)
	}
	fmt.Fprintf(w, "dir:      %s\n", run.Dir)
	if m.Pause != nil {
		fmt.Fprintf(w, "waiting:  %s: %s\n", m.Pause.Kind, m.Pause.Prompt)
	}
	if m.Error != "" {
		fmt.Fprintf(w, "error:    %s\n", m.Error)
	}
	switch st := runStatus(run); st {
	case "crashed", string(machine.StatusInterrupted), string(machine.StatusFailed):
		fmt.Fprintf(w, "continue: %s\n", resumeHint(storeFrom(c), topRunID(c, run)))
	}
	fmt.Fprintln(w, "\ncontext:")
	names := make([]string, 0, len(snap.Vars))
	for k := range snap.Vars {
		names = append(names, k)
	}
	sort.Strings(names)
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	for _, k := range names {
		fmt.Fprintf(tw, "  %s\t= %s\n", k, shorten(compactJSON(snap.Vars[k]), 100))
	}
	tw.Flush()
	showMemory(w, snap.Memory)
	return nil
}

// showMemory prints L2 in full and the other slots in short.
func showMemory(w io.Writer, mem *machine.Memory) {
	l2 := mem.Items(agent.MemL2)
	if len(l2) > 0 {
		fmt.Fprintf(w, "\nL2 skill memory (%d):\n", len(l2))
	}
	for _, it := range l2 {
		var s string
		if json.Unmarshal(it, &s) != nil {
			s = string(it)
		}
		fmt.Fprintf(w, "  %s\n", s)
	}
	var other []string
	for _, k := range mem.Keys() {
		if k == agent.MemL2 {
			continue
		}
		var v json.RawMessage
		set, _ := mem.Get(k, &v)
		items := mem.Items(k)
		switch {
		case set && len(items) > 0:
			other = append(other, fmt.Sprintf("  %s = %s (+%d items)", k, shorten(string(v), 100), len(items)))
		case set:
			other = append(other, fmt.Sprintf("  %s = %s", k, shorten(string(v), 100)))
		default:
			other = append(other, fmt.Sprintf("  %s: %d items", k, len(items)))
		}
	}
	if len(other) > 0 {
		fmt.Fprintln(w, "\nmemory:")
		fmt.Fprintln(w, strings.Join(other, "\n"))
	}
}

func compactJSON(v any) string {
	b, err := runstore.Marshal(v) // no HTML escapes: "<b>" reads "<b>"
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func shorten(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func runsTraceAction(c *cli.Context) error {
	if c.String("temporal") != "" {
		if c.Bool("deltas") {
			return usageErrorf("--deltas prints a local run's journal; a Temporal run has none (its trace comes from the workflow's history): drop --deltas")
		}
		return showOnTemporal(c, true)
	}
	run, l, err := openRunArg(c)
	if err != nil {
		return err
	}
	w := c.App.Writer
	if c.Bool("deltas") {
		return run.CopyJournal(w, l)
	}
	var walk runstore.Walker // a step's maps whole (the log holds the keys a step changed)
	var values traceValues
	if c.Bool("json") {
		// Each step's variables whole, a grown list's JSON extended, not
		// encoded again (runstore.TraceEncoder).
		enc := runstore.NewTraceEncoder()
		bw := bufio.NewWriterSize(w, 64<<10)
		for _, e := range l.Entries {
			line, err := enc.Encode(e)
			if err != nil {
				return err
			}
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
		return bw.Flush()
	}
	t0 := run.Meta.Start
	var fork *forkInfo
	if b, err := os.ReadFile(filepath.Join(run.Dir, ForkFile)); err == nil {
		fork = new(forkInfo)
		if json.Unmarshal(b, fork) != nil || fork.From == "" {
			fork = nil
		}
		if len(l.Records) > 0 && l.Records[0].Start.Before(t0) {
			// A fork's first steps are copies of its source's, made before
			// the fork: offsets count from the first of them, not negative.
			t0 = l.Records[0].Start
		}
	}
	offset := func(t time.Time) string { return traceOffset(t0, t) }
	const row = "%-5s %-9s %-10s %s\n"
	fmt.Fprintf(w, row, "STEP", "AT", "TOOK", "TRANSITION")
	for _, e := range l.Entries {
		if e.Type == runstore.EntryStart && fork != nil && fork.Step > 0 {
			// Not "started in STATE": the fork's start marker stands where
			// the copied steps below end, and was written after them.
			fmt.Fprintf(w, row, "--", "", "", fmt.Sprintf("steps 1–%d are run %s's, copied by lppctl runs fork", fork.Step, fork.From))
			continue
		}
		if e.Type != runstore.EntryStep {
			fmt.Fprintf(w, row, "--", offset(e.At), "", markerText(e))
			continue
		}
		rec := walk.Next(e.Record)
		move := rec.From + " → " + rec.To
		via := viaText(rec)
		if rec.End {
			move, via = rec.From+" (final)", ""
		}
		if rec.Action != "" {
			move += "  (" + rec.Action + ")"
		}
		if via != "" {
			move += "  " + via
		}
		fmt.Fprintf(w, row, strconv.Itoa(rec.Seq), offset(rec.Start), rec.Duration.Round(time.Microsecond), move)
		var extra []string
		if rec.Error != "" {
			extra = append(extra, "error: "+rec.Error)
		}
		if rec.Warn != "" {
			extra = append(extra, "warning: "+rec.Warn)
		}
		if rec.Input != nil {
			extra = append(extra, "answer: "+rec.Input.Kind+" "+rec.Input.Text)
		}
		for _, n := range rec.Notes {
			extra = append(extra, n.String())
		}
		if len(rec.Vars) > 0 {
			names := make([]string, 0, len(rec.Vars))
			for k := range rec.Vars {
				names = append(names, k)
			}
			sort.Strings(names)
			parts := make([]string, len(names))
			for i, k := range names {
				keys, patched := rec.MapKeys[k]
				parts[i] = k + "=" + values.show(k, rec.Vars[k], keys, patched, 40)
			}
			extra = append(extra, "set "+strings.Join(parts, " "))
		}
		if len(rec.Memory) > 0 {
			parts := make([]string, len(rec.Memory))
			for i, op := range rec.Memory {
				parts[i] = op.Op + " " + op.Key
			}
			extra = append(extra, "memory: "+strings.Join(parts, ", "))
		}
		for _, x := range extra {
			fmt.Fprintf(w, row, "", "", "", "  "+shorten(x, 120))
		}
	}
	if runStatus(run) == "crashed" {
		fmt.Fprintf(w, row, "--", "", "", "crashed: the process stopped without a word (killed?); continue with: "+resumeHint(storeFrom(c), topRunID(c, run)))
	}
	return nil
}

// traceOffset renders t as an offset from the run's start: +1.5s, or -2s
// when the clock went back since the run began.
func traceOffset(t0, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := t.Sub(t0).Round(time.Millisecond)
	if d < 0 {
		return d.String()
	}
	return "+" + d.String()
}

func markerText(e *runstore.Entry) string {
	switch e.Type {
	case runstore.EntryStart:
		return "started in " + e.State
	case runstore.EntryResume:
		if e.Answer != nil {
			return fmt.Sprintf("resumed in %s with --%s %s", e.State, e.Answer.Kind, e.Answer.Text)
		}
		return "resumed in " + e.State
	case runstore.EntryPause:
		if e.Pause != nil && e.Pause.Kind == machine.PauseEvent {
			return fmt.Sprintf("paused in %s waiting for an event: %s", e.State, strings.Join(e.Pause.Options, ", "))
		}
		if e.Pause != nil {
			return fmt.Sprintf("paused in %s for %s", e.State, e.Pause.Kind)
		}
		return "paused in " + e.State
	case runstore.EntryInterrupt:
		if e.IsForkMark() {
			return e.Message + ", in " + e.State
		}
		return "interrupted in " + e.State
	case runstore.EntryFail:
		return "failed in " + e.State + ": " + shorten(e.Message, 100)
	}
	return e.Type
}

// runSpecAndPath returns, for lppctl export --run, the spec to draw (path, or
// the run's copy of its spec when path is "") and the states the run went through.
func runSpecAndPath(c *cli.Context, id, path string) (string, []string, error) {
	run, err := storeFrom(c).Open(id)
	if err != nil {
		return "", nil, unknownRunArg(id, err)
	}
	l, err := run.ReadJournal()
	if err != nil {
		return "", nil, err
	}
	snap, err := snapshot(run, l)
	if err != nil {
		return "", nil, err
	}
	if path == "" {
		path = run.Path(runstore.SpecFile)
	}
	return path, snap.Path, nil
}

// journalError is openRunArg's error for a run whose journal cannot be read.
type journalError struct {
	run *runstore.Run
	err error
}

func (e *journalError) Error() string { return e.err.Error() }
func (e *journalError) Unwrap() error { return e.err }

// showDamaged is runs show of a run whose journal cannot be read: what
// run.json says, and that the journal is damaged (exit 1).
func showDamaged(c *cli.Context, run *runstore.Run, err error) error {
	m := &run.Meta
	w := c.App.Writer
	if c.Bool("json") {
		out := struct {
			runstore.Meta
			Status  string `json:"status"`
			Journal string `json:"journal_error"`
		}{*m, "damaged", err.Error()}
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false) // guards like n >= max stay readable, as in run --json
		enc.SetIndent("", "  ")
		if eerr := enc.Encode(out); eerr != nil {
			return eerr
		}
	} else {
		fmt.Fprintf(w, "run:      %s\n", m.ID)
		fmt.Fprintf(w, "status:   damaged (run.json says %s, in %s after %s)\n", runStatus(run), m.State, countSteps(m.Steps))
		fmt.Fprintf(w, "spec:     %s\n", m.Spec)
		fmt.Fprintf(w, "dir:      %s\n", run.Dir)
	}
	return fmt.Errorf("run %s's journal is damaged, and resume refuses it: %w", m.ID, err)
}

// runAddress is the address the runs commands take for run: its ID, or for
// a child run its path from the top run (ID/children/NAME).
func runAddress(c *cli.Context, run *runstore.Run) string {
	store, err := filepath.Abs(storeFrom(c).Dir)
	if err != nil {
		return run.Meta.ID
	}
	dir, err := filepath.Abs(run.Dir)
	if err != nil {
		return run.Meta.ID
	}
	rel, err := filepath.Rel(store, dir)
	if err != nil || !filepath.IsLocal(rel) || !strings.Contains(filepath.ToSlash(rel), "/") {
		return run.Meta.ID
	}
	return filepath.ToSlash(rel)
}

// topRunID is the ID of the run that resume continues for run: its own, or
// for a child run its top run's (a child goes on when its parent does).
func topRunID(c *cli.Context, run *runstore.Run) string {
	top, _, _ := strings.Cut(runAddress(c, run), "/")
	return top
}

// tableCell is a text in one cell of the runs table: one holding a line
// break, a tab or another control character (a spec file named so) is
// written Go-quoted ("specs/a\nb.yaml"), so that it stays on its row and
// in its column.
func tableCell(s string) string {
	// A byte that is not UTF-8 is quoted too: 0xff is text/tabwriter's
	// escape character, which would leave the rows after it unaligned.
	if strings.IndexFunc(s, unicode.IsControl) >= 0 || !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	return s
}
