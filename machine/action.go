package machine

import (
	"context"
	"errors"
	"fmt"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// Handler runs an action. It reads its parameters and the run's context from
// c, writes results through c.SetVar and c.Memory, and returns an error when
// the action failed. Changes made through c are applied only when the handler
// returns nil: a failed (or paused) action leaves the run as it was, so it can
// be re-run from its start.
type Handler func(ctx context.Context, c *Call) error

// Action is a named action a spec's `do:` can call.
type Action struct {
	Name   string      // e.g. "llm.optimizer"
	Doc    string      // one line
	Params []ParamSpec // the `with:` parameters it accepts
	Writes []VarSpec   // the context variables it writes; a spec using it must declare them
	// WritesFor, when set, names the context variables one use of the action
	// writes beyond Writes, from the state's `with:` parameters as decoded
	// from YAML (e.g. a general action's `output: summary`). Validation checks
	// that the spec declares them, and the model checker treats them as Writes.
	// It must not fail: a malformed parameter is reported by Validate and
	// contributes no variable here.
	WritesFor func(params map[string]any) []VarSpec
	// Needs names the run memory entries the action reads and cannot do
	// without (e.g. "plan"); Provides, those it puts there when it succeeds.
	// Validation checks that every path from the initial state to a state
	// whose action needs an entry passes a state whose action provides it.
	Needs    []string
	Provides []string
	// NeverFails declares that the handler returns no error of its own:
	// the action fails only when one of its parameters cannot be evaluated
	// or is refused (before the handler runs), or on an interrupt, which
	// on_error does not take. The model checker then takes a state's
	// on_error route only for such a parameter, and validate warns of an
	// on_error route that nothing can take.
	NeverFails bool
	Run        Handler
}

// WritesOf returns every context variable a state's use of the action
// writes: its static Writes followed by what WritesFor derives from the
// state's `with:` parameters, without duplicates (the first one wins).
func (a *Action) WritesOf(st *mspec.State) []VarSpec {
	if a.WritesFor == nil {
		return a.Writes
	}
	params := make(map[string]any, len(st.With))
	for _, p := range st.With {
		params[p.Name] = p.Value
	}
	out := append([]VarSpec(nil), a.Writes...)
	seen := make(map[string]bool, len(out))
	for _, w := range out {
		seen[w.Name] = true
	}
	for _, w := range a.WritesFor(params) {
		if !seen[w.Name] {
			seen[w.Name] = true
			out = append(out, w)
		}
	}
	return out
}

// WritesOfIn is WritesOf for the spec in specDir: a parameter of type any
// given as the name of a JSON or YAML file (an output schema given as a
// file) is read, when found as the run finds it (mspec.LocateFile from
// specDir, inside the project root root) and it holds one, as the object
// the file holds, so that what the action declares of it is as if it were
// inline. A file that is missing or unreadable leaves the name as it is
// (lppctl validate reports it).
func (a *Action) WritesOfIn(st *mspec.State, specDir, root string) []VarSpec {
	if a.WritesFor == nil {
		return a.Writes
	}
	with := make([]*mspec.Param, len(st.With))
	for i, p := range st.With {
		with[i] = p
		name, isName := p.Value.(string)
		ext := strings.ToLower(filepath.Ext(name))
		if ps := a.Param(p.Name); !isName || ps == nil || ps.Type != mspec.TypeAny || (ext != ".json" && ext != ".yaml" && ext != ".yml") {
			continue
		}
		found, _ := mspec.ResolveFile(name, specDir, root)
		if found == "" {
			continue
		}
		src, err := mspec.ReadNamedFile(found, specDir, root)
		var doc map[string]any
		if err == nil && yaml.Unmarshal(src, &doc) == nil && doc != nil {
			cp := *p
			cp.Value = doc
			with[i] = &cp
		}
	}
	read := *st
	read.With = with
	return a.WritesOf(&read)
}

// ParamSpec declares one parameter of an action.
type ParamSpec struct {
	Name     string
	Type     mspec.Type // int, float, bool, string, list, map, any, expr, or file
	Required bool
	Default  any // used when the spec leaves the parameter out
	Doc      string
	Enum     []string // allowed values of a string parameter
	// Event marks a string parameter that names one of the spec's events
	// (emit's event): validate checks that the event is defined.
	Event bool
	// PayloadOf, on an expr_map parameter, names the Event parameter whose
	// event the map is the payload of (emit's payload): validate checks its
	// keys and the types of its expressions against the event's payload.
	PayloadOf string
	// Format is what a string parameter's text must look like (a duration);
	// such a parameter may also be written as an expression (see Format).
	Format mspec.Format
	// ExprIn, on a text parameter, names the expression parameter whose
	// result is appended to the text (fail's and agent.abort's value):
	// validate refuses text that reads as an expression (a string literal,
	// a context variable), which would be shown as written, and says to
	// move it there.
	ExprIn string
}

// VarSpec declares a context variable an action writes.
type VarSpec struct {
	Name string
	Type mspec.Type
	Doc  string
	// NotNull, on a write of type any, says the action never writes null
	// through it (it parses a value as the variable's type, as env.read
	// does): the model checker then gives a nullable variable no null there.
	NotNull bool
	// Values, when set, are the only values the action writes through it
	// (a status the action reports as one of a few words): the model checker
	// gives the variable these, not every value of its domain, so that no
	// counterexample takes a value no run can get.
	Values []any
}

// Registry holds the actions a spec can use. It is safe for concurrent use.
type Registry struct {
	mu      sync.RWMutex
	actions map[string]*Action
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{actions: map[string]*Action{}} }

// Register adds an action. It fails when the name is taken or the action is malformed.
func (r *Registry) Register(a Action) error {
	if a.Name == "" || a.Run == nil {
		return fmt.Errorf("cannot register action %q: it needs a name and a handler", a.Name)
	}
	seen := map[string]bool{}
	for _, p := range a.Params {
		if seen[p.Name] {
			return fmt.Errorf("cannot register action %q: duplicate parameter %q", a.Name, p.Name)
		}
		seen[p.Name] = true
		if p.Format != "" {
			if p.Type != mspec.TypeString {
				return fmt.Errorf("cannot register action %q: parameter %q has a format but its type is %s, not string", a.Name, p.Name, p.Type)
			}
			if _, err := p.Format.Value(""); err != nil && !errors.Is(err, mspec.ErrFormat) {
				return fmt.Errorf("cannot register action %q: parameter %q: %w", a.Name, p.Name, err)
			}
		}
		if p.Default != nil {
			if _, err := p.Type.Coerce(p.Default); err != nil {
				return fmt.Errorf("cannot register action %q: default of %q: %w", a.Name, p.Name, err)
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.actions[a.Name]; dup {
		return fmt.Errorf("cannot register action %q: already registered", a.Name)
	}
	cp := a
	r.actions[a.Name] = &cp
	return nil
}

// MustRegister is Register for package initialisation; it panics on error.
func (r *Registry) MustRegister(a Action) {
	if err := r.Register(a); err != nil {
		panic(err)
	}
}

// Lookup returns the named action, or nil.
func (r *Registry) Lookup(name string) *Action {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.actions[name]
}

// Actions returns every registered action sorted by name.
func (r *Registry) Actions() []*Action {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*Action, 0, len(r.actions))
	for _, a := range r.actions {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names returns every registered action name, sorted.
func (r *Registry) Names() []string {
	acts := r.Actions()
	out := make([]string, len(acts))
	for i, a := range acts {
		out[i] = a.Name
	}
	return out
}

// Param returns the named parameter spec, or nil.
func (a *Action) Param(name string) *ParamSpec {
	for i := range a.Params {
		if a.Params[i].Name == name {
			return &a.Params[i]
		}
	}
	return nil
}

// Call is what a Handler sees of the run: its parameters, the context
// variables, the run memory and the person's answer when resuming a pause.
type Call struct {
	RunID  string
	State  string // the state whose action runs
	Action string
	Seq    int // number of transitions the run has made so far
	Params map[string]any
	// Input is the person's answer when the run resumes from a pause this
	// action asked for; nil otherwise.
	Input *Input

	run    *Run
	vars   map[string]any // staged variable writes
	mem    *memTx
	notes  []mspec.Note
	events []emitted
}

// emitted is an event an action sends to its own run.
type emitted struct {
	name    string
	payload map[string]any
}

// Param returns a parameter's value (after defaults and expression evaluation).
func (c *Call) Param(name string) any { return c.Params[name] }

// String returns a string parameter ("" when absent).
func (c *Call) String(name string) string {
	s, _ := c.Params[name].(string)
	return s
}

// Int returns an int parameter (0 when absent).
func (c *Call) Int(name string) int {
	n, _ := c.Params[name].(int)
	return n
}

// Bool returns a bool parameter (false when absent).
func (c *Call) Bool(name string) bool {
	b, _ := c.Params[name].(bool)
	return b
}

// Var returns a context variable as the action sees it (its own staged writes included).
func (c *Call) Var(name string) any {
	if v, ok := c.vars[name]; ok {
		return v
	}
	c.run.handOut(name) // the action may keep it
	return c.run.env[name]
}

// Vars returns a copy of every context variable (staged writes included).
func (c *Call) Vars() map[string]any {
	c.run.handOutAll() // the action may keep them
	out := make(map[string]any, len(c.run.env))
	for k, v := range c.run.env {
		out[k] = v
	}
	for k, v := range c.vars {
		out[k] = v
	}
	return out
}

// SetVar stages a write of a declared context variable; the value is
// converted to the variable's type. It is applied when the action succeeds.
func (c *Call) SetVar(name string, value any) error {
	v := c.run.m.spec.Var(name)
	if v == nil {
		return fmt.Errorf("cannot set %q: the spec declares no such context variable", name)
	}
	val, err := v.Coerce(value) // null into a nullable variable
	if err != nil {
		return fmt.Errorf("cannot set %q: %w", name, err)
	}
	if f, bad := mspec.NotFinite(val); bad {
		return fmt.Errorf("cannot set %q: %v is %w", name, f, mspec.ErrNotFinite)
	}
	if where, k, bad := mspec.TimeInside(val); bad {
		return fmt.Errorf("cannot set %q: it holds %s at %s (%w), which the run's journal would store %s", name, k.What, where, mspec.ErrTimeInValue, k.Journaled)
	}
	if s, ok := val.(string); ok && len(v.Enum) > 0 && !mspec.Contains(v.Enum, s) {
		return fmt.Errorf("cannot set %q: %q is not one of %s", name, s, mspec.QuoteList(v.Enum))
	}
	if c.vars == nil {
		c.vars = map[string]any{}
	}
	c.vars[name] = val
	return nil
}

// Memory returns the run memory, as seen and changed by this call.
func (c *Call) Memory() MemoryTx {
	if c.mem == nil {
		c.mem = newMemTx(c.run.mem)
	}
	return c.mem
}

// Notef records a note about what the action did; observers see it with the transition.
func (c *Call) Notef(format string, args ...any) {
	c.notes = append(c.notes, mspec.Note{Text: fmt.Sprintf(format, args...)})
}

// Warnf records a warning: something is wrong but the action goes on (a
// note of severity NoteWarning; observers see it with the transition, and
// quiet progress output shows it).
func (c *Call) Warnf(format string, args ...any) {
	c.notes = append(c.notes, mspec.Note{Text: fmt.Sprintf(format, args...), Severity: mspec.NoteWarning})
}

// Emit sends a named event to the run; it fires (when it applies in the
// current state) instead of the state's `next` list, and is dropped when it
// does not. It is checked when the action returns: an event the spec does
// not know fails the action.
func (c *Call) Emit(event string) { c.EmitEvent(event, nil) }

// EmitEvent is Emit with a payload (e.g. an action's result), checked
// against the event's declared payload fields when the action returns: a
// payload that fails them fails the action.
func (c *Call) EmitEvent(event string, payload map[string]any) {
	c.events = append(c.events, emitted{name: event, payload: payload})
}

// Event returns the event that moved the run into the state whose action
// runs, and its payload (defaults filled in); "" when the state was entered
// otherwise (the start, next, on_error).
func (c *Call) Event() (name string, payload map[string]any) {
	if t := c.run.trigger; t != nil {
		return t.name, t.payload
	}
	return "", nil
}

// Spec returns the spec of the run the action belongs to.
func (c *Call) Spec() *mspec.Spec { return c.run.m.spec }

// Input is a person's answer to a pause.
type Input struct {
	Kind string `json:"kind"`           // "approve", "reject", "answer", or an action-defined kind
	Text string `json:"text,omitempty"` // free text (guidance, feedback, an edited plan)
}

// PauseError is returned by an action that needs a person's decision and
// cannot ask for it now (no terminal, or --no-input). The run stops durably in
// the current state; resuming with an Input re-runs the action with c.Input set.
type PauseError struct {
	State   string   `json:"state"`
	Kind    string   `json:"kind"`    // e.g. "approval", "intervention", "feedback"
	Prompt  string   `json:"prompt"`  // what the person is asked
	Options []string `json:"options"` // the answers the action accepts (e.g. approve, reject, answer); the events, for Kind "event"
	// Events describes, for a run that waits for an event (Kind "event"),
	// each event it accepts and its payload fields.
	Events []EventInfo `json:"events,omitempty"`
}

func (e *PauseError) Error() string {
	return fmt.Sprintf("paused in state %q for %s: %s", e.State, e.Kind, e.Prompt)
}

// Pause returns a *PauseError for the calling action.
func Pause(kind, prompt string, options ...string) error {
	return &PauseError{Kind: kind, Prompt: prompt, Options: options}
}

// AsPause reports whether err is (or wraps) a pause.
func AsPause(err error) (*PauseError, bool) {
	var p *PauseError
	ok := errors.As(err, &p)
	return p, ok
}

// paramNames lists an action's parameter names for "did you mean" hints.
func (a *Action) ParamNames() []string {
	out := make([]string, len(a.Params))
	for i, p := range a.Params {
		out[i] = p.Name
	}
	return out
}

// Signature renders the action's parameters on one line, e.g. "message: string (required), level: string = info".
func (a *Action) Signature() string {
	parts := make([]string, 0, len(a.Params))
	for _, p := range a.Params {
		s := p.Name + ": " + string(p.Type)
		if p.Format != "" {
			s += " (" + string(p.Format) + ")"
		}
		if p.Required {
			s += " (required)"
		} else if p.Default != nil {
			s += fmt.Sprintf(" = %v", p.Default)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// FileParams returns the files that the file parameters (TypeFile) of the
// spec's actions name, given or defaulted, resolved with ResolveFile against
// the spec's folder and root, in file order without duplicates. A parameter
// whose file cannot be found is left out (Validate reports it).
func FileParams(spec *mspec.Spec, reg *Registry, root string) []string {
	var out []string
	for _, name := range fileParamNames(spec, reg) {
		if found, _ := mspec.ResolveFile(name, filepath.Dir(spec.File), root); found != "" {
			out = mspec.AppendUnique(out, found)
		}
	}
	return out
}

// FileParamCandidates returns, for every file parameter of the spec's
// actions, each path ResolveFile tries up to and including the file it finds
// (all of them when none exists): the paths where a new file would change
// what the actions read.
func FileParamCandidates(spec *mspec.Spec, reg *Registry, root string) []string {
	var out []string
	for _, name := range fileParamNames(spec, reg) {
		_, tried := mspec.ResolveFile(name, filepath.Dir(spec.File), root)
		for _, p := range tried {
			out = mspec.AppendUnique(out, p)
		}
	}
	return out
}

// fileParamNames returns the values of the spec's file parameters, given or
// defaulted, in file order.
func fileParamNames(spec *mspec.Spec, reg *Registry) []string {
	if spec == nil {
		return nil
	}
	var out []string
	for _, st := range spec.States {
		a := reg.Lookup(st.Do)
		if a == nil {
			continue
		}
		for _, ps := range a.Params {
			if ps.Type != mspec.TypeFile {
				continue
			}
			val := ps.Default
			for _, p := range st.With {
				if p.Name == ps.Name {
					val = p.Value
				}
			}
			if name, _ := val.(string); name != "" {
				out = append(out, name)
			}
		}
	}
	return out
}
