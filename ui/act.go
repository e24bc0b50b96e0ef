package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

// Acting on a run (cancel, resume, retry) and starting one are lppctl
// commands that the UI starts as their own processes (Launch), never
// inside the server: the same commands, their own rules and locks, and a
// UI that stops or restarts touches no run. Each button shows its command.

// cli is a command as the page shows it, and the arguments the UI runs it
// with (the store's folder named, Temporal left out, no questions asked).
type cli struct {
	Show string   // "lppctl runs cancel ID"
	Args []string // after "lppctl"
}

// storeFlag is what a shown command needs to find the store: nothing when
// it is the root's default one.
func (s *Server) storeFlag() string {
	if filepath.Clean(s.opts.RunDir) == filepath.Join(s.opts.Root, runstore.DefaultDir) {
		return ""
	}
	return " --run-dir " + shellQuote(s.opts.RunDir)
}

// where are the flags every command the UI runs takes: the store, and no
// Temporal server whatever LPPCTL_TEMPORAL says.
func (s *Server) where() []string { return []string{"--run-dir", s.opts.RunDir, "--temporal="} }

func (s *Server) cancelCLI(id string) cli {
	return cli{Show: "lppctl runs cancel " + shellQuote(id) + s.storeFlag(), Args: append([]string{"runs", "cancel", "--wait", "20s"}, append(s.where(), "--", id)...)}
}

func (s *Server) forkCLI(id string, step int) cli {
	return cli{Show: fmt.Sprintf("lppctl runs fork %s --step %d", shellQuote(id), step) + s.storeFlag(),
		Args: append([]string{"runs", "fork", "--json", "--step", strconv.Itoa(step)}, append(s.where(), "--", id)...)}
}

func (s *Server) resumeCLI(id string) cli {
	return cli{Show: "lppctl resume " + shellQuote(id) + s.storeFlag(), Args: append([]string{"resume", "--no-input", "-q"}, append(s.where(), "--", id)...)}
}

// runActions are the buttons of a store's run page.
type runActions struct {
	Cancel *cli // while a process runs it
	Resume *cli // failed, crashed, interrupted
	Label  string
}

func (s *Server) actionsFor(row runRow) *runActions {
	if s.opts.Exe == "" || row.Engine != "" {
		return nil
	}
	switch row.Status {
	case string(machine.StatusRunning):
		c := s.cancelCLI(row.ID)
		return &runActions{Cancel: &c}
	case string(machine.StatusFailed):
		c := s.resumeCLI(row.ID)
		return &runActions{Resume: &c, Label: "Retry"}
	case "crashed", string(machine.StatusInterrupted):
		c := s.resumeCLI(row.ID)
		return &runActions{Resume: &c, Label: "Resume"}
	}
	return nil
}

// act runs the command of a run page's button (cancel, resume) as its own
// process, waits a little for its outcome, and shows it on the run's page.
func (s *Server) act(w http.ResponseWriter, r *http.Request) {
	id, what := r.PathValue("id"), r.PathValue("action")
	back := "/runs/" + url.PathEscape(id)
	if s.opts.Exe == "" {
		s.failf(w, http.StatusNotFound, "cannot %s run %s: this UI runs no commands (it does not know where lppctl is)", what, id)
		return
	}
	run, err := s.store.Open(id)
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, runstore.ErrNotFound) {
			status = http.StatusNotFound
		}
		s.fail(w, status, err)
		return
	}
	row := summarize(run)
	var c cli
	switch what {
	case "cancel":
		c = s.cancelCLI(row.ID)
	case "resume":
		c = s.resumeCLI(row.ID)
	case "fork":
		step, err := strconv.Atoi(r.FormValue("step"))
		if err != nil {
			s.failf(w, http.StatusBadRequest, "cannot fork run %s: the form names no step (%q)", id, r.FormValue("step"))
			return
		}
		c = s.forkCLI(row.ID, step)
	default:
		s.failf(w, http.StatusNotFound, "cannot %s run %s: the UI knows cancel, resume and fork", what, id)
		return
	}
	p, err := Launch(s.opts.Exe, s.opts.Root, c.Args)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	n := s.outcome(r.Context(), p, what)
	if what == "fork" && !n.Refused {
		var forked struct {
			ID    string `json:"id"`
			Step  int    `json:"step"`
			State string `json:"state"`
		}
		if _, out, _ := p.Result(); json.Unmarshal([]byte(out), &forked) == nil && forked.ID != "" {
			n.Text = fmt.Sprintf("forked from run %s after step %d, in %s (%s); Resume continues it", row.ID, forked.Step, forked.State, c.Show)
			back = "/runs/" + url.PathEscape(forked.ID)
		}
	}
	if n.Refused {
		s.render(w, http.StatusConflict, "error.html", errorData{page: page{Title: "Refused", Nav: "runs"}, Status: http.StatusConflict, Message: n.Text, Back: back})
		return
	}
	http.Redirect(w, r, back+"?n="+s.keepNotice(n), http.StatusSeeOther)
}

