package ui

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// stepView is one row of a run's timeline.
type stepView struct {
	*machine.Record
	Tokens   int
	Calls    []logLine     // the LLM calls made during the step
	Tools    []logLine     // the tool calls, with the gateway's verdict
	Messages []message     // what the step added to memory (the model's messages among them)
	Vars     template.HTML // the context variables it changed
	Child    string        // the page of the child machine the step ran (spec.run)
}

// message is one memory change of a step, shown expandable.
type message struct {
	Key, Op, Role string
	Text          template.HTML
}

type kv struct {
	Key   string
	Value template.HTML
}

// endRow is how a run that did not complete stopped: the timeline's last
// row (failed, interrupted, crashed, damaged) with its error.
type endRow struct {
	Status, State, Message, Hint string
}

type runData struct {
	page
	Run         runRow
	Unread      bool   // the journal cannot be read: no steps or context to show
	Base        string // the run page's path: /runs/ID, or /temporal/ID for a source's run
	ResumeFlags string // what lppctl resume needs besides the ID ("--temporal HOST:PORT")
	Dir         string
	Spec        string
	Diagram     diagram
	Steps       []stepView
	PageNo      int // 1-based
	Pages       int
	Total       int
	End         *endRow // how the run stopped, on the timeline's last page
	At          int     // the step whose context and memory are shown (0..Total)
	AtLast      bool    // At is the run's last step: the context now
	Context     []kv
	L2          []string
	Memory      []kv
	Pause       *machine.PauseError
	PauseStep   int
	Plan        *planTable
	Skills      *skillsDiff
	Notice      *notice
	Actions     *runActions // cancel, resume or retry (a store's run)
	Parent      string      // a child machine's parent run
	ParentHref  string
	SpecHref    string // the spec's page, when it is under the root
	SpecName    string // the spec's name
	ForkOf      string // the run this one was forked from
	ForkStep    int
	CanFork     bool // the slider offers Fork from step N
	// EventForms are the events a waiting run accepts, one form each, with
	// a field per payload field of the spec's declaration.
	EventForms []eventForm
	// After a refused decision: why, what was typed (kept in the forms)
	// and the fields' errors.
	Refusal     string
	Typed       url.Values
	FieldErrors map[string]string
	AnswerText  string
	RawPayload  string
	// ForceKey, after a decision refused because the spec changed since
	// the run began, names that refusal: each form then offers to take
	// the decision with the spec as it is now (--force).
	ForceKey string
}

// eventForm is the form that delivers one event.
type eventForm struct {
	Name   string
	Fields []startField
}

// eventForms builds the forms of the events a pause accepts from the
// spec's declarations (types, enums, defaults, docs), else from the
// pause's list. A field's default is shown, not filled in: a field left
// empty is left out of the payload, and the event carries its default.
func eventForms(spec *mspec.Spec, p *machine.PauseError) []eventForm {
	var out []eventForm
	for _, name := range p.Options {
		f := eventForm{Name: name}
		for _, pf := range payloadFields(spec, p, name) {
			sf := fieldOf(&pf.Var, pf.Required, "")
			sf.Nullable, sf.Text = pf.Nullable, isText(pf) && len(pf.Enum) == 0
			if !pf.Required {
				sf.Default = payloadDefault(pf)
			}
			sf.Options = payloadOptions(pf, sf)
			f.Fields = append(f.Fields, sf)
		}
		out = append(out, f)
	}
	return out
}

// payloadDefault shows what an optional payload field left out carries:
// its default, its type's zero value, or null (nullable, any); a string
// quoted, so that "" shows.
func payloadDefault(pf *mspec.PayloadField) string {
	def := pf.Default
	if def == nil && !pf.Nullable {
		def = pf.Type.Zero()
	}
	if s, ok := def.(string); ok {
		return strconv.Quote(s)
	}
	if def == nil {
		return "null"
	}
	return formValue(def)
}

func specEventDecl(spec *mspec.Spec, name string) *mspec.EventDecl {
	if spec == nil {
		return nil
	}
	return spec.EventDecl(name)
}

// setTyped puts what was typed back into the forms, with the fields' errors.
func (d *runData) setTyped() {
	d.AnswerText, d.RawPayload = d.Typed.Get("text"), d.Typed.Get("payload")
	for i := range d.EventForms {
		ef := &d.EventForms[i]
		if ef.Name != d.Typed.Get("event") {
			continue
		}
		for j := range ef.Fields {
			f := &ef.Fields[j]
			if vals, ok := d.Typed["p."+f.Name]; ok && len(vals) > 0 {
				f.Value = vals[0]
				for k := range f.Options {
					f.Options[k].Selected = f.Options[k].Value == f.Value
				}
			}
			f.Empty = d.Typed.Get("e."+f.Name) != ""
			f.Error = d.FieldErrors[f.Name]
		}
	}
}

