package machine

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/parser"
	"gopkg.in/yaml.v3"
)

// Check decodes src and validates it against reg: it is Parse followed by
// Validate. The diagnostics hold Parse's problems and Validate's, sorted by
// position. When Parse found errors the spec is partial (whatever could not
// be decoded is missing): the graph checks still run on it, but report only
// what the missing parts cannot change (see Validate). The spec is nil only
// when src could not be decoded at all.
func Check(file string, src []byte, reg *Registry, opts ...ValidateOption) (*Spec, Diagnostics) {
	spec, diags := Parse(file, src)
	if spec == nil {
		diags.Sort()
		return nil, diags
	}
	seen := map[string]bool{}
	for _, d := range diags {
		seen[d.String()] = true
	}
	for _, d := range validate(spec, reg, diags, opts) {
		if !seen[d.String()] {
			diags = append(diags, d)
		}
	}
	diags.Sort()
	return spec, diags
}

// Validate checks a decoded spec against the actions of reg and returns every
// problem it finds, errors and warnings, sorted by position. It reports what
// Parse cannot see: undefined states and actions, action parameters (file
// parameters must name a readable file, see WithRoot), expressions that do
// not compile or type-check against the context, enum values, the shape of
// the graph (reachability, ways out, dead transitions) and, as warnings,
// cycles that nothing bounds. A spec whose Parse and Validate diagnostics
// hold no error compiles.
//
// The graph checks (reachability, ways out, final states) run on whatever is
// defined, and report only what the errors found cannot change: a transition
// to an undefined state counts as an edge to nowhere that may still lead to a
// final state (and, for reachability, to the state its "did you mean" names);
// in Check, a state whose text has a decode error keeps what was decoded but
// may have lost transitions (to the states its text names) or its final: true.
// The cycle warnings come only when there is no error.
//
// A Version of 0 is taken as "not given": Parse reports a missing or
// unreadable `lpp` itself.
func Validate(spec *Spec, reg *Registry, opts ...ValidateOption) Diagnostics {
	return validate(spec, reg, nil, opts)
}

// ValidateOption configures Check and Validate.
type ValidateOption func(*validateOptions)

type validateOptions struct {
	root    string
	specDir string
	noFiles bool
}

// WithRoot sets the project root that file parameters are looked up in after
// the spec's folder (default: the current directory), as the actions do at
// run time.
func WithRoot(dir string) ValidateOption {
	return func(o *validateOptions) { o.root = dir }
}

// WithSpecDir sets the folder file parameters are relative to, for a spec
// that is checked away from the folder it was written in (a run's copy of
// it); default: the folder of the spec's File.
func WithSpecDir(dir string) ValidateOption {
	return func(o *validateOptions) { o.specDir = dir }
}

// WithoutFiles leaves out the checks that file parameters name readable
// files (for commands that do not read them, e.g. drawing a spec); their
// values are still type-checked.
func WithoutFiles() ValidateOption {
	return func(o *validateOptions) { o.noFiles = true }
}

// validate is Validate; parsed holds Parse's diagnostics (nil when there were
// none), which tell what parts of the spec may be missing.
func validate(spec *Spec, reg *Registry, parsed Diagnostics, opts []ValidateOption) Diagnostics {
	if spec == nil {
		return nil
	}
	o := validateOptions{root: "."}
	for _, opt := range opts {
		opt(&o)
	}
	if o.specDir == "" {
		o.specDir = filepath.Dir(spec.File)
	}
	v := &validator{spec: spec, reg: reg, env: TypeEnv(spec), writesSeen: map[string]bool{}, opts: o}
	v.header()
	for _, st := range spec.States {
		v.state(st)
	}
	for _, ev := range spec.Events {
		v.event(ev)
	}
	partial := parsed.HasErrors()
	if partial {
		v.damage = findDamage(spec, parsed)
	}
	v.graph()
	if !partial && !v.diags.HasErrors() {
		v.cycles()
	}
	v.diags.Sort()
	return v.diags
}

type validator struct {
	spec       *Spec
	reg        *Registry
	env        map[string]any
	diags      Diagnostics
	writesSeen map[string]bool // actions whose Writes were checked
	canFinish  map[string]bool // states from which a final state can be reached (nil: not computed)
	badGuards  map[Pos]bool    // guards that did not compile (already errors)
	damage     *damage         // what Parse's errors may have dropped (nil: nothing)
	opts       validateOptions
}

func (v *validator) add(sev Severity, p Pos, span int, hint, format string, args ...any) {
	v.diags = append(v.diags, Diagnostic{Severity: sev, File: v.spec.File, Pos: p, Span: span, Msg: fmt.Sprintf(format, args...), Hint: hint})
}

func (v *validator) errorf(p Pos, span int, hint, format string, args ...any) {
	v.add(SevError, p, span, hint, format, args...)
}

func (v *validator) header() {
	s := v.spec
	if s.Version != 0 && s.Version != FormatVersion {
		v.errorf(s.VersionPos, len(strconv.Itoa(s.Version)), fmt.Sprintf("this lppctl reads version %d", FormatVersion), "unsupported spec format version %d", s.Version)
	}
	if strings.TrimSpace(s.Name) == "" {
		if s.NamePos.IsValid() {
			if s.Source == nil || isQuotedAt(s.Source, s.NamePos) || s.Name != "" { // null: Parse reported it
				v.errorf(s.NamePos, valueSpan(s.Source, s.NamePos), "give the spec a name, e.g. `name: my_agent`", "name is empty")
			}
		} else {
			v.errorf(v.start(), 1, "add `name: my_agent` (the name runs and diagrams show)", "missing key \"name\"")
		}
	}
	if len(s.States) == 0 {
		return // Parse reported a missing `states`; an empty one is reported by graph
	}
	switch {
	case s.Initial == "" && !keyOnLine(s.Source, s.InitialPos, "initial"):
		p := s.InitialPos
		if !p.IsValid() {
			p = v.start()
		}
		v.errorf(p, 1, fmt.Sprintf("add `initial: %s` (the state the run starts in)", s.States[0].Name), "missing key \"initial\"")
	case s.Initial == "" && isQuotedAt(s.Source, s.InitialPos):
		v.errorf(s.InitialPos, 2, fmt.Sprintf("write `initial: %s` (the state the run starts in)", s.States[0].Name), "initial is empty")
	case s.Initial == "":
		// null: Parse reported it
	case s.State(s.Initial) == nil:
		v.errorf(s.InitialPos, len(s.Initial), v.stateHint(s.Initial), "initial state %q is not defined", s.Initial)
	case s.State(s.Initial).Final && len(s.States) > 1:
		hint := "start in the state that does the first step"
		for _, st := range s.States {
			if !st.Final {
				hint = fmt.Sprintf("start in the state that does the first step, e.g. `initial: %s`", st.Name)
				break
			}
		}
		v.errorf(s.InitialPos, len(s.Initial), hint, "initial state %q is final: a run would end there, and no other state could run", s.Initial)
	}
}