// outcome waits up to DecideWait for a command the UI started and says how
// it ended: refused (a usage error: nothing was done), what it printed, or
// that it goes on.
func (s *Server) outcome(ctx context.Context, p *Process, what string) notice {
	ctx, cancel := context.WithTimeout(ctx, s.opts.DecideWait)
	defer cancel()
	if !p.Wait(ctx) {
		return notice{Text: fmt.Sprintf("%s: started (pid %d); it goes on in its own process, and this page follows it", what, p.Pid)}
	}
	code, _, _ := p.Result()
	msg := p.Message()
	switch code {
	case 0, 4: // done, or paused again further on
		return notice{Text: msg}
	case 2, 3:
		return notice{Text: msg, Refused: true}
	}
	if strings.Contains(msg, "by another process") || strings.Contains(msg, "in another process") {
		return notice{Text: msg, Refused: true}
	}
	return notice{Text: msg}
}

// startField is one context variable of the Start form.
type startField struct {
	Name, Type, Doc string
	Enum            []string
	Kind            string // select, bool, number, text, json
	Value           string
	Default         string
	Error           string // why the value typed was refused
	Required        bool   // an event's payload field that must be given
}

// fieldOf is the form field of a variable (or a payload field), its value
// def.
func fieldOf(v *machine.Var, required bool, def string) startField {
	f := startField{Name: v.Name, Type: string(v.Type), Doc: v.Doc, Enum: v.Enum, Default: def, Value: def, Required: required}
	switch {
	case len(v.Enum) > 0:
		f.Kind = "select"
	case v.Type == machine.TypeBool:
		f.Kind, f.Enum = "bool", []string{"false", "true"}
	case v.Type == machine.TypeInt || v.Type == machine.TypeFloat:
		f.Kind = "number"
	case v.Type == machine.TypeList || v.Type == machine.TypeMap:
		f.Kind = "json"
	default:
		f.Kind = "text"
	}
	return f
}

// startForm builds the Start form of a spec from its context: each
// variable's type, enum and doc, its default as the value (or what was
// typed, when form holds it).
func startForm(spec *machine.Spec, form url.Values) []startField {
	var out []startField
	for _, v := range spec.Context {
		f := fieldOf(v, false, formValue(v.Default))
		if form != nil {
			if x, ok := form["var."+v.Name]; ok && len(x) > 0 {
				f.Value = x[0]
			}
		}
		out = append(out, f)
	}
	return out
}

// formValue writes a default as the form shows it (and --var reads it).
func formValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []any, map[string]any:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}

// startArgs checks the typed values against the spec (as --var does) and
// returns the command that starts the run: --var only for the values that
// differ from the defaults. A refused value is set on its field.
func startArgs(s *Server, rel string, spec *machine.Spec, fields []startField) (cli, bool) {
	show := "lppctl run --spec " + shellQuote(rel)
	args := []string{"run", "--spec", rel, "--no-input", "-q", "--root", s.opts.Root}
	args = append(args, s.where()...)
	ok := true
	for i := range fields {
		f := &fields[i]
		if f.Value == f.Default {
			continue
		}
		if _, err := spec.Var(f.Name).ParseOverride(f.Value); err != nil {
			f.Error, ok = err.Error(), false
			continue
		}
		pair := f.Name + "=" + f.Value
		show += " --var " + shellQuote(pair)
		args = append(args, "--var", pair)
	}
	return cli{Show: show + s.storeFlag(), Args: args}, ok
}

