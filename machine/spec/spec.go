package spec

import "slices"

// FormatVersion is the spec format version this package reads (the `lpp` key).
const FormatVersion = 1

// Pos is a 1-based position in a spec file. The zero Pos means "unknown".
type Pos struct {
	Line int `json:"line"`
	Col  int `json:"col"`
}

// IsValid reports whether p points somewhere.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Spec is a decoded spec file.
type Spec struct {
	File        string // path as given to Load, used in diagnostics
	Source      []byte // the file's bytes, for snippets and hashing
	Version     int
	VersionPos  Pos
	Name        string
	NamePos     Pos
	Description string
	Context     []*Var   // in file order
	Initial     string   // name of the initial state
	InitialPos  Pos      // position of the initial value (or of the spec when missing)
	States      []*State // in file order
	Events      []*Event // the transitions of top-level events, in file order (several may share a name)
	// EventDecls holds one declaration per top-level `events:` key, in file
	// order: the event's name and its payload schema.
	EventDecls []*EventDecl
	Limits     Limits
	Invariants []*Condition // `invariants:`, in file order (see check_spec.go)
	// DropExtraPayload: a payload field no event declares is left out,
	// with a warning, rather than refused (`extra_payload_fields: drop`,
	// see payload_any.go).
	DropExtraPayload bool
	// GuardErrorsFalse: a guard whose evaluation fails is false, with a
	// warning on the step, rather than stopping the run (`guard_errors:
	// as_false`, see payload_any.go).
	GuardErrorsFalse bool

	vars   map[string]*Var
	states map[string]*State
}

// DefaultMaxTransitions bounds a run when neither the spec nor the caller does.
const DefaultMaxTransitions = 10000

// Limits bound a run. Zero values mean "use the runner's default".
type Limits struct {
	MaxTransitions int // transitions per run (counted across resumes)
	Pos            Pos
}

// Var is a typed context variable.
type Var struct {
	Name    string
	Type    Type
	Enum    []string // allowed values of a string variable (empty: any)
	Default any      // typed default (see Type.Zero); nil for a nullable variable with no value yet
	Doc     string
	// Nullable variables may hold null, "no value yet" (see nullable.go).
	Nullable    bool
	NullablePos Pos
	Pos         Pos // position of the variable's key
	TypePos     Pos
	DefPos      Pos // position of the default value (or of the key)
	EnumPos     Pos
	Range       *Range // `range: [lo, hi]` of an int variable, for the model checker (nil: none)
	// Input marks a variable a caller sets (`input: true`: a parent's
	// spec.run input, a --var): the model checker starts it from every value
	// of its domain instead of its default. Runs ignore it.
	Input    bool
	InputPos Pos
}

// State is one state of the machine.
type State struct {
	Name    string
	Pos     Pos // position of the state's key
	Do      string
	DoPos   Pos
	With    []*Param // action parameters, in file order
	WithPos Pos
	Set     []*Assign // applied after the action, before the guards
	Next    []*Transition
	OnError *Transition // route taken when the action fails (nil: the run fails)
	// On maps event names to the state's own transitions for them, in file
	// order. A state with On and no Next waits for an event (see Waits).
	On    []*OnEvent
	OnPos Pos // position of the `on` key (invalid when not given)
	Final bool
	Note  string
	// FinalRequires are the conditions a run must meet when it ends in this
	// final state (`final_requires:`), checked by the model checker.
	FinalRequires []*Condition
}

// OnEvent is one entry of a state's `on:`: an event and the transitions it
// may take from the state, tried in order (the first whose `when` holds fires).
type OnEvent struct {
	Event       string
	Pos         Pos // position of the event's name
	Transitions []*Transition
}

// Waits reports whether the state waits for an event: it is not final, has
// no `next`, and has `on:`. After its action and `set`, a waiting state
// whose pending events do not apply pauses the run until one is delivered.
func (st *State) Waits() bool { return !st.Final && len(st.Next) == 0 && st.OnPos.IsValid() }

// Param is one `with:` parameter given to a state's action.
type Param struct {
	Name  string
	Value any // decoded YAML value: string, int, float64, bool, []any, map[string]any
	Pos   Pos // position of the key
	VPos  Pos // position of the value
}

// Assign is one `set:` entry: a variable and the expression that gives its new value.
type Assign struct {
	Var     string
	Expr    string
	Pos     Pos // position of the variable name
	ExprPos Pos // position of the expression
}