// keyOnLine reports whether the line of p starts with key (followed by a colon).
func keyOnLine(src []byte, p Pos, key string) bool {
	line := strings.TrimSpace(sourceLine(src, p.Line))
	return strings.HasPrefix(line, key+":")
}

// isQuotedAt reports whether the value written at p starts with a quote.
func isQuotedAt(src []byte, p Pos) bool {
	line := sourceLine(src, p.Line)
	return p.Col >= 1 && p.Col <= len(line) && (line[p.Col-1] == '"' || line[p.Col-1] == '\'')
}

// start returns the position of the spec's first key (its first line that is
// neither blank, a comment nor a document marker).
func (v *validator) start() Pos {
	for i := 0; i < lineCount(v.spec.Source); i++ {
		line := sourceLine(v.spec.Source, i+1)
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") || t == "---" || strings.HasPrefix(t, "%") {
			continue
		}
		return Pos{Line: i + 1, Col: len(line) - len(strings.TrimLeft(line, " \t")) + 1}
	}
	return Pos{Line: 1, Col: 1}
}

func (v *validator) stateHint(name string) string {
	if h := DidYouMean(name, v.spec.StateNames()); h != "" {
		return h
	}
	return "states are: " + listNames(v.spec.StateNames(), 12)
}

func (v *validator) varNames() []string {
	out := make([]string, 0, len(v.spec.Context))
	for _, cv := range v.spec.Context {
		out = append(out, cv.Name)
	}
	return out
}

// listNames joins names, eliding after max.
func listNames(names []string, max int) string {
	if len(names) == 0 {
		return "(none)"
	}
	if len(names) > max {
		return strings.Join(names[:max], ", ") + fmt.Sprintf(", ... (%d more)", len(names)-max)
	}
	return strings.Join(names, ", ")
}

func (v *validator) state(st *State) {
	if st.Do != "" {
		v.action(st)
	} else if len(st.With) > 0 || st.WithPos.IsValid() {
		v.errorf(st.WithPos, len("with"), "add `do: ACTION`, or remove with:", "state %q has with: but no action (do:)", st.Name)
	}
	for _, a := range st.Set {
		v.assign(a)
	}
	if st.OnError != nil && st.Do == "" && !st.Final {
		v.errorf(st.OnError.Pos, transitionSpan(st.OnError), "on_error routes the errors of the state's action: add `do: ACTION`, or remove on_error",
			"on_error of state %q can never fire: the state has no action (do:)", st.Name)
	}
	if st.Final {
		if len(st.Next) > 0 {
			t := st.Next[0]
			v.errorf(t.Pos, transitionSpan(t), "a final state ends the run: remove next, or remove final: true", "final state %q has next transitions", st.Name)
		}
		if st.OnError != nil {
			v.errorf(st.OnError.Pos, transitionSpan(st.OnError), "a final state ends the run: remove on_error, or remove final: true", "final state %q has an on_error route", st.Name)
		}
	}
	for i, t := range st.Next {
		v.transition(t)
		if i+1 < len(st.Next) && i == firstUnguarded(st.Next) && t.To != "" && st.Next[i+1].To != "" {
			dead := st.Next[i+1]
			v.errorf(dead.Pos, transitionSpan(dead),
				fmt.Sprintf("give the transition to %q a when:, or move it to the end of next", t.To),
				"transition to %q can never fire: the unguarded transition to %q above always fires first", dead.To, t.To)
		}
	}
	if st.OnError != nil {
		v.transition(st.OnError)
	}
}

// firstUnguarded returns the index of the first transition without a when
// (one whose when was given but could not be read, an error already, is not
// taken as unguarded), or -1.
func firstUnguarded(ts []*Transition) int {
	for i, t := range ts {
		if t.When == "" && !t.WhenPos.IsValid() {
			return i
		}
	}
	return -1
}

// transitionSpan underlines `to: NAME` (or the bare name) of a transition.
func transitionSpan(t *Transition) int {
	if t.ToPos.Line == t.Pos.Line && t.ToPos.Col >= t.Pos.Col {
		return t.ToPos.Col - t.Pos.Col + len(t.To)
	}
	return 1
}

func (v *validator) transition(t *Transition) {
	switch {
	case t.To == "" && isQuotedAt(v.spec.Source, t.ToPos): // `to: ""`; a null is Parse's
		v.errorf(t.ToPos, 2, "states are: "+listNames(v.spec.StateNames(), 12), "transition to an empty state name")
	case t.To != "" && v.spec.State(t.To) == nil:
		v.errorf(t.ToPos, len(t.To), v.stateHint(t.To), "transition to unknown state %q", t.To)
	}
	if t.When != "" {
		v.guard(t.When, t.WhenPos)
	}
	for _, a := range t.Set {
		v.assign(a)
	}
}

