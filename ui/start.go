package ui

import (
	"encoding/json"
	"fmt"
	"github.com/lppctl/lppctl/machine/lpp"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Starting a run from a spec's page: a form built from the spec's context,
// carried out by lppctl run as a process of its own.

// startField is one context variable of the Start form.
type startField struct {
	Name, Type, Doc string
	Var             string // the variable's name in the spec: a blueprint's property spelled Name is Var in its translation
	Enum            []string
	Kind            string // select, bool, number, text, json
	Value           string
	Default         string
	Error           string // why the value typed was refused
	Required        bool   // an event's payload field that must be given
	Nullable        bool   // an event's payload field declared nullable
	Text            bool   // an event's payload field read as the text typed, which may be sent empty
	Empty           bool   // such a field's box "empty" (send "") is ticked
	// Options are the choices of an event's payload field shown as a
	// select (an enum, a bool): "(leave out: ...)" for an optional one,
	// whose value is "", then each value, an enum's JSON-quoted (so that
	// an enum that lists "" offers it apart from leaving the field out).
	Options []selectOption
}

// selectOption is one choice of a payload field's select.
type selectOption struct {
	Value, Label string
	Selected     bool
}

// fieldOf is the form field of a variable (or a payload field), its value
// def.
func fieldOf(v *mspec.Var, required bool, def string) startField {
	f := startField{Name: v.Name, Type: string(v.Type), Doc: v.Doc, Enum: v.Enum, Default: def, Value: def, Required: required}
	switch {
	case len(v.Enum) > 0:
		f.Kind = "select"
	case v.Type == mspec.TypeBool:
		f.Kind, f.Enum = "bool", []string{"false", "true"}
	case v.Type == mspec.TypeInt || v.Type == mspec.TypeFloat:
		f.Kind = "number"
	case v.Type == mspec.TypeList || v.Type == mspec.TypeMap:
		f.Kind = "json"
	default:
		f.Kind = "text"
	}
	return f
}

// startForm builds the Start form of a spec from its context: each
// variable's type, enum and doc, its default as the value (or what was
// typed, when form holds it). spell names each variable as the file does
// (a blueprint's property as the blueprint spells it, which lppctl run
// --var takes); nil for a spec.
//
// An L++ property's hidden defined flag (lpp_defined_NAME: docs/lpp.md, "A
// name nothing has written yet") has no field: the run sets it from the
// property's own value, as lppctl run --var NAME does.
func startForm(spec *mspec.Spec, form url.Values, spell func(string) string) []startField {
	var out []startField
	hidden := map[string]bool{}
	for _, f := range lpp.DefinedFlags(spec) {
		hidden[f] = true
	}
	for _, v := range spec.Context {
		if hidden[v.Name] {
			continue
		}
		f := fieldOf(v, false, formValue(v.Default))
		if f.Var = v.Name; spell != nil {
			f.Name = spell(v.Name)
		}
		if form != nil {
			if x, ok := form["var."+f.Name]; ok && len(x) > 0 {
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
// differ from the defaults, --var-file for those too long for a command
// line (written, once every value fits, to the store's .ui-values folder).
// A refused value is set on its field.
func startArgs(s *Server, rel string, spec *mspec.Spec, fields []startField) (cli, bool, error) {
	show := "lppctl run --spec " + shellQuote(rel)
	args := []string{"run", "--spec", rel, "--no-input", "-q", "--deltas", "--root", s.opts.Root}
	args = append(args, s.where()...)
	ok := true
	var given []*startField
	for i := range fields {
		f := &fields[i]
		if f.Value == f.Default {
			continue
		}
		if _, err := spec.Var(f.Var).ParseOverride(f.Value); err != nil {
			f.Error, ok = err.Error(), false
			continue
		}
		given = append(given, f)
	}
	va := valueArgs{runDir: s.opts.RunDir}
	for _, f := range given {
		if !ok { // refused: the command as it would be, nothing written
			show += " --var " + shellQuote(f.Name+"="+shortValue(f.Value))
			continue
		}
		if va.inlines(f.Value) {
			pair := f.Name + "=" + f.Value
			show += " --var " + shellQuote(pair)
			args = append(args, "--var", pair)
			continue
		}
		path, err := writeValue(s.opts.RunDir, f.Name, f.Value)
		if err != nil {
			f.Error = err.Error()
			return cli{Show: show + s.storeFlag(), Args: args}, false, err
		}
		pair := f.Name + "=" + path
		show += " --var-file " + shellQuote(f.Name+"="+s.shownPath(path))
		args = append(args, "--var-file", pair)
	}
	return cli{Show: show + s.storeFlag(), Args: args}, ok, nil
}

// shortValue is a value as a refused command shows it: a long one cut.
func shortValue(v string) string {
	if len(v) <= inlineMax {
		return v
	}
	return v[:200] + fmt.Sprintf("… (%d bytes: given as --var-file)", len(v))
}

// shownPath is a path as a command shown on a page names it: relative to
// the root (where the commands run) when it is under it.
func (s *Server) shownPath(path string) string {
	if rel, err := filepath.Rel(s.opts.Root, path); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return path
}

// start starts a run of a spec from the Start form of its page, as its own
// process, and opens the run's page once the run exists. A refused value,
// or a run refused at its start, shows the spec's page again with what was
// typed and why.
func (s *Server) start(w http.ResponseWriter, r *http.Request) {
	if !s.readForm(w, r) {
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
	d.Start = startForm(spec, r.PostForm, d.spell)
	c, ok, err := startArgs(s, rel, spec, d.Start)
	d.StartCLI = c.Show
	if err != nil { // a long value's file could not be written
		d.StartError = "cannot start the run: " + err.Error()
		s.render(w, http.StatusInternalServerError, "spec.html", d)
		return
	}
	if !ok {
		d.StartError = "cannot start the run: a value does not fit its variable (see the field)"
		s.render(w, http.StatusBadRequest, "spec.html", d)
		return
	}
	if gone := varsNotInForm(r.PostForm, d.Start); len(gone) > 0 {
		d.StartError = fmt.Sprintf("cannot start the run: the spec has no variable %s any more (it changed since this page was made): nothing was started; look at the form as it is now and start the run again", strings.Join(gone, ", "))
		s.render(w, http.StatusConflict, "spec.html", d)
		return
	}
	p, err := Launch(s.opts.Exe, s.opts.Root, c.Args)
	if err != nil { // the form is kept: nothing was started
		d.StartError = err.Error()
		s.render(w, http.StatusInternalServerError, "spec.html", d)
		return
	}
	// The run's page, as soon as the run exists: lppctl run --deltas names
	// it on its first line, before its first step (other runs that start
	// meanwhile, from this page or elsewhere, are not taken for it). A
	// loaded machine may take seconds.
	deadline := time.Now().Add(max(s.opts.DecideWait, 20*time.Second))
	for {
		if id := startedRun(p); id != "" {
			n := notice{Text: fmt.Sprintf("started: %s (pid %d)", c.Show, p.Pid)}
			select {
			case <-p.Done():
				n.Text = startOutcome(p)
			case <-time.After(200 * time.Millisecond): // a short run: its outcome
			}
			http.Redirect(w, r, "/runs/"+url.PathEscape(id)+"?n="+s.keepNotice(n), http.StatusSeeOther)
			return
		}
		select {
		case <-p.Done():
			if id := startedRun(p); id != "" {
				http.Redirect(w, r, "/runs/"+url.PathEscape(id)+"?n="+s.keepNotice(notice{Text: startOutcome(p)}), http.StatusSeeOther)
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

// varsNotInForm are the variables a posted Start form gives (var.NAME) that
// the form of the spec as it is now does not have, quoted: a variable the
// file lost since its page was made. Starting without it would drop what
// was typed into it without a word.
func varsNotInForm(posted url.Values, fields []startField) []string {
	has := map[string]bool{}
	for _, f := range fields {
		has[f.Name] = true
	}
	var gone []string
	for key := range posted {
		if name, ok := strings.CutPrefix(key, "var."); ok && !has[name] {
			gone = append(gone, strconv.Quote(name))
		}
	}
	slices.Sort(gone)
	return gone
}

// startedRun is the ID of the run that lppctl run --deltas names on its
// first line ({"type":"run","run_id":...}), "" before it printed it.
func startedRun(p *Process) string {
	var first struct {
		Type  string `json:"type"`
		RunID string `json:"run_id"`
	}
	if json.Unmarshal([]byte(p.FirstLine()), &first) != nil || first.Type != "run" {
		return ""
	}
	return first.RunID
}

// startOutcome says how a run that lppctl run --deltas ran ended, in the
// words of lppctl run -q ("completed in done after 3 steps", "paused in
// review after 1 step: PROMPT"), from its last line; an error is what it
// printed on stderr.
func startOutcome(p *Process) string {
	code, out, _ := p.Result()
	out = strings.TrimSpace(out)
	var end struct {
		Type   string `json:"type"`
		Status string `json:"status"`
		State  string `json:"state"`
		Steps  int    `json:"steps"`
		Pause  *struct {
			State  string `json:"state"`
			Prompt string `json:"prompt"`
		} `json:"pause"`
	}
	if code != 0 && code != 4 || json.Unmarshal([]byte(out[strings.LastIndexByte(out, '\n')+1:]), &end) != nil || end.Type != "end" {
		return p.Message()
	}
	steps := fmt.Sprintf("%d steps", end.Steps)
	if end.Steps == 1 {
		steps = "1 step"
	}
	if end.Pause != nil {
		return fmt.Sprintf("paused in %s after %s: %s", end.Pause.State, steps, end.Pause.Prompt)
	}
	return fmt.Sprintf("%s in %s after %s", end.Status, end.State, steps)
}