// runView is what a run page is made of, whichever engine ran the run:
// the store's journal, or a RunSource's queries.
type runView struct {
	row         runRow
	dir         string // the run's folder, shown ("" for none)
	specPath    string
	specSrc     []byte
	records     []*machine.Record
	start       map[string]any  // the context the run started with
	vars        map[string]any  // the context now (nil: folded from the records)
	memory      *machine.Memory // the memory now (nil: folded from the records)
	pause       *machine.PauseError
	pauseStep   int
	logDir      string // where llm.jsonl and audit.jsonl are ("" for nowhere)
	skills      *skillsDiff
	base, live  string
	resumeFlags string
	end         *runstore.Entry // the journal's last marker when it is a fail or an interrupt
	specAbs     string          // the spec file the run started from ("" when unknown)
	child       bool            // a child machine's run (spec.run): no actions of its own
	forkOf      string          // the run this one was forked from (lppctl runs fork), "" for none
	forkStep    int             // after which of its steps
	parent      string          // a child's parent run, as shown
	parentHref  string          // its page
	unread      bool            // the journal cannot be read (damaged): no steps, no context
}

// specHref is the Spec page of the file abs when it is under the root.
func (s *Server) specHref(abs string) string {
	if abs == "" {
		return ""
	}
	rel, err := filepath.Rel(s.opts.Root, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return ""
	}
	return "/spec?" + url.Values{"path": {filepath.ToSlash(rel)}}.Encode()
}

// pageParam reads ?page=N (1-based; 0 or missing: the last page).
func pageParam(r *http.Request) int {
	n, _ := strconv.Atoi(r.URL.Query().Get("page"))
	return max(n, 0)
}

func (s *Server) runPage(w http.ResponseWriter, r *http.Request) {
	v, status, err := s.storeRun(r.PathValue("id"))
	if err != nil {
		s.fail(w, status, err)
		return
	}
	s.showRun(w, r, v)
}

// showRun renders a run page, with the decision's outcome (?n=) once.
func (s *Server) showRun(w http.ResponseWriter, r *http.Request, v *runView) {
	d, err := s.buildRun(r, v, pageParam(r))
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	if key := r.URL.Query().Get("n"); key != "" {
		s.mu.Lock()
		if n, ok := s.notices[key]; ok {
			d.Notice = &n
			delete(s.notices, key)
		}
		s.mu.Unlock()
	}
	s.render(w, http.StatusOK, "run.html", d)
}

// storeRun reads a run of the store: its journal is the timeline.
func (s *Server) storeRun(id string) (*runView, int, error) {
	return s.runIn(s.store, id, "", "")
}