func (v *validator) event(ev *Event) {
	switch {
	case ev.To == "" && isQuotedAt(v.spec.Source, ev.ToPos):
		v.errorf(ev.ToPos, 2, "states are: "+listNames(v.spec.StateNames(), 12), "event %q goes to an empty state name", ev.Name)
	case ev.To != "" && v.spec.State(ev.To) == nil:
		v.errorf(ev.ToPos, len(ev.To), v.stateHint(ev.To), "event %q goes to unknown state %q", ev.Name, ev.To)
	}
	for _, from := range ev.From {
		p := findWord(v.spec.Source, ev.FromPos, from)
		st := v.spec.State(from)
		switch {
		case st == nil:
			v.errorf(p, len(from), v.stateHint(from), "event %q comes from unknown state %q", ev.Name, from)
		case st.Final:
			v.errorf(p, len(from), "a final state ends the run before events are considered; remove it from from:", "event %q can never fire from final state %q", ev.Name, from)
		}
	}
	if ev.When != "" {
		v.guard(ev.When, ev.WhenPos)
	}
	for _, a := range ev.Set {
		v.assign(a)
	}
}

// action checks a state's `do:` and `with:` against the registry.
func (v *validator) action(st *State) {
	a := v.reg.Lookup(st.Do)
	if a == nil {
		hint := DidYouMean(st.Do, v.reg.Names())
		if hint == "" {
			hint = "registered actions: " + listNames(v.reg.Names(), 12)
		}
		v.errorf(st.DoPos, len(st.Do), hint, "unknown action %q", st.Do)
		return
	}
	sig := fmt.Sprintf("%s takes no parameters", a.Name)
	if len(a.Params) > 0 {
		sig = fmt.Sprintf("%s takes %s", a.Name, a.Signature())
	}
	given := map[string]bool{}
	for _, p := range st.With {
		given[p.Name] = true
		ps := a.Param(p.Name)
		if ps == nil {
			hint := sig
			if h := DidYouMean(p.Name, a.paramNames()); h != "" {
				hint = h + " " + sig
			}
			v.errorf(p.Pos, len(p.Name), hint, "action %q has no parameter %q", a.Name, p.Name)
			continue
		}
		v.param(a, ps, p)
	}
	for _, ps := range a.Params {
		switch {
		case ps.Required && !given[ps.Name]:
			v.errorf(st.DoPos, len(st.Do), fmt.Sprintf("add it under with:; %s", sig), "action %q needs parameter %q", a.Name, ps.Name)
		case ps.Type == TypeFile && !given[ps.Name] && ps.Default != nil:
			// The default file must be there too; the run reads it.
			name, _ := ps.Default.(string)
			v.file(a, &ps, &Param{Name: ps.Name, Value: name, Pos: st.DoPos, VPos: st.DoPos}, name)
		}
	}
	if a.WritesFor == nil {
		if v.writesSeen[a.Name] {
			return
		}
		v.writesSeen[a.Name] = true
	}
	for _, w := range a.WritesOf(st) {
		cv := v.spec.Var(w.Name)
		switch {
		case cv == nil:
			v.errorf(st.DoPos, len(st.Do), fmt.Sprintf("declare it under context: `%s: %s`", w.Name, w.Type),
				"action %q writes context variable %q, which the spec does not declare", a.Name, w.Name)
		case w.Type != TypeAny && cv.Type != TypeAny && cv.Type != w.Type:
			v.errorf(st.DoPos, len(st.Do), fmt.Sprintf("declare it as `%s: %s`", w.Name, w.Type),
				"action %q writes %q as %s, but the spec declares it as %s", a.Name, w.Name, w.Type, cv.Type)
		}
	}
}

func (v *validator) param(a *Action, ps *ParamSpec, p *Param) {
	if ps.Type == TypeExpr {
		src, ok := exprSource(p.Value)
		if !ok {
			v.errorf(p.VPos, valueSpan(v.spec.Source, p.VPos), "write the expression as text, e.g. retries + 1 or '[1, 2]'",
				"parameter %q of action %q must be an expression, not %s", ps.Name, a.Name, describeValue(p.Value))
			return
		}
		at := exprStart(v.spec.Source, p.VPos)
		if _, err := CompileValue(src, TypeAny, v.env); err != nil {
			e := locateExpr(err, v.spec.Source, at, src)
			v.exprError(e, fmt.Sprintf("parameter %q", ps.Name))
		}
		return
	}
	val, err := ps.Type.Coerce(p.Value)
	if err != nil {
		v.errorf(p.VPos, valueSpan(v.spec.Source, p.VPos), fmt.Sprintf("%s takes %s", a.Name, a.Signature()), "parameter %q of action %q: %v", ps.Name, a.Name, err)
		return
	}
	if ps.Type == TypeFile {
		v.file(a, ps, p, val.(string))
		return
	}
	if s, ok := val.(string); ok && ps.Event && v.spec.Event(s) == nil {
		var names []string
		for _, ev := range v.spec.Events {
			names = append(names, ev.Name)
		}
		hint := DidYouMean(s, names)
		if hint == "" {
			hint = "events are: " + listNames(names, 12)
		}
		v.errorf(p.VPos, valueSpan(v.spec.Source, p.VPos), hint, "parameter %q of action %q: event %q is not defined under events:", ps.Name, a.Name, s)
		return
	}
	if s, ok := val.(string); ok && len(ps.Enum) > 0 && !contains(ps.Enum, s) {
		hint := DidYouMean(s, ps.Enum)
		if hint == "" {
			hint = "use one of " + quoteList(ps.Enum)
		}
		v.errorf(p.VPos, valueSpan(v.spec.Source, p.VPos), hint, "parameter %q of action %q: %q is not one of %s", ps.Name, a.Name, s, quoteList(ps.Enum))
	}
}

