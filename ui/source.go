package ui

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"path/filepath"
	"time"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

// RunSource is where runs live besides the run store: lppctl ui --temporal
// wires a Temporal server's runs (the visibility list, the progress and
// memory queries, the resume Update). The ui package knows nothing of the
// engine behind it. Its runs' pages are /temporal/ID.
type RunSource interface {
	// Name labels the source's runs on the pages ("Temporal").
	Name() string
	// ResumeFlags are the flags lppctl resume needs to reach its runs
	// ("--temporal HOST:PORT"), for the pages' hints.
	ResumeFlags() string
	// List returns its runs' summaries (no records, spec or memory).
	List(ctx context.Context) ([]RemoteRun, error)
	// Summary returns one run's summary; an error wrapping
	// runstore.ErrNotFound for a run it does not know.
	Summary(ctx context.Context, id string) (*RemoteRun, error)
	// Run returns one run with its spec, records, context and memory; an
	// error wrapping runstore.ErrNotFound for a run it does not know.
	Run(ctx context.Context, id string) (*RemoteRun, error)
	// Decide carries out a decision for one of its runs, as Options.Decide
	// does for the store's (lppctl resume --temporal): a *Refusal when it
	// was refused.
	Decide(ctx context.Context, d Decision) (string, error)
}

// RemoteRun is a run of a RunSource. Summaries fill the first group only.
type RemoteRun struct {
	ID     string
	Status string // running, paused, completed, failed, cancelled
	Spec   string // the spec's name
	State  string
	Start  time.Time
	End    *time.Time
	Steps  int
	Pause  *machine.PauseError // while paused
	Error  string
	// LogDir holds the run's llm.jsonl and audit.jsonl when they are on
	// this machine (a worker on the same project root), else "".
	LogDir string

	SpecPath string            // the spec's path as the run started it
	SpecSrc  []byte            // the spec the run started with
	Records  []*machine.Record // every step
	Vars     map[string]any    // the context now (nil: folded from the records)
	Memory   *machine.Memory   // the memory now (nil: folded from the records)
	SkillDir string            // the skill folder whose skills.md the run writes ("" for none)
}

// remotePath is where a source's run's page is.
func remotePath(id string) string { return "/temporal/" + url.PathEscape(id) }

// remoteRow is a source's run as the runs page lists it.
func remoteRow(src RunSource, r *RemoteRun) runRow {
	row := runRow{ID: r.ID, Status: r.Status, Spec: r.Spec, State: r.State, Start: r.Start, Steps: r.Steps, Error: r.Error, Pause: r.Pause, Engine: src.Name(), Href: remotePath(r.ID)}
	end := time.Now()
	if r.End != nil {
		end = *r.End
	}
	if !r.Start.IsZero() && end.After(r.Start) {
		row.Duration = end.Sub(r.Start)
	}
	if r.LogDir != "" {
		for _, l := range readLog(filepath.Join(r.LogDir, runstore.LLMFile), false) {
			row.Tokens += l.Tokens
		}
	}
	return row
}

// remoteRuns lists the source's runs for the runs page; the error is shown
// on the page above the store's runs, which are listed all the same.
func (s *Server) remoteRuns(ctx context.Context) ([]runRow, string) {
	src := s.opts.Source
	if src == nil {
		return nil, ""
	}
	runs, err := src.List(ctx)
	if err != nil {
		return nil, err.Error()
	}
	rows := make([]runRow, 0, len(runs))
	for i := range runs {
		rows = append(rows, remoteRow(src, &runs[i]))
	}
	return rows, ""
}

// remoteRunPage is the run page of a source's run.
func (s *Server) remoteRunPage(w http.ResponseWriter, r *http.Request) {
	if s.opts.Source == nil {
		s.failf(w, http.StatusNotFound, "cannot show run %s: lppctl ui was started without --temporal", r.PathValue("id"))
		return
	}
	view, status, err := s.remoteView(r.PathValue("id"))
	if err != nil {
		s.fail(w, status, err)
		return
	}
	s.showRun(w, r, view)
}

// remoteView reads a source's run for its page.
func (s *Server) remoteView(id string) (*runView, int, error) {
	src := s.opts.Source
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rr, err := src.Run(ctx, id)
	if err != nil {
		status := http.StatusBadGateway
		if errors.Is(err, runstore.ErrNotFound) {
			status = http.StatusNotFound
		}
		return nil, status, err
	}
	row := remoteRow(src, rr)
	view := &runView{
		row: row, specPath: rr.SpecPath, specSrc: rr.SpecSrc, records: rr.Records,
		vars: rr.Vars, memory: rr.Memory, logDir: rr.LogDir, base: row.Href,
		live: "/events?" + url.Values{"temporal": {rr.ID}}.Encode(), resumeFlags: src.ResumeFlags(),
	}
	if rr.Status == string(machine.StatusPaused) && rr.Pause != nil {
		view.pause, view.pauseStep = rr.Pause, rr.Steps
	}
	if rr.SkillDir != "" {
		view.skills = skillsIn(rr.SkillDir, rr.ID)
	}
	return view, http.StatusOK, nil
}

// remoteDecide carries out a decision for a source's run (its form is the
// store's runs' form, posted to /temporal/ID/decide).
func (s *Server) remoteDecide(w http.ResponseWriter, r *http.Request) {
	if s.opts.Source == nil {
		s.failf(w, http.StatusNotFound, "cannot decide for run %s: lppctl ui was started without --temporal", r.PathValue("id"))
		return
	}
	s.decideWith(w, r, s.opts.Source.Decide, remotePath(r.PathValue("id")), s.remoteView)
}

// remoteFingerprint sums up where a source's runs stand (one run's, or all
// of them): it changes when a run moves, pauses or ends.
func (s *Server) remoteFingerprint(ctx context.Context, id string) string {
	src := s.opts.Source
	if src == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	h := fnv.New64a()
	var runs []RemoteRun
	var err error
	if id != "" {
		var r *RemoteRun
		if r, err = src.Summary(ctx, id); err == nil {
			runs = []RemoteRun{*r}
		}
	} else {
		runs, err = src.List(ctx)
	}
	if err != nil {
		fmt.Fprintf(h, "error: %v", err)
	}
	for _, r := range runs {
		fmt.Fprintf(h, "%s:%s:%s:%d;", r.ID, r.Status, r.State, r.Steps)
	}
	return fmt.Sprintf("-%x", h.Sum64())
}
