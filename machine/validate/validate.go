package validate

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"gopkg.in/yaml.v3"
)

// Check decodes src and validates it against reg: it is Parse followed by
// Validate. The diagnostics hold Parse's problems and Validate's, sorted by
// position. When Parse found errors the spec is partial (whatever could not
// be decoded is missing): the graph checks still run on it, but report only
// what the missing parts cannot change (see Validate). The spec is nil only
// when src could not be decoded at all.
func Check(file string, src []byte, reg *machine.Registry, opts ...ValidateOption) (*mspec.Spec, mspec.Diagnostics) {
	spec, diags := mspec.Parse(file, src)
	if spec == nil {
		diags.Sort()
		return nil, diags.CapAlike()
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
	return spec, diags.CapAlike()
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
func Validate(spec *mspec.Spec, reg *machine.Registry, opts ...ValidateOption) mspec.Diagnostics {
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
func validate(spec *mspec.Spec, reg *machine.Registry, parsed mspec.Diagnostics, opts []ValidateOption) mspec.Diagnostics {
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
	v := &validator{spec: spec, reg: reg, env: mspec.TypeEnv(spec), writesSeen: map[string]bool{}, opts: o}
	partial := parsed.HasErrors()
	if partial {
		v.damage = findDamage(spec, parsed)
	}
	v.header()
	for _, st := range spec.States {
		v.state(st)
	}
	v.events()
	v.checkKeys()
	v.graph()
	if !partial {
		v.unhandledEvents()
		v.needs()
	}
	if !partial && !v.diags.HasErrors() {
		v.cycles()
		v.deadOnErrors()
	}
	v.diags.Sort()
	return mergeUndeclared(v.diags)
}

type validator struct {
	spec       *mspec.Spec
	reg        *machine.Registry
	env        map[string]any
	diags      mspec.Diagnostics
	writesSeen map[string]bool    // actions whose Writes were checked
	canFinish  map[string]bool    // states from which a final state can be reached (nil: not computed)
	badGuards  map[mspec.Pos]bool // guards that did not compile (already errors)
	inEvent    string             // the event whose transition is being checked ("" when none)
	checked    map[string]bool    // guards and sets that checked clean, by exprKey (a translated L++ blueprint repeats them)
	damage     *damage            // what Parse's errors may have dropped (nil: nothing)
	opts       validateOptions
	eventEnvs  map[string]map[string]any // each event's environment, built once
	hintWork   int                       // candidates compared by suggest so far
	stateNames []string                  // the spec's state names, built once
	srcRoot    *yaml.Node                // the source's top mapping, parsed on the first need (writePos)
}

func (v *validator) add(sev mspec.Severity, p mspec.Pos, span int, hint, format string, args ...any) {
	v.diags = append(v.diags, mspec.Diagnostic{Severity: sev, File: v.spec.File, Pos: p, Span: span, Msg: fmt.Sprintf(format, args...), Hint: hint})
}

func (v *validator) errorf(p mspec.Pos, span int, hint, format string, args ...any) {
	v.add(mspec.SevError, p, span, hint, format, args...)
}

func (v *validator) header() {
	s := v.spec
	if s.Version != 0 && s.Version != mspec.FormatVersion {
		v.errorf(s.VersionPos, len(strconv.Itoa(s.Version)), fmt.Sprintf("this lppctl reads version %d", mspec.FormatVersion), "unsupported spec format version %d", s.Version)
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
	case v.initialIsFinal(s.State(s.Initial)):
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

// initialIsFinal reports whether init, the initial state, is a final state
// among others that does nothing else: one mistake (the wrong state named by
// initial:, or final: true on the first state) that header reports once. A
// final state with next or on_error is reported as that contradiction
// instead (final state "x" has next transitions), which names the cause.
func (v *validator) initialIsFinal(init *mspec.State) bool {
	return init.Final && len(v.spec.States) > 1 && len(init.Next) == 0 && init.OnError == nil
}

// keyOnLine reports whether the line of p starts with key (followed by a colon).
func keyOnLine(src []byte, p mspec.Pos, key string) bool {
	line := strings.TrimSpace(mspec.SourceLine(src, p.Line))
	return strings.HasPrefix(line, key+":")
}

// isQuotedAt reports whether the value written at p starts with a quote.
func isQuotedAt(src []byte, p mspec.Pos) bool {
	line := mspec.SourceLine(src, p.Line)
	return p.Col >= 1 && p.Col <= len(line) && (line[p.Col-1] == '"' || line[p.Col-1] == '\'')
}

// start returns the position of the spec's first key (its first line that is
// neither blank, a comment nor a document marker).
func (v *validator) start() mspec.Pos {
	for i := 0; i < mspec.LineCount(v.spec.Source); i++ {
		line := mspec.SourceLine(v.spec.Source, i+1)
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") || t == "---" || strings.HasPrefix(t, "%") {
			continue
		}
		return mspec.Pos{Line: i + 1, Col: len(line) - len(strings.TrimLeft(line, " \t")) + 1}
	}
	return mspec.Pos{Line: 1, Col: 1}
}

func (v *validator) stateHint(name string) string {
	if h := v.suggest(name, v.allStateNames()); h != "" {
		return h
	}
	return "states are: " + mspec.ListNames(v.allStateNames(), 12)
}

// allStateNames is the spec's state names, built once per validation.
func (v *validator) allStateNames() []string {
	if v.stateNames == nil {
		v.stateNames = v.spec.StateNames()
	}
	return v.stateNames
}

// hintBudget bounds the candidates that "did you mean" hints of one
// validation compare a name with: a spec with thousands of misspelt names
// among thousands of states validates in linear time, its later hints left
// out.
const hintBudget = 1_000_000

// suggest is didYouMean within the validation's hint budget ("" past it).
func (v *validator) suggest(name string, cands []string) string {
	if v.hintWork+len(cands) > hintBudget {
		return ""
	}
	v.hintWork += len(cands)
	return mspec.DidYouMeanHint(name, cands)
}

func (v *validator) varNames() []string {
	out := make([]string, 0, len(v.spec.Context))
	for _, cv := range v.spec.Context {
		out = append(out, cv.Name)
	}
	return out
}

func (v *validator) state(st *mspec.State) {
	if st.Do != "" {
		v.action(st)
	} else if (len(st.With) > 0 || st.WithPos.IsValid()) && !v.lostKey(st.Name, "do") {
		v.errorf(st.WithPos, len("with"), "add `do: ACTION`, or remove with:", "state %q has with: but no action (do:)", st.Name)
	}
	for _, a := range st.Set {
		v.assign(a)
	}
	// Without do:, with: says so already (add do:), as a lost do: does.
	if st.OnError != nil && st.Do == "" && !st.Final && len(st.With) == 0 && !st.WithPos.IsValid() && !v.lostKey(st.Name, "do") {
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
	v.stateOn(st)
}

// firstUnguarded returns the index of the first transition without a when
// (one whose when was given but could not be read, an error already, is not
// taken as unguarded), or -1.
func firstUnguarded(ts []*mspec.Transition) int {
	for i, t := range ts {
		if t.When == "" && !t.WhenPos.IsValid() {
			return i
		}
	}
	return -1
}

// transitionSpan underlines `to: NAME` (or the bare name) of a transition.
func transitionSpan(t *mspec.Transition) int {
	if t.ToPos.Line == t.Pos.Line && t.ToPos.Col >= t.Pos.Col {
		return t.ToPos.Col - t.Pos.Col + len(t.To)
	}
	return 1
}

func (v *validator) transition(t *mspec.Transition) {
	switch {
	case t.To == "" && isQuotedAt(v.spec.Source, t.ToPos): // `to: ""`; a null is Parse's
		v.errorf(t.ToPos, 2, "states are: "+mspec.ListNames(v.spec.StateNames(), 12), "transition to an empty state name")
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