// file checks that a file parameter names a readable file, found where the
// actions look for it at run time (ResolveFile).
func (v *validator) file(a *Action, ps *ParamSpec, p *Param, name string) {
	if v.opts.noFiles {
		return
	}
	at, span := p.VPos, valueSpan(v.spec.Source, p.VPos)
	specDir, root := v.opts.specDir, v.opts.root
	if strings.TrimSpace(name) == "" {
		v.errorf(at, span, "give the file's path, relative to the spec's folder", "parameter %q of action %q: the file name is empty", ps.Name, a.Name)
		return
	}
	found, tried := ResolveFile(name, specDir, root)
	if found == "" {
		v.errorf(at, span, fileHint(name, tried, specDir, root), "parameter %q of action %q: file %q not found (looked for %s)", ps.Name, a.Name, name, strings.Join(tried, ", "))
		return
	}
	if err := readable(found); err != nil {
		v.errorf(at, span, "the action reads it when the run gets there", "parameter %q of action %q: cannot read file %s: %v", ps.Name, a.Name, found, err)
	}
}

// readable reports why the file at path cannot be read (nil when it can).
func readable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			return pe.Err
		}
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if info.IsDir() {
		return fmt.Errorf("it is a directory")
	}
	if _, err := f.Read(make([]byte, 1)); err != nil && err != io.EOF {
		if pe, ok := err.(*os.PathError); ok {
			return pe.Err
		}
		return err
	}
	return nil
}

// fileHint suggests, for a file that was not found, the closest file in the
// folders it was looked for in, else lists the files of the first of them
// that exists.
func fileHint(name string, tried []string, specDir, root string) string {
	var first string
	var firstFiles []string
	for _, cand := range tried {
		dir := filepath.Dir(cand)
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		var files []string
		for _, e := range ents {
			if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				files = append(files, e.Name())
			}
		}
		if h := DidYouMean(filepath.Base(name), files); h != "" {
			best, _ := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(h, "did you mean "), "?"))
			return fmt.Sprintf("did you mean %q?", filepath.ToSlash(filepath.Join(filepath.Dir(name), best)))
		}
		if first == "" {
			first, firstFiles = dir, files
		}
	}
	if first != "" {
		return fmt.Sprintf("files in %s: %s", first, listNames(firstFiles, 12))
	}
	if filepath.IsAbs(name) {
		return fmt.Sprintf("no folder %s", filepath.Dir(name))
	}
	// A misspelt folder: a sibling of the first folder it names.
	for _, base := range []string{specDir, root} {
		ents, err := os.ReadDir(filepath.Join(base, filepath.Dir(filepath.Dir(name))))
		if err != nil {
			continue
		}
		var dirs []string
		for _, e := range ents {
			if e.IsDir() {
				dirs = append(dirs, e.Name())
			}
		}
		if h := DidYouMean(filepath.Base(filepath.Dir(name)), dirs); h != "" {
			d, _ := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(h, "did you mean "), "?"))
			return fmt.Sprintf("did you mean %q?", filepath.ToSlash(filepath.Join(filepath.Dir(filepath.Dir(name)), d, filepath.Base(name))))
		}
	}
	return fmt.Sprintf("paths are relative to the spec's folder (%s), then the project root (%s); neither has a folder %s", specDir, root, filepath.Dir(name))
}

// assign checks one `set:` entry.
func (v *validator) assign(a *Assign) {
	if a.Var == VarState || a.Var == VarLastError {
		v.errorf(a.Pos, len(a.Var), "the interpreter sets it; set a context variable of your own instead", "set: %q is reserved", a.Var)
		return
	}
	cv := v.spec.Var(a.Var)
	if cv == nil {
		hint := DidYouMean(a.Var, v.varNames())
		if hint == "" {
			hint = fmt.Sprintf("declare it under context:, e.g. `%s: int`", a.Var)
		}
		v.errorf(a.Pos, len(a.Var), hint, "set: unknown context variable %q", a.Var)
		return
	}
	if _, err := CompileValue(a.Expr, cv.Type, v.env); err != nil {
		v.exprError(locateExpr(err, v.spec.Source, a.ExprPos, a.Expr), "set "+a.Var)
		return
	}
	if len(cv.Enum) == 0 {
		return
	}
	tree, err := parser.Parse(a.Expr)
	if err != nil {
		return
	}
	for _, lit := range resultLiterals(tree.Node) {
		if !contains(cv.Enum, lit.Value) {
			p := exprPos(v.spec.Source, a.ExprPos, a.Expr, lit.Location().From)
			v.errorf(p, len(strconv.Quote(lit.Value)), enumHint(lit.Value, cv.Enum),
				"set %s: %q is not one of %s", a.Var, lit.Value, quoteList(cv.Enum))
		}
	}
}

// guard checks one `when:` expression.
func (v *validator) guard(src string, at Pos) {
	if _, err := CompileGuard(src, v.env); err != nil {
		if v.badGuards == nil {
			v.badGuards = map[Pos]bool{}
		}
		v.badGuards[at] = true
		v.exprError(locateExpr(err, v.spec.Source, at, src), "guard")
		return
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return
	}
	for _, c := range enumComparisons(tree.Node, v.spec) {
		p := exprPos(v.spec.Source, at, src, c.lit.Location().From)
		if c.v.Name == VarState {
			v.errorf(p, len(strconv.Quote(c.lit.Value)), v.stateHint(c.lit.Value),
				"guard: state is never %q: no state has that name", c.lit.Value)
			continue
		}
		v.errorf(p, len(strconv.Quote(c.lit.Value)), enumHint(c.lit.Value, c.v.Enum),
			"guard: %q is not one of the values of %s %s", c.lit.Value, c.v.Name, quoteList(c.v.Enum))
	}
}

func enumHint(s string, enum []string) string {
	if h := DidYouMean(s, enum); h != "" {
		return h
	}
	return "use one of " + quoteList(enum)
}

var (
	unknownNameRE = regexp.MustCompile(`^unknown name ([A-Za-z_][A-Za-z0-9_]*)`)
	notCallableRE = regexp.MustCompile(`is not callable$`)
)

