package ui

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

// runRow is one run as the runs page lists it (the columns of lppctl runs).
type runRow struct {
	ID       string
	Status   string
	Spec     string
	State    string
	Start    time.Time
	Duration time.Duration
	Steps    int
	Tokens   int
	Error    string
	Pause    *machine.PauseError
	Engine   string // "" for the store's runs; the RunSource's name for its runs
	Href     string // the run's page
}

// statuses a run may be listed with, for the filter.
var statuses = []string{"running", "paused", "completed", "failed", "interrupted", "cancelled", "crashed", "damaged"}

// summarize reads what the runs page shows of a run. As in lppctl runs: a
// run marked running that no process works on is "crashed"; a run whose
// journal is damaged is "damaged"; a running or crashed run's steps and
// state come from its journal (run.json may lag), read by ScanJournal.
func summarize(r *runstore.Run) runRow {
	return summarizeWith(r, func() (*runstore.Log, error) { return r.ScanJournal(nil) }, (*runstore.Run).CheckJournal)
}

// listed is summarize for a list of runs: a journal checked before and not
// changed since is not read again (journalChecks).
func (s *Server) listed(r *runstore.Run) runRow {
	return summarizeWith(r, func() (*runstore.Log, error) { return r.ScanJournal(nil) }, s.journalChecks.check)
}

// summarizeWith is summarize reading a running run's journal with journal,
// and checking it with check (Run.CheckJournal).
func summarizeWith(r *runstore.Run, journal func() (*runstore.Log, error), check func(*runstore.Run) error) runRow {
	m := &r.Meta
	row := runRow{ID: m.ID, Status: string(m.Status), Spec: m.Spec, State: m.State, Start: m.Start, Steps: m.Steps, Error: m.Error, Pause: m.Pause, Href: "/runs/" + url.PathEscape(m.ID)}
	if m.Status == "unreadable" {
		return row
	}
	working := m.Status == machine.StatusRunning && r.Working()
	if m.Status == machine.StatusRunning && !working {
		row.Status = "crashed"
	}
	damage := check(r)
	end := m.Updated
	if m.Status == machine.StatusRunning && damage == nil {
		l, err := journal()
		damage = err
		if last := l.LastStep(); err == nil && last != nil {
			row.Steps, row.State = l.Steps(), last.To
			if last.End || last.To == "" {
				row.State = last.From
			}
			if e := last.Start.Add(last.Duration); e.After(end) {
				end = e
			}
		}
	}
	if damage != nil {
		row.Status, row.Error = "damaged", damage.Error()
	}
	if m.End != nil {
		end = *m.End
	}
	if working {
		end = time.Now()
	}
	if end.After(m.Start) {
		row.Duration = end.Sub(m.Start)
	}
	row.Tokens = r.Tokens()
	return row
}

type runsData struct {
	page
	Runs        []runRow
	Filter      string
	Query       string // ?q=: text searched in the ID, spec, state, status, error and journal
	Statuses    []string
	Counts      map[string]int
	PageNo      int // 1-based: page 1 holds the newest runs
	Pages       int
	Total       int    // the runs found (before paging)
	PrevHref    string // the pages' links, keeping the search
	NextHref    string
	Source      string // the RunSource's name ("" without one)
	SourceError string // why its runs are not listed
}