// childPage is the page of a child machine (spec.run) of a store's run:
// /runs/ID/children/STATE-SEQ, and so on for a child's children. Its
// journal is in the parent's folder, children/STATE-SEQ.
func (s *Server) childPage(w http.ResponseWriter, r *http.Request) {
	id, rest := r.PathValue("id"), r.PathValue("path")
	parts := strings.Split(rest, "/children/")
	for _, p := range parts {
		if p == "" || !filepath.IsLocal(p) || strings.ContainsAny(p, `/\`) {
			s.failf(w, http.StatusNotFound, "cannot show child %q of run %s: no such child", rest, id)
			return
		}
	}
	parent, err := openRun(s.store, id)
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, runstore.ErrNotFound) {
			status = http.StatusNotFound
		}
		s.fail(w, status, err)
		return
	}
	dir, base := parent.Dir, "/runs/"+url.PathEscape(id)
	for _, p := range parts[:len(parts)-1] {
		dir, base = filepath.Join(dir, childrenDir, p), base+"/children/"+url.PathEscape(p)
	}
	child := parts[len(parts)-1]
	v, status, err := s.runIn(runstore.New(filepath.Join(dir, childrenDir)), child, base+"/children/"+url.PathEscape(child), id)
	if err != nil {
		s.fail(w, status, err)
		return
	}
	v.pause = nil // answered through the top run (lppctl resume ID)
	v.parent = strings.Join(append([]string{id}, parts[:len(parts)-1]...), "/")
	v.parentHref = base
	v.row.ID = v.parent + "/" + child
	s.showRun(w, r, v)
}

// openStatus is the HTTP status of store.Open's error: an unknown run is
// 404, a prefix of several runs 400 (the CLI's usage error, exit 2).
func openStatus(err error) int {
	switch {
	case errors.Is(err, runstore.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, runstore.ErrAmbiguous):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// journalsKept is how many runs' journals the server keeps read (their
// Tails: a page of a run shown before reads only the steps it made since).
const journalsKept = 8

// childrenDir is the folder of a run's directory that holds its spec.run
// children's runs (actions' own name for it).
const childrenDir = "children"

// runIn reads run id of store; href ("" for the store's own) is its page,
// for a child machine's run.
func (s *Server) runIn(store *runstore.Store, id, href, top string) (*runView, int, error) {
	run, err := openRun(store, id)
	if err != nil {
		return nil, openStatus(err), err
	}
	// The page's journal, read once for the row (a running run's steps and
	// state) and the timeline: its Tail reads only what the run appended
	// since the page before.
	l, err := s.journals.get(run.Dir, run.Tail).Read()
	row := summarizeWith(run, func() (*runstore.Log, error) { return l, err }, (*runstore.Run).CheckJournal)
	if err != nil {
		// A journal that cannot be read: the page says so (as runs show
		// does) with what run.json says, and shows no steps.
		row.Status, row.Error = "damaged", cmp.Or(row.Error, err.Error())
		l = &runstore.Log{}
	}
	unread := err != nil
	src, _ := run.SpecCopy()
	logDir, live := run.Dir, "/events?run="+url.QueryEscape(row.ID)
	if href != "" { // a child: its LLM and tool calls are in the top run's logs; its stream is the top run's
		row.Href, logDir = href, ""
		live = "/events?run=" + url.QueryEscape(top)
	}
	v := &runView{
		row: row, dir: run.Dir, specPath: run.Path(runstore.SpecFile), specSrc: src, records: l.Records,
		start: run.Meta.Vars, logDir: logDir, base: row.Href, live: live, child: href != "", unread: unread,
	}
	v.specAbs = specOrigin(run.Dir, run.Meta.SpecAbs)
	if b, err := os.ReadFile(filepath.Join(run.Dir, "fork.json")); err == nil {
		var fi struct {
			From string `json:"from"`
			Step int    `json:"step"`
		}
		if json.Unmarshal(b, &fi) == nil && fi.From != "" {
			v.forkOf, v.forkStep = fi.From, fi.Step
		}
	}
	if last := l.Last(); last != nil && (last.Type == runstore.EntryFail || last.Type == runstore.EntryInterrupt) {
		v.end = last
	}
	// The decision the run waits for: the journal's pause, while no step
	// was committed after it.
	if row.Status == string(machine.StatusPaused) {
		v.pause = l.WaitingFor()
		if v.pause == nil {
			v.pause = run.Meta.Pause
		}
		v.pauseStep = l.Steps()
	}
	v.skills = skillsEntries(run, row)
	return v, http.StatusOK, nil
}

// buildRun makes a run page; the timeline holds one page, and the
// context and memory are those after step ?at=N (default: the last).
func (s *Server) buildRun(r *http.Request, v *runView, pageNo int) (*runData, error) {
	row := v.row
	var spec *mspec.Spec
	if v.specSrc != nil {
		spec = runSpec(v.specPath, v.specSrc, v.specAbs)
	}
	l := &runstore.Log{Records: v.records}
	// The journal folded (the context and memory now, the walk to the
	// timeline's page) as far as the page before folded it, and on from
	// there: a live run's page folds only the steps made since.
	fold := s.foldOf(v, spec)
	defer fold.mu.Unlock()
	snap, err := fold.snapshot(l.Records)
	if err != nil {
		return nil, fmt.Errorf("cannot rebuild run %s: %w", row.ID, err)
	}
	if v.vars != nil || v.memory != nil { // the fold's own: not changed
		cp := *snap
		snap = &cp
	}
	if v.vars != nil {
		snap.Vars = v.vars
	}
	if v.memory != nil {
		snap.Memory = v.memory
	}
	d := &runData{
		page: page{Title: "Run " + row.ID, Nav: "runs", Live: v.live, RunID: row.ID},
		Run:  row, Unread: v.unread, Base: v.base, ResumeFlags: v.resumeFlags, Dir: v.dir, Spec: string(v.specSrc), Total: len(l.Records),
	}
	current := snap.State
	if snap.Done {
		current = ""
	}
	if v.unread { // where run.json says the run stands
		current = row.State
	}
	d.Diagram = s.drawRun(r.Context(), spec, snap.Path, current, stoppedBadly(row.Status))

	// One page of the timeline. Pages are cut from the newest step back,
	// so the last page (the one a run opens on) is full; the first may be
	// short.
	size := s.opts.PageSize
	n := len(l.Records)
	d.Pages = max(1, (n+size-1)/size)
	d.PageNo = pageNo
	if d.PageNo == 0 || d.PageNo > d.Pages {
		d.PageNo = d.Pages
	}
	hi := n - (d.Pages-d.PageNo)*size
	recs := l.Records[max(0, hi-size):max(0, hi)]
	var calls, tools []logLine
	if len(recs) > 0 && v.logDir != "" {
		calls, tools = readLog(filepath.Join(v.logDir, runstore.LLMFile), false), readLog(filepath.Join(v.logDir, runstore.AuditFile), true)
	}
	// A step that changed keys of a map holds only those (Log.Records):
	// the walk gives each its maps whole, as they were after it, shown
	// before the next step changes them.
	walk, texts := fold.walkTo(l.Records, max(0, hi-size)) // texts: the string variables as of the step before (showStepVars)
	for _, rec := range recs {
		rec = walk.Next(rec)
		sv := stepView{Record: rec}
		end := rec.Start.Add(rec.Duration)
		sv.Calls, sv.Tools = within(calls, rec.Start, end), within(tools, rec.Start, end)
		for _, c := range sv.Calls {
			sv.Tokens += c.Tokens
		}
		sv.Messages = messages(rec.Memory)
		if rec.Action == "spec.run" && v.dir != "" {
			child := fmt.Sprintf("%s-%d", rec.From, rec.Seq)
			if _, err := os.Stat(filepath.Join(v.dir, childrenDir, child, runstore.JournalFile)); err == nil {
				sv.Child = v.base + "/children/" + url.PathEscape(child)
			}
		}
		if len(rec.Vars) > 0 {
			sv.Vars = showStepVars(rec, texts)
			keepTexts(texts, rec)
		}
		d.Steps = append(d.Steps, sv)
	}
	var shown []*logLine
	for i := range d.Steps {
		for j := range d.Steps[i].Calls {
			shown = append(shown, &d.Steps[i].Calls[j])
		}
	}
	s.resolveMessages(v.logDir, shown)
	if d.PageNo == d.Pages {
		d.End = endOf(row, v.end)
	}

	// Context and memory, after step ?at=N.
	d.At, d.AtLast = n, true
	if at, err := strconv.Atoi(r.URL.Query().Get("at")); err == nil && at >= 0 && at < n {
		past, err := runstore.Fold(spec, v.start, &runstore.Log{Records: l.Records[:at]})
		if err != nil {
			return nil, fmt.Errorf("cannot rebuild run %s at step %d: %w", row.ID, at, err)
		}
		snap, d.At, d.AtLast = past, at, false
	}
	names := make([]string, 0, len(snap.Vars))
	for k := range snap.Vars {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		d.Context = append(d.Context, kv{k, showAny(snap.Vars[k])})
	}
	for _, it := range snap.Memory.Items("l2") {
		d.L2 = append(d.L2, textOf(it))
	}
	for _, k := range snap.Memory.Keys() {
		if k == "l2" {
			continue
		}
		var mv json.RawMessage
		set, _ := snap.Memory.Get(k, &mv)
		items := snap.Memory.Items(k)
		var all []json.RawMessage
		if set {
			all = append(all, mv)
		}
		all = append(all, items...)
		if len(all) == 1 {
			d.Memory = append(d.Memory, kv{k, showJSON(all[0])})
			continue
		}
		d.Memory = append(d.Memory, kv{k, showAny(rawItems(all))}) // only the items shown are decoded
	}

	d.Pause, d.PauseStep = v.pause, v.pauseStep
	if d.Pause != nil && d.Pause.Kind == "approval" {
		d.Plan = planOf(snap.Memory)
	}
	if d.Pause != nil && d.Pause.Kind == machine.PauseEvent {
		d.EventForms = eventForms(spec, d.Pause)
	}
	d.Skills = v.skills
	if d.Skills != nil && len(d.Skills.Lines) == 0 && !writesSkills(spec) {
		d.Skills = nil // a run whose spec never writes skills.md: nothing to show
	}
	if d.Skills != nil {
		if rel, err := filepath.Rel(s.opts.Root, d.Skills.File); err == nil && filepath.IsLocal(rel) {
			d.Skills.File = filepath.ToSlash(rel)
		}
	}
	if !v.child {
		d.Actions = s.actionsFor(row)
	}
	d.Parent, d.ParentHref = v.parent, v.parentHref
	d.ForkOf, d.ForkStep = v.forkOf, v.forkStep
	if spec != nil {
		d.SpecName = spec.Name
	}
	d.CanFork = !v.child && v.row.Engine == "" && s.opts.Exe != "" && v.dir != ""
	d.SpecHref = s.specHref(v.specAbs)
	return d, nil
}

// writesSkills tells whether a spec runs an action that writes its
// skill's skills.md.
func writesSkills(spec *mspec.Spec) bool {
	if spec == nil {
		return false
	}
	for _, st := range spec.States {
		switch st.Do {
		case "human.feedback", "llm.planner", "memory.commit_step", "skill.record_failure", "skill.teacher":
			return true
		}
	}
	return false
}

// stoppedBadly tells the statuses whose current state the diagram shows as
// failed rather than as where the run stands.
func stoppedBadly(status string) bool {
	return status == string(machine.StatusFailed) || status == "crashed" || status == "damaged"
}

// endOf is the timeline's last row for a run that did not complete: what
// stopped it, from the journal's last marker or the run's summary.
func endOf(row runRow, last *runstore.Entry) *endRow {
	e := &endRow{Status: row.Status, State: row.State, Message: row.Error}
	if last != nil && e.Message == "" {
		e.Message = last.Message
	}
	switch row.Status {
	case string(machine.StatusFailed):
		e.Hint = "lppctl resume " + row.ID + " retries the state (after fixing the cause)"
	case string(machine.StatusInterrupted):
		e.Message = cmp.Or(e.Message, "stopped at a clean point")
		e.Hint = "lppctl resume " + row.ID + " continues it"
	case "crashed":
		e.Message = cmp.Or(e.Message, "the process working on the run died without a clean stop")
		e.Hint = "lppctl resume " + row.ID + " continues it"
	case "damaged":
	default:
		return nil
	}
	return e
}

// messages turns a step's memory changes into rows: a chat message
// ({"role", "text"|"content"}) shows its role and text, anything else its JSON.
func messages(ops []machine.MemOp) []message {
	var out []message
	for _, op := range ops {
		m := message{Key: op.Key, Op: op.Op}
		var obj map[string]any
		if json.Unmarshal(op.Value, &obj) == nil && obj != nil {
			m.Role = str(obj["role"])
			if t := firstStr(obj, "text", "content"); t != "" {
				m.Text = showText(t)
			}
		}
		if m.Text == "" {
			m.Text = showJSON(op.Value)
		}
		out = append(out, m)
	}
	return out
}

// textOf shows a JSON value: a string as itself, anything else as JSON.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// planTable is a plan (memory slot "plan": {goal, steps: [...]}) as a table
// whose columns are the steps' fields.
type planTable struct {
	Goal    string
	Columns []string
	Rows    [][]string
}

func planOf(mem *machine.Memory) *planTable {
	var plan struct {
		Goal  string           `json:"goal"`
		Steps []map[string]any `json:"steps"`
	}
	if set, err := mem.Get("plan", &plan); !set || err != nil || len(plan.Steps) == 0 {
		return nil
	}
	t := &planTable{Goal: plan.Goal}
	for _, st := range plan.Steps {
		for k := range st {
			if !slices.Contains(t.Columns, k) {
				t.Columns = append(t.Columns, k)
			}
		}
	}
	order := []string{"index", "optimizer_instruction", "evaluator_instruction", "tools_hint", "depends_on"}
	rank := func(c string) int {
		if i := slices.Index(order, c); i >= 0 {
			return i
		}
		return len(order)
	}
	sort.SliceStable(t.Columns, func(i, j int) bool {
		if a, b := rank(t.Columns[i]), rank(t.Columns[j]); a != b {
			return a < b
		}
		return t.Columns[i] < t.Columns[j]
	})
	for _, st := range plan.Steps {
		row := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			switch v := st[c].(type) {
			case nil:
			case string:
				row[i] = v
			case []any:
				parts := make([]string, len(v))
				for k, x := range v {
					parts[k] = fmt.Sprint(x)
				}
				row[i] = strings.Join(parts, ", ")
			default:
				b, _ := json.Marshal(v)
				row[i] = strings.Trim(string(b), "[]")
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