// hidesBuiltin returns the context variable named like an expression
// function that the expression of e calls (the cause of "is not callable"),
// or "".
func (v *validator) hidesBuiltin(e *ExprError) string {
	line := sourceLine(v.spec.Source, e.Pos.Line)
	runes := []rune(line)
	if e.Pos.Col < 1 || e.Pos.Col > len(runes) {
		return ""
	}
	m := identWordRE.FindString(string(runes[e.Pos.Col-1:]))
	if m != "" && isBuiltin(m) && v.spec.Var(m) != nil {
		return m
	}
	return ""
}

// exprError reports an expression compile error, with a "did you mean" for unknown names.
func (v *validator) exprError(e *ExprError, what string) {
	span, hint := 1, ""
	if m := unknownNameRE.FindStringSubmatch(e.Msg); m != nil {
		span = len(m[1])
		cands := append(v.varNames(), VarState, VarLastError)
		for _, f := range builtin.Builtins {
			cands = append(cands, f.Name)
		}
		hint = DidYouMean(m[1], cands)
		if v.calledAt(e.Pos, m[1]) {
			var funcs []string
			for _, f := range builtin.Builtins {
				funcs = append(funcs, f.Name)
			}
			if hint = DidYouMean(m[1], funcs); hint == "" {
				hint = fmt.Sprintf("expressions have no function %s(); see https://expr-lang.org/docs/language-definition for the ones they have", m[1])
			}
		} else if hint == "" {
			hint = "context variables: " + listNames(v.varNames(), 12)
		}
	} else if m := notCallableRE.FindStringSubmatch(e.Msg); m != nil && v.hidesBuiltin(e) != "" {
		hint = fmt.Sprintf("the context variable %q hides the expression function %s(): rename the variable", v.hidesBuiltin(e), v.hidesBuiltin(e))
	} else if e.Msg == ErrFloatToInt.Error() {
		hint = "the fraction would be lost: convert it with int(...) (which truncates), or declare the variable as float"
	} else if strings.Contains(e.Msg, "mismatched types") {
		hint = "both sides must have compatible types: numbers are written without quotes, strings with them"
	}
	v.errorf(e.Pos, span, hint, "%s: %s", what, exprTypeNames.Replace(e.Msg))
}

// exprTypeNames renames the Go types in expr's messages to the spec's types.
var exprTypeNames = strings.NewReplacer("[]interface {}", "list", "map[string]interface {}", "map",
	"interface {}", "any", "float64", "float")

// calledAt reports whether the name written at p is called: `name(`.
func (v *validator) calledAt(p Pos, name string) bool {
	runes := []rune(sourceLine(v.spec.Source, p.Line))
	if p.Col < 1 || p.Col > len(runes) {
		return false
	}
	rest := strings.TrimPrefix(string(runes[p.Col-1:]), name)
	return strings.HasPrefix(strings.TrimLeft(rest, " "), "(")
}

// resultLiterals returns the string literals an expression can evaluate to:
// the expression itself, or the branches of its conditionals.
func resultLiterals(n ast.Node) []*ast.StringNode {
	switch x := n.(type) {
	case *ast.StringNode:
		return []*ast.StringNode{x}
	case *ast.ConditionalNode:
		return append(resultLiterals(x.Exp1), resultLiterals(x.Exp2)...)
	case *ast.BinaryNode:
		if x.Operator == "??" {
			return append(resultLiterals(x.Left), resultLiterals(x.Right)...)
		}
	}
	return nil
}

type enumCmp struct {
	v   *Var
	lit *ast.StringNode
}

// enumComparisons finds string literals compared with ==, != or in against an
// enum variable that are not among its values.
func enumComparisons(root ast.Node, spec *Spec) []enumCmp {
	var out []enumCmp
	enumVar := func(n ast.Node) *Var {
		id, ok := n.(*ast.IdentifierNode)
		if !ok {
			return nil
		}
		if id.Value == VarState && len(spec.States) > 0 {
			return &Var{Name: VarState, Type: TypeString, Enum: spec.StateNames()} // state holds a state's name
		}
		cv := spec.Var(id.Value)
		if cv == nil || len(cv.Enum) == 0 {
			return nil
		}
		return cv
	}
	check := func(cv *Var, n ast.Node) {
		for _, lit := range resultLiterals(n) {
			if !contains(cv.Enum, lit.Value) {
				out = append(out, enumCmp{cv, lit})
			}
		}
	}
	ast.Find(root, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryNode)
		if !ok {
			return false
		}
		switch b.Operator {
		case "==", "!=":
			if cv := enumVar(b.Left); cv != nil {
				check(cv, b.Right)
			} else if cv := enumVar(b.Right); cv != nil {
				check(cv, b.Left)
			}
		case "in", "not in":
			if cv := enumVar(b.Left); cv != nil {
				if arr, ok := b.Right.(*ast.ArrayNode); ok {
					for _, item := range arr.Nodes {
						check(cv, item)
					}
				}
			}
		}
		return false
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].lit.Location().From < out[j].lit.Location().From })
	return out
}

// exprStart returns where an expression value written at p starts: inside
// its quotes when it is quoted.
func exprStart(src []byte, p Pos) Pos {
	line := sourceLine(src, p.Line)
	if p.Col >= 1 && p.Col <= len(line) && (line[p.Col-1] == '"' || line[p.Col-1] == '\'') {
		p.Col++
	}
	return p
}

// valueSpan measures the scalar written at p (quotes included), up to the end of the line or a comment.
func valueSpan(src []byte, p Pos) int {
	line := sourceLine(src, p.Line)
	if p.Col < 1 || p.Col > len(line) {
		return 1
	}
	rest := line[p.Col-1:]
	if q := rest[0]; q == '"' || q == '\'' {
		if end := strings.IndexByte(rest[1:], q); end >= 0 {
			return end + 2
		}
		return len(rest)
	}
	for _, stop := range []string{" #", ", ", "}", "]"} {
		if i := strings.Index(rest, stop); i >= 0 {
			rest = rest[:i]
		}
	}
	if n := len(strings.TrimRight(rest, " ")); n > 0 {
		return n
	}
	return 1
}