// runsPage lists the store's runs and the RunSource's, newest first.
func (s *Server) runsPage(w http.ResponseWriter, r *http.Request) {
	runs, err := s.store.List()
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	filter, q := r.URL.Query().Get("status"), strings.TrimSpace(r.URL.Query().Get("q"))
	live := "/events"
	if filter != "" || q != "" {
		live += "?" + r.URL.RawQuery
	}
	d := runsData{page: page{Title: "Runs", Nav: "runs", Live: live}, Filter: filter, Query: q, Statuses: statuses, Counts: map[string]int{}}
	byID := map[string]*runstore.Run{}
	var rows []runRow
	for _, run := range slices.Backward(runs) { // newest first
		rows = append(rows, s.listed(run))
		byID[run.Meta.ID] = run
	}
	if s.opts.Source != nil {
		remote, msg := s.remoteRuns(r.Context())
		d.Source, d.SourceError = s.opts.Source.Name(), msg
		rows = append(rows, remote...)
		slices.SortStableFunc(rows, func(a, b runRow) int { return b.Start.Compare(a.Start) })
	}
	for _, row := range rows {
		if q != "" && !s.matchesRun(row, byID[row.ID], q) {
			continue
		}
		d.Counts[row.Status]++
		if filter == "" || row.Status == filter {
			d.Runs = append(d.Runs, row)
		}
	}
	// Pages of runsPerPage, the newest first.
	d.Total = len(d.Runs)
	d.Pages = max(1, (d.Total+runsPerPage-1)/runsPerPage)
	d.PageNo = min(max(pageParam(r), 1), d.Pages)
	d.Runs = d.Runs[(d.PageNo-1)*runsPerPage : min(d.PageNo*runsPerPage, d.Total)]
	link := func(n int) string {
		v := r.URL.Query()
		v.Set("page", strconv.Itoa(n))
		return "/?" + v.Encode()
	}
	if d.PageNo > 1 {
		d.PrevHref = link(d.PageNo - 1)
	}
	if d.PageNo < d.Pages {
		d.NextHref = link(d.PageNo + 1)
	}
	s.render(w, http.StatusOK, "runs.html", d)
}

// matchesRun is matches for a run of the store (nil for a source's), which
// also matches by the context values it started with and never wrote to
// its journal: its spec's defaults that no --var replaced.
func (s *Server) matchesRun(row runRow, run *runstore.Run, q string) bool {
	if run == nil {
		return matches(row, "", q)
	}
	if matches(row, run.Dir, q) {
		return true
	}
	lq := strings.ToLower(q)
	for name, text := range s.specDefaults(run) {
		if _, given := run.Meta.Vars[name]; !given && strings.Contains(text, lq) {
			return true
		}
	}
	return false
}

// specDefaults returns the context defaults of a run's copy of its spec,
// each as the Start form writes it, lower-cased; cached by the spec's hash.
func (s *Server) specDefaults(run *runstore.Run) map[string]string {
	key := run.Meta.SpecSHA256
	s.mu.Lock()
	got, ok := s.defaults[key]
	s.mu.Unlock()
	if ok && key != "" {
		return got
	}
	src, err := run.SpecCopy()
	if err != nil {
		return nil
	}
	spec := runSpec(run.Path(runstore.SpecFile), src, specOrigin(run.Dir, run.Meta.SpecAbs))
	if spec == nil {
		return nil
	}
	got = make(map[string]string, len(spec.Context))
	for _, v := range spec.Context {
		got[v.Name] = strings.ToLower(formValue(v.Default))
	}
	if key == "" {
		return got
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.defaults) > 1000 { // specs of a long-lived store: start again rather than grow
		clear(s.defaults)
	}
	s.defaults[key] = got
	return got
}

// runsPerPage is how many runs the Runs page lists at once.
const runsPerPage = 100

// matches tells whether a run matches the search text q (case-insensitive):
// in its ID, spec, state, status or error, else anywhere in its journal
// (the context's values, the model's replies, the memory), when dir is
// the store's folder of the run.
func matches(row runRow, dir, q string) bool {
	lq := strings.ToLower(q)
	for _, f := range []string{row.ID, row.Spec, row.State, row.Status, row.Error} {
		if strings.Contains(strings.ToLower(f), lq) {
			return true
		}
	}
	if row.Pause != nil && strings.Contains(strings.ToLower(row.Pause.Prompt), lq) {
		return true
	}
	if dir == "" {
		return false
	}
	b, err := os.ReadFile(filepath.Join(dir, runstore.JournalFile))
	if err != nil {
		return false
	}
	b = bytes.ToLower(b)
	// The journal holds strings as JSON: look for the text as written there.
	forms := []string{lq}
	if enc, err := json.Marshal(lq); err == nil {
		forms = append(forms, string(enc[1:len(enc)-1]))
	}
	forms = append(forms, strings.Trim(quote(lq), `"`))
	for _, f := range forms {
		if bytes.Contains(b, []byte(f)) {
			return true
		}
	}
	return false
}
