// Package lpp reads, checks, translates, draws and writes L++ blueprints:
// the JSON state machines of the L++ tool family (transitions, gates and
// actions over a typed context; see docs/lpp.md).
//
// Load and Parse decode a blueprint with the position of every key and
// value, and report every problem as a positioned diagnostic (never a
// panic). ToSpecYAML translates a blueprint into an lppctl spec (YAML with
// comments), gate.Translate translates one gate expression from L++'s
// Python-like dialect into expr, and Mermaid draws a blueprint.
//
// The package is format translation only: it knows the machine package's
// spec model, nothing of LLMs, tools or skills.
package lpp

import (
	"github.com/lppctl/lppctl/machine/lpp/jsonpos"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Schema versions this package reads.
const (
	SchemaV01Prefix = "lpp/v0.1." // lpp/v0.1.x: terminal_states is a list of ids
	SchemaV02       = "lpp/v0.2.0"
)

// Blueprint is a decoded L++ blueprint. Lists keep file order.
type Blueprint struct {
	File   string // path as given to Load, used in diagnostics
	Source []byte // the file's bytes, for snippets

	Schema    string
	SchemaPos mspec.Pos
	ID        string
	Name      string
	Version   string
	// IdentJSON holds the JSON text of an id, name or version that is not
	// a string (lpp reads any JSON value there; ID, Name and Version hold
	// the same text, or "" for null), to write it back as it was.
	IdentJSON   map[string]string
	Description string

	Context     []*Property
	States      []*State
	Entry       string
	EntryPos    mspec.Pos
	Terminals   []*Terminal
	TerminalMap bool // terminal_states is an object of contracts (v0.2.0), not a list of ids (v0.1.x)
	Gates       []*Gate
	Actions     []*Action
	Transitions []*Transition

	// Display is the `display` value as written (their UI's presentation
	// rules): kept, never interpreted, written back unchanged.
	Display string
	// Extra holds the other top-level keys, as written, in file order:
	// kept and written back, never interpreted.
	Extra []RawMember

	// Warnings holds what Parse found odd but could translate.
	Warnings mspec.Diagnostics

	// Orig maps the internal name of a state, event or property whose
	// blueprint id is not an lppctl identifier, or is a name lppctl
	// reserves, to the id as the blueprint spells it (see Spelling).
	Orig map[string]string
	// ReadsState: a gate a transition uses reads `_state` (the
	// translation then keeps the state in stateVar).
	ReadsState bool
	// propNames maps each property's blueprint name to its internal one.
	propNames map[string]string
}

// InternalName returns the internal name of a state, event or property
// the blueprint spells orig (orig itself when the import kept it).
func (bp *Blueprint) InternalName(orig string) string {
	for n, o := range bp.Orig {
		if o == orig {
			return n
		}
	}
	return orig
}

// Spelling returns the blueprint's own spelling of an internal name.
func (bp *Blueprint) Spelling(name string) string {
	if o, ok := bp.Orig[name]; ok {
		return o
	}
	return name
}

// RawMember is a key and its JSON value as written.
type RawMember struct {
	Key  string
	JSON string
}

// Property is one variable of the context_schema. Every property is
// nullable in lppctl (L++ context values are Python values): it starts as
// null unless it has a default.
type Property struct {
	Name        string // an identifier (Blueprint.Spelling gives the blueprint's name)
	Type        string // string, number, integer, boolean, array, object
	Description string
	Enum        []any
	Default     any
	HasDefault  bool
	Pos         mspec.Pos // position of the key
	TypePos     mspec.Pos
	// Implicit: not declared in context_schema, but used by the blueprint
	// (lpp creates it when an action writes it; a gate reading it while it
	// is absent is false).
	Implicit bool
	// Flag, of an implicit property a gate a transition uses reads, is
	// the hidden bool variable that says whether the property exists in
	// lpp's context yet (lpp_defined_NAME, false at the start; every write
	// sets it: a set, a compute output, the caller's --var). A gate that
	// reaches the property while it does not exist is false, as in lpp
	// (docs/lpp.md, "A name nothing has written yet").
	Flag string
	// TypeSrc is the JSON text of a "type" lppctl read as Type though it is
	// not one of L++'s six ("int", ["string", "null"], "any"; "" for one
	// that is), written back by export; Untyped: Type comes from the
	// property's use or default, not from its "type" (absent, or none of
	// the six).
	TypeSrc string
	Untyped bool
}

// State is one state of a blueprint.
type State struct {
	ID          string // an identifier (Blueprint.Spelling gives the blueprint's id)
	Description string
	Name        string // the state's display name ("name")
	Pos         mspec.Pos
	// TerminalOnly: the state is a key of terminal_states only (v0.2.0:
	// lpp's loader creates it from its contract).
	TerminalOnly bool
}

// Terminal is one terminal state and its contract (v0.2.0).
type Terminal struct {
	ID          string
	Description string
	Outputs     []*OutputField // output_schema, in file order
	Invariants  []string       // invariants_guaranteed
	Pos         mspec.Pos
	Raw         string // the contract as written ("" for the v0.1.x list form)
}

// OutputField is one field of a terminal's output_schema.
type OutputField struct {
	Name    string
	Type    string
	NonNull bool
	Pos     mspec.Pos
}

// Gate types.
const (
	GateExpression = "expression"
	GateCompute    = "compute"
)

// Gate is a named condition a transition requires.
type Gate struct {
	ID          string
	Type        string // GateExpression or GateCompute
	Expression  string // the Python-like source (expression gates)
	ComputeUnit string // "ns:op" (compute gates)
	Pos         mspec.Pos
	// Used: a transition names the gate (the others are never evaluated
	// for a transition: translated when they can be, warned about when not).
	Used bool

	// Expr is the expression translated to expr (expression gates), in
	// terms of the context and `event`.
	Expr string

	exprNode *jsonpos.Node // the expression's JSON string, for positions inside it
}

// Action types.
const (
	ActionSet     = "set"
	ActionCompute = "compute"
	ActionEmit    = "emit"
)

// Action is a named effect a transition runs, in order.
type Action struct {
	ID   string
	Type string // ActionSet, ActionCompute or ActionEmit
	Pos  mspec.Pos

	// set
	Target    string
	Value     any  // a literal (HasValue)
	HasValue  bool // value given (it may be null)
	ValueFrom string

	// Skipped: a compute action lpp skips (no compute_unit, or a unit
	// without exactly one colon): a no-op. Unknown: a type lpp's loader
	// refuses (assign, slot, ...), refused when a transition uses it.
	// BadInput: an input_map value that is not a string (lpp cannot run
	// it), refused when a transition uses it.
	Skipped  bool
	Unknown  bool
	TypePos  mspec.Pos
	BadInput mspec.Pos
	// nonFinite: the set value holds a number lppctl cannot carry (NaN,
	// Infinity, 1e400; see nonfinite.go), refused when a transition runs it.
	nonFinite *jsonpos.Node

	// compute
	ComputeUnit string
	InputMap    []KV // parameter → context name or event.payload.X
	OutputMap   []KV // context variable → result key

	// emit
	Event      string
	PayloadMap []KV
}

// KV is one entry of an ordered string map.
type KV struct {
	Key   string
	Value string
}

// Transition is one entry of `transitions`, in array order.
type Transition struct {
	ID       string
	Written  string // the id as written, when it repeats an earlier one's (ID is then ID_2)
	From     string // a state id or "*"
	To       string
	Event    string // on_event
	Gates    []string
	Actions  []string
	Pos      mspec.Pos
	FromPos  mspec.Pos
	ToPos    mspec.Pos
	EventPos mspec.Pos
}

// Any is the `from` of a transition that applies in every state.
const Any = "*"

// Property returns the named property, or nil.
func (bp *Blueprint) Property(name string) *Property {
	for _, p := range bp.Context {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// State returns the named state, or nil.
func (bp *Blueprint) State(id string) *State {
	for _, s := range bp.States {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// Gate returns the named gate, or nil.
func (bp *Blueprint) Gate(id string) *Gate {
	for _, g := range bp.Gates {
		if g.ID == id {
			return g
		}
	}
	return nil
}

// Action returns the named action, or nil.
func (bp *Blueprint) Action(id string) *Action {
	for _, a := range bp.Actions {
		if a.ID == id {
			return a
		}
	}
	return nil
}

// Terminal returns the terminal contract of a state, or nil when the state
// is not terminal.
func (bp *Blueprint) Terminal(id string) *Terminal {
	for _, t := range bp.Terminals {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// IsTerminal reports whether the state ends a run.
func (bp *Blueprint) IsTerminal(id string) bool { return bp.Terminal(id) != nil }