// findWord finds the identifier word in src at or after p (within a few
// lines), returning p when it is not found.
func findWord(src []byte, p Pos, word string) Pos {
	if !p.IsValid() || word == "" {
		return p
	}
	for l := p.Line; l < p.Line+20; l++ {
		line := sourceLine(src, l)
		from := 0
		if l == p.Line {
			from = p.Col - 1
		}
		for from >= 0 && from < len(line) {
			i := strings.Index(line[from:], word)
			if i < 0 {
				break
			}
			at := from + i
			end := at + len(word)
			if (at == 0 || !isIdentByte(line[at-1])) && (end >= len(line) || !isIdentByte(line[end])) {
				return Pos{Line: l, Col: at + 1}
			}
			from = end
		}
	}
	return p
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// graph checks the shape of the machine: reachability from the initial
// state, ways out of every state, and that a final state can be reached. On a
// spec with errors it reports only what they cannot change (see Validate).
func (v *validator) graph() {
	s := v.spec
	if len(s.States) == 0 {
		if p, rest, ok := topKey(s.Source, "states"); ok && strings.HasPrefix(rest, "{") {
			v.errorf(p, len("states"), "add at least one state and one final state", "the spec has no states")
		}
		return
	}
	d := v.damage
	if d == nil {
		d = &damage{}
	}
	if d.total {
		return
	}
	// succ holds the edges as written; meant adds those the errors may hide:
	// to the state an undefined target probably means, and from a state with
	// a decode error to the states its text names. mayFinish holds the states
	// that may reach a final state through an undefined target or a lost part.
	succ := v.successors()
	meant := map[string][]string{}
	for from, tos := range succ {
		meant[from] = append([]string(nil), tos...)
	}
	var mayFinish []string
	unknown := func(from, to string) {
		mayFinish = appendUnique(mayFinish, from)
		if m := v.meantState(to); m != "" {
			meant[from] = appendUnique(meant[from], m)
		}
	}
	for _, st := range s.States {
		for _, t := range st.Transitions() {
			if s.State(t.To) == nil {
				unknown(st.Name, t.To)
			}
		}
	}
	for _, ev := range s.Events {
		if s.State(ev.To) != nil {
			continue
		}
		for _, from := range v.eventSources(ev) {
			unknown(from, ev.To)
		}
	}
	for _, st := range s.States {
		if names, ok := d.states[st.Name]; ok {
			mayFinish = appendUnique(mayFinish, st.Name)
			for _, n := range names {
				meant[st.Name] = appendUnique(meant[st.Name], n)
			}
		}
	}

	if s.State(s.Initial) != nil {
		seen := reach(append([]string{s.Initial}, d.roots...), meant)
		for _, st := range s.States {
			if !seen[st.Name] {
				v.errorf(st.Pos, len(st.Name), "no transition, on_error route or event goes to it: add one, or remove the state",
					"state %q is unreachable from the initial state %q", st.Name, s.Initial)
			}
		}
	}
	var finals []string
	for _, st := range s.States {
		switch {
		case st.Final:
			finals = append(finals, st.Name)
		case len(st.Next) == 0 && !d.hasState(st.Name):
			v.errorf(st.Pos, len(st.Name), "add `next: STATE`, or `final: true` if the run ends here",
				"state %q has no way out: it is not final and has no next transitions", st.Name)
		}
	}
	if len(finals) == 0 {
		if !d.finals && len(d.states) == 0 {
			st := s.States[0]
			v.errorf(st.Pos, len(st.Name), "mark the state that ends the run with `final: true`", "the spec has no final state")
		}
		return
	}
	pred := map[string][]string{}
	for from, tos := range meant {
		for _, to := range tos {
			pred[to] = append(pred[to], from)
		}
	}
	v.canFinish = reach(append(finals, mayFinish...), pred)
	if d.events {
		return // a lost event may lead anywhere
	}
	for _, st := range s.States {
		if !v.canFinish[st.Name] && len(st.Next) > 0 {
			v.errorf(st.Pos, len(st.Name), "every path from here runs until limits.max_transitions: add a transition that leads to a final state",
				"no final state can be reached from state %q", st.Name)
		}
	}
}

// meantState returns the defined state an undefined target most probably
// means (its "did you mean"), or "".
func (v *validator) meantState(name string) string {
	if name == "" {
		return ""
	}
	h := DidYouMean(name, v.spec.StateNames())
	if m, ok := strings.CutPrefix(h, "did you mean "); ok {
		if q, err := strconv.Unquote(strings.TrimSuffix(m, "?")); err == nil && v.spec.State(q) != nil {
			return q
		}
	}
	return ""
}

// eventSources returns the states an event can fire from: its from list, or
// every non-final state.
func (v *validator) eventSources(ev *Event) []string {
	var out []string
	if len(ev.From) > 0 {
		for _, from := range ev.From {
			if st := v.spec.State(from); st != nil && !st.Final {
				out = append(out, from)
			}
		}
		return out
	}
	for _, st := range v.spec.States {
		if !st.Final {
			out = append(out, st.Name)
		}
	}
	return out
}

// damage is what Parse's errors may have dropped from a partial spec, found
// by where they are: the graph checks must not report what the dropped parts
// may have said.
type damage struct {
	// states maps each state with a decode error in its text to the states
	// that text names: it may have lost transitions to them, or its final: true.
	states map[string][]string
	// roots are states named by text that was dropped whole (a state whose
	// name is not an identifier, an unknown top-level key, an event): it may
	// have led to them.
	roots []string
	// finals: a final state may have been dropped (a state or a top-level
	// key was), so "no final state" is not certain.
	finals bool
	// events: an event may have been dropped, so any state may have a way
	// to a final state.
	events bool
	// total: the errors could not be located; no graph check is certain.
	total bool
}

func (d *damage) hasState(name string) bool {
	_, ok := d.states[name]
	return ok
}

// region is the text of one key of a mapping and its value: from the key to
// the next key of the same mapping (or end).
type region struct {
	name       string
	key, value *yaml.Node
	start, end Pos
}

func regionsOf(m *yaml.Node, end Pos) []region {
	var out []region
	for i := 0; i+1 < len(m.Content); i += 2 {
		r := region{name: m.Content[i].Value, key: m.Content[i], value: m.Content[i+1], start: pos(m.Content[i]), end: end}
		if i+2 < len(m.Content) {
			r.end = pos(m.Content[i+2])
		}
		out = append(out, r)
	}
	return out
}

func posBefore(a, b Pos) bool { return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col }

func regionAt(rs []region, p Pos) *region {
	for i := range rs {
		if !posBefore(p, rs[i].start) && posBefore(p, rs[i].end) {
			return &rs[i]
		}
	}
	return nil
}

// findDamage locates each of Parse's errors in the spec's text.
func findDamage(spec *Spec, parsed Diagnostics) *damage {
	d := &damage{states: map[string][]string{}}
	var doc yaml.Node
	if err := yaml.Unmarshal(spec.Source, &doc); err != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		d.total = true
		return d
	}
	eof := Pos{Line: lineCount(spec.Source) + 2, Col: 1}
	top := regionsOf(doc.Content[0], eof)
	names := func(r *region) []string { return stateNamesIn(spec, r.start, r.end) }
	dropped := func(r *region) {
		d.roots = append(d.roots, names(r)...)
		d.finals = true
	}
	for _, e := range parsed.Errors() {
		if strings.HasPrefix(e.Msg, "missing key ") {
			continue // reported at the spec's start; nothing was dropped
		}
		t := regionAt(top, e.Pos)
		if t == nil {
			if e.Pos.IsValid() {
				continue // before the first key
			}
			d.total = true
			return d
		}
		if e.Pos == t.start && !contains(topKeys, t.name) || t.name == "" {
			// An unknown (or duplicate) top-level key: its text is dropped.
			dropped(t)
			if DidYouMean(t.name, []string{"events"}) != "" || t.name == "events" {
				d.events = true
			}
			continue
		}
		switch t.name {
		case "states":
			var sub *region
			if t.value.Kind == yaml.MappingNode {
				sub = regionAt(regionsOf(t.value, t.end), e.Pos)
			}
			switch {
			case e.Pos == t.start:
				dropped(t) // a second states: key
			case sub == nil:
				// states is not a mapping: there are no states.
			case spec.State(sub.name) != nil:
				if f := fieldAt(sub, e.Pos); f != nil && e.Pos != f.start && contains(stateDataKeys, f.name) {
					break // inside do, with, set or note: no transition or final is lost
				}
				d.states[sub.name] = append(d.states[sub.name], names(sub)...)
			default:
				dropped(sub) // a state whose name is not an identifier
			}
		case "events":
			var sub *region
			if t.value.Kind == yaml.MappingNode {
				sub = regionAt(regionsOf(t.value, t.end), e.Pos)
			}
			if sub == nil {
				sub = t
			}
			d.roots = append(d.roots, names(sub)...)
			if ev := spec.Event(sub.name); ev == nil || ev.Pos != sub.start {
				d.events = true // the event was dropped
			}
			// A decoded event with an error keeps its from (or gets every
			// state) and, without its to, leads nowhere: graph counts it.
		}
		// Errors in lpp, name, description, context, initial and limits
		// change no edge: a bad initial is an undefined one.
	}
	return d
}