// Transition is one entry of a state's `next` list (or its `on_error` route).
type Transition struct {
	To      string
	ToPos   Pos
	When    string // guard expression; "" means always
	WhenPos Pos
	Set     []*Assign
	Note    string
	Warn    string // printed (and journaled) when this transition fires
	Pos     Pos    // position of the transition itself
}

// Event is one transition of a top-level event (e.g. RESET) that moves the
// machine from any of its From states (all non-final states when From is
// empty). An event may have several, tried in file order.
type Event struct {
	Name    string
	Pos     Pos
	From    []string
	FromPos Pos
	To      string
	ToPos   Pos
	When    string
	WhenPos Pos
	Set     []*Assign
	Note    string
}

// EventDecl declares a top-level event: its name and the fields of its
// payload.
type EventDecl struct {
	Name       string
	Pos        Pos
	Payload    []*PayloadField // in file order
	PayloadPos Pos             // position of the `payload` key (invalid: the event declares no payload)
	Note       string
}

// HasPayload reports whether the event declares a payload schema.
func (d *EventDecl) HasPayload() bool { return d != nil && d.PayloadPos.IsValid() }

// Field returns the named payload field, or nil.
func (d *EventDecl) Field(name string) *PayloadField {
	if d == nil {
		return nil
	}
	for _, f := range d.Payload {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// PayloadField is one field of an event's payload: typed like a context
// variable. A required field must be given; an optional one that is not
// reads as its default (or its type's zero value).
type PayloadField struct {
	Var
	Required bool
}

// State returns the named state, or nil.
func (s *Spec) State(name string) *State {
	if s.states == nil {
		s.index()
	}
	return s.states[name]
}

// Var returns the named context variable, or nil.
func (s *Spec) Var(name string) *Var {
	if s.vars == nil {
		s.index()
	}
	return s.vars[name]
}

// Event returns the named event, or nil.
func (s *Spec) Event(name string) *Event {
	for _, e := range s.Events {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// EventDecl returns the declaration of a top-level event, or nil.
func (s *Spec) EventDecl(name string) *EventDecl {
	for _, d := range s.EventDecls {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// EventNames returns every event name the spec knows, sorted: those declared
// under `events:` and those of the states' `on:`.
func (s *Spec) EventNames() []string {
	var out []string
	for _, d := range s.EventDecls {
		out = AppendUnique(out, d.Name)
	}
	for _, st := range s.States {
		for _, on := range st.On {
			out = AppendUnique(out, on.Event)
		}
	}
	slices.Sort(out)
	return out
}

// EventsInto returns, sorted, the events that can move a run into state:
// those with a transition to it in some state's `on:` or under `events:`.
func (s *Spec) EventsInto(state string) []string {
	var out []string
	for _, st := range s.States {
		for _, on := range st.On {
			for _, t := range on.Transitions {
				if t.To == state {
					out = AppendUnique(out, on.Event)
				}
			}
		}
	}
	for _, e := range s.Events {
		if e.To == state {
			out = AppendUnique(out, e.Name)
		}
	}
	slices.Sort(out)
	return out
}

// StateNames returns the state names in file order.
func (s *Spec) StateNames() []string {
	out := make([]string, len(s.States))
	for i, st := range s.States {
		out[i] = st.Name
	}
	return out
}

func (s *Spec) index() {
	s.states = make(map[string]*State, len(s.States))
	for _, st := range s.States {
		if _, dup := s.states[st.Name]; !dup {
			s.states[st.Name] = st
		}
	}
	s.vars = make(map[string]*Var, len(s.Context))
	for _, v := range s.Context {
		if _, dup := s.vars[v.Name]; !dup {
			s.vars[v.Name] = v
		}
	}
}

// Transitions returns the state's transitions in evaluation order,
// followed by its on_error route when it has one, then the transitions of
// its `on:` events.
func (st *State) Transitions() []*Transition {
	if st.OnError == nil && len(st.On) == 0 {
		return st.Next
	}
	out := make([]*Transition, 0, len(st.Next)+1)
	out = append(out, st.Next...)
	if st.OnError != nil {
		out = append(out, st.OnError)
	}
	for _, on := range st.On {
		out = append(out, on.Transitions...)
	}
	return out
}

// Reserved names that every spec's expressions can read.
const (
	VarState     = "state"      // the current state's name
	VarLastError = "last_error" // text of the last action error ("" when none)
	// VarEvent is the event being delivered (`event.name`, `event.payload.x`),
	// readable in the `when` and `set` of an event's transitions only.
	VarEvent = "event"
)