// start starts a run of a spec from the Start form of its page, as its own
// process, and opens the run's page once the run exists. A refused value,
// or a run refused at its start, shows the spec's page again with what was
// typed and why.
func (s *Server) start(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.failf(w, http.StatusBadRequest, "cannot read the form: %v", err)
		return
	}
	rel := r.PostForm.Get("path")
	if s.opts.Exe == "" {
		s.failf(w, http.StatusNotFound, "cannot start a run of %s: this UI runs no commands (it does not know where lppctl is)", rel)
		return
	}
	d, spec, status := s.loadSpec(r, rel)
	if status != http.StatusOK {
		s.render(w, status, "error.html", errorData{page: page{Title: http.StatusText(status)}, Status: status, Message: d.StartError, Back: "/specs"})
		return
	}
	if spec == nil || d.Errors > 0 {
		d.StartError = fmt.Sprintf("cannot start a run of %s: the spec has errors (above): fix them first", rel)
		s.render(w, http.StatusConflict, "spec.html", d)
		return
	}
	d.Self = "/spec?" + url.Values{"path": {rel}}.Encode()
	d.Start = startForm(spec, r.PostForm)
	c, ok := startArgs(s, rel, spec, d.Start)
	d.StartCLI = c.Show
	if !ok {
		d.StartError = "cannot start the run: a value does not fit its variable (see the field)"
		s.render(w, http.StatusBadRequest, "spec.html", d)
		return
	}
	before := s.runIDs()
	p, err := Launch(s.opts.Exe, s.opts.Root, c.Args)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	// The run's page, as soon as the run exists (its run.json names the
	// process that created it): a process just started creates it at once,
	// but a loaded machine may take seconds.
	deadline := time.Now().Add(max(s.opts.DecideWait, 20*time.Second))
	for {
		if id := s.runOf(p.Pid); id != "" {
			n := notice{Text: fmt.Sprintf("started: %s (pid %d)", c.Show, p.Pid)}
			select {
			case <-p.Done():
				n.Text = p.Message()
			case <-time.After(200 * time.Millisecond): // a short run: its outcome
			}
			http.Redirect(w, r, "/runs/"+url.PathEscape(id)+"?n="+s.keepNotice(n), http.StatusSeeOther)
			return
		}
		select {
		case <-p.Done():
			// An ended process no longer names itself in run.json: the
			// run is then the one that appeared.
			if id := s.newRun(before); id != "" {
				http.Redirect(w, r, "/runs/"+url.PathEscape(id)+"?n="+s.keepNotice(notice{Text: p.Message()}), http.StatusSeeOther)
				return
			}
			d.StartError = p.Message()
			s.render(w, http.StatusConflict, "spec.html", d)
			return
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			d.StartError = fmt.Sprintf("the run was started (pid %d) but has not created its run yet; the Runs page will list it", p.Pid)
			s.render(w, http.StatusAccepted, "spec.html", d)
			return
		}
	}
}

// runIDs returns the IDs of the store's runs.
func (s *Server) runIDs() map[string]bool {
	ids := map[string]bool{}
	runs, _ := s.store.List()
	for _, r := range runs {
		ids[r.Meta.ID] = true
	}
	return ids
}

// newRun returns the run that is not in before, when there is exactly one.
func (s *Server) newRun(before map[string]bool) string {
	found := ""
	for id := range s.runIDs() {
		if !before[id] {
			if found != "" {
				return ""
			}
			found = id
		}
	}
	return found
}

// runOf finds the run that process pid created (newest first).
func (s *Server) runOf(pid int) string {
	runs, err := s.store.List()
	if err != nil {
		return ""
	}
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].Meta.PID == pid {
			return runs[i].Meta.ID
		}
	}
	return ""
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