// stateDataKeys are the keys of a state that hold no transition and no final.
var stateDataKeys = []string{"do", "with", "set", "note"}

// fieldAt returns the key of the mapping r's value whose text holds p, or nil.
func fieldAt(r *region, p Pos) *region {
	if r.value.Kind != yaml.MappingNode {
		return nil
	}
	return regionAt(regionsOf(r.value, r.end), p)
}

var identWordRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// stateNamesIn returns the defined states whose names appear as words in the
// spec's text from start to end.
func stateNamesIn(spec *Spec, start, end Pos) []string {
	var out []string
	for l := start.Line; l <= end.Line; l++ {
		line := sourceLine(spec.Source, l)
		if l == end.Line {
			line = cutCol(line, end.Col)
		}
		if l == start.Line {
			line = line[len(cutCol(line, start.Col)):]
		}
		for _, w := range identWordRE.FindAllString(line, -1) {
			if spec.State(w) != nil {
				out = appendUnique(out, w)
			}
		}
	}
	return out
}

// cutCol returns line up to (not including) the 1-based character column col.
func cutCol(line string, col int) string {
	n := 0
	for i := range line {
		if n == col-1 {
			return line[:i]
		}
		n++
	}
	return line
}

// successors returns, for each state, the states its next transitions,
// on_error route and events can move it to.
func (v *validator) successors() map[string][]string {
	s := v.spec
	succ := map[string][]string{}
	add := func(from, to string) {
		if s.State(to) != nil {
			succ[from] = appendUnique(succ[from], to)
		}
	}
	for _, st := range s.States {
		for _, t := range st.Transitions() {
			add(st.Name, t.To)
		}
	}
	for _, ev := range s.Events {
		if len(ev.From) > 0 {
			for _, from := range ev.From {
				if st := s.State(from); st != nil && !st.Final {
					add(from, ev.To)
				}
			}
			continue
		}
		for _, st := range s.States {
			if !st.Final {
				add(st.Name, ev.To)
			}
		}
	}
	return succ
}

// reach returns the states reachable from roots (roots included).
func reach(roots []string, succ map[string][]string) map[string]bool {
	seen := map[string]bool{}
	queue := append([]string{}, roots...)
	for _, r := range roots {
		seen[r] = true
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range succ[n] {
			if !seen[m] {
				seen[m] = true
				queue = append(queue, m)
			}
		}
	}
	return seen
}

// topKey finds a top-level key in src, returning its position and the text after its colon.
func topKey(src []byte, key string) (Pos, string, bool) {
	for i := 0; i < lineCount(src); i++ {
		line := sourceLine(src, i+1)
		if strings.HasPrefix(line, key+":") {
			return Pos{Line: i + 1, Col: 1}, strings.TrimSpace(line[len(key)+1:]), true
		}
	}
	return Pos{}, "", false
}

// cycles warns about cycles of next transitions that nothing bounds (see
// docs/spec.md, "Unbounded cycles"): a strongly connected component of the
// next graph is bounded when a guard of one of its states' next transitions
// compares a counter that a set on the cycle steps (an int variable v set to
// v + x or v - x), or when one of its states runs an action that writes a
// variable one of those guards reads.
func (v *validator) cycles() {
	s := v.spec
	next := map[string][]string{}
	for _, st := range s.States {
		for _, t := range st.Next {
			if s.State(t.To) != nil {
				next[st.Name] = appendUnique(next[st.Name], t.To)
			}
		}
	}
	for _, scc := range stronglyConnected(s.StateNames(), next) {
		in := map[string]bool{}
		for _, n := range scc {
			in[n] = true
		}
		if len(scc) == 1 && !contains(next[scc[0]], scc[0]) {
			continue // not a cycle
		}
		if v.canFinish != nil && !v.canFinish[scc[0]] {
			continue // already an error
		}
		if v.cycleBounded(in) {
			continue
		}
		first := s.State(scc[0])
		v.add(SevWarning, first.Pos, len(first.Name),
			"count its rounds (e.g. set: {rounds: rounds + 1}) and leave it with a guard such as when: rounds >= max_rounds; until then only limits.max_transitions stops it",
			"cycle %s is not bounded: no guard on it compares a counter that the cycle steps, and no action on it writes a variable its guards read",
			strings.Join(shortestCycle(first.Name, next, in), " → "))
	}
}

func (v *validator) cycleBounded(in map[string]bool) bool {
	s := v.spec
	counters := map[string]bool{}
	stepped := func(as []*Assign) {
		for _, a := range as {
			if cv := s.Var(a.Var); cv != nil && cv.Type == TypeInt && stepsItself(a) {
				counters[a.Var] = true
			}
		}
	}
	var guards []ast.Node
	for _, st := range s.States {
		if !in[st.Name] {
			continue
		}
		stepped(st.Set)
		for _, t := range st.Next {
			if in[t.To] {
				stepped(t.Set)
			}
			if t.When == "" {
				continue
			}
			if v.badGuards[t.WhenPos] {
				return true // an error already; a warning on top would only add noise
			}
			if tree, err := parser.Parse(t.When); err == nil {
				guards = append(guards, tree.Node)
			}
		}
	}
	reads := map[string]bool{}
	bounded := false
	for _, g := range guards {
		ast.Find(g, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.IdentifierNode:
				reads[x.Value] = true
			case *ast.BinaryNode:
				if isComparison(x.Operator) && ast.Find(x, func(n ast.Node) bool {
					id, ok := n.(*ast.IdentifierNode)
					return ok && counters[id.Value]
				}) != nil {
					bounded = true
				}
			}
			return false // visit every node
		})
	}
	if bounded {
		return true
	}
	for _, st := range s.States {
		if !in[st.Name] || st.Do == "" {
			continue
		}
		a := v.reg.Lookup(st.Do)
		if a == nil {
			return true // an unknown action is an error already
		}
		for _, w := range a.WritesOf(st) {
			if reads[w.Name] {
				return true
			}
		}
	}
	return false
}

// stepsItself reports whether an assignment is v = v + x, v = x + v or v = v - x.
func stepsItself(a *Assign) bool {
	tree, err := parser.Parse(a.Expr)
	if err != nil {
		return false
	}
	b, ok := tree.Node.(*ast.BinaryNode)
	if !ok || (b.Operator != "+" && b.Operator != "-") {
		return false
	}
	isVar := func(n ast.Node) bool {
		id, ok := n.(*ast.IdentifierNode)
		return ok && id.Value == a.Var
	}
	return isVar(b.Left) || (b.Operator == "+" && isVar(b.Right))
}

func isComparison(op string) bool {
	switch op {
	case "<", "<=", ">", ">=", "==", "!=":
		return true
	}
	return false
}

// stronglyConnected returns the strongly connected components of the graph,
// each in file order, ordered by their first state (Tarjan's algorithm).
func stronglyConnected(nodes []string, succ map[string][]string) [][]string {
	order := map[string]int{}
	for i, n := range nodes {
		order[n] = i
	}
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(n string)
	visit = func(n string) {
		index[n] = len(index)
		low[n] = index[n]
		stack = append(stack, n)
		onStack[n] = true
		for _, m := range succ[n] {
			if _, seen := index[m]; !seen {
				visit(m)
				low[n] = min(low[n], low[m])
			} else if onStack[m] {
				low[n] = min(low[n], index[m])
			}
		}
		if low[n] == index[n] {
			var scc []string
			for {
				m := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[m] = false
				scc = append(scc, m)
				if m == n {
					break
				}
			}
			sort.Slice(scc, func(i, j int) bool { return order[scc[i]] < order[scc[j]] })
			out = append(out, scc)
		}
	}
	for _, n := range nodes {
		if _, seen := index[n]; !seen {
			visit(n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return order[out[i][0]] < order[out[j][0]] })
	return out
}

// shortestCycle returns a shortest path start → ... → start inside the component.
func shortestCycle(start string, succ map[string][]string, in map[string]bool) []string {
	prev := map[string]string{}
	queue := []string{start}
	seen := map[string]bool{}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range succ[n] {
			if !in[m] {
				continue
			}
			if m == start {
				path := []string{start}
				for at := n; at != start; at = prev[at] {
					path = append(path, at)
				}
				path = append(path, start)
				for i, j := 1, len(path)-2; i < j; i, j = i+1, j-1 {
					path[i], path[j] = path[j], path[i]
				}
				return path
			}
			if !seen[m] {
				seen[m] = true
				prev[m] = n
				queue = append(queue, m)
			}
		}
	}
	return []string{start, start}
}
