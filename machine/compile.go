package machine

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/expr-lang/expr/vm"
	"github.com/looplab/fsm"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Machine is a spec compiled against a registry: every expression compiled
// once, every action resolved. It is immutable and safe to share between runs.
type Machine struct {
	spec   *mspec.Spec
	reg    *Registry
	States map[string]*Cstate
	Events map[string]*Cevent // every event the spec knows, by name
	fsmEvs []fsm.EventDesc
}

type Cstate struct {
	St      *mspec.State
	name    any // st.Name, boxed once for the env's `state`
	Action  *Action
	params  []cparam
	Set     []Cassign
	Next    []*Ctrans
	OnError *Ctrans
	On      map[string][]*Ctrans // the state's own transitions per event, in order
}

type cparam struct {
	name  string
	value any                    // literal value, or nil when prog or progs is set
	prog  *vm.Program            // for expr parameters
	progs map[string]*vm.Program // for expr_map parameters
	src   string                 // the expression's text, for run-time errors
	at    mspec.Pos              // where it starts in the spec
	// format the expression's value must have (a string parameter with a
	// format written as an expression); the action receives its canonical text
	format mspec.Format
	reads  []string // the map variables prog or progs read (see Run.escaped)
}

type Cassign struct {
	V    *mspec.Var
	Prog *vm.Program
	tail *vm.Program   // for `xs: concat(xs, TAIL)`, TAIL (see appendTail)
	text *vm.Program   // for `s: s + PART + ...`, the parts as a list (see textParts)
	A    *mspec.Assign // the set entry, for run-time errors
	// keys, for `m: merge(m, PATCH)`, is PATCH; for `m: omit(m, KEYS...)`
	// (omit set), the keys as a list (see mapKeysProg).
	keys      *vm.Program
	omit      bool
	reads     []string // the map variables Prog reads (see Run.escaped)
	keysReads []string // those keys reads
}

// ctrans is a compiled transition: of a state's next (index ≥ 0), its
// on_error route (index -1), its on: or a top-level event (event set).
type Ctrans struct {
	T      *mspec.Transition
	Index  int    // position in next or in the event's list (-1 for on_error)
	Via    string // "next[i]", "on_error", "on NAME[i]" or "event NAME", for records
	Guard  *vm.Program
	Set    []Cassign
	fsmEv  string   // the looplab/fsm event that makes this move
	reads  []string // context names the guard reads, for "no transition" messages
	Target string
	event  string          // the event it answers ("" for next and on_error)
	from   map[string]bool // a top-level event's transition: the states it applies in (nil: every non-final state)
	Global bool            // a top-level event's transition (from events:)
}

// Compile resolves a spec's actions and compiles its expressions. The spec
// should have passed Validate; Compile reports the first problems it meets as
// diagnostics (wrapped in an error that wraps ErrInvalidSpec).
func Compile(spec *mspec.Spec, reg *Registry, opts ...CompileOption) (*Machine, error) {
	c := &compiler{spec: spec, reg: reg, env: mspec.TypeEnv(spec)}
	for _, o := range opts {
		o(c)
	}
	m := c.compile()
	if err := c.diags.Err(); err != nil {
		return nil, err
	}
	return m, nil
}

// CompileOption configures Compile.
type CompileOption func(*compiler)

// WithExprClock makes the expressions' now() read now instead of the wall
// clock (WithClock sets the records' times). An engine that evaluates a
// run's expressions again to rebuild it (a replay) gives the clock that
// returns the times of the first evaluation.
func WithExprClock(now func() time.Time) CompileOption {
	return func(c *compiler) { c.env = mspec.EnvWithClock(c.env, now) }
}

type compiler struct {
	spec  *mspec.Spec
	reg   *Registry
	env   map[string]any
	diags mspec.Diagnostics
	progs map[progKey]*vm.Program    // what compiled without error (see program)
	envs  map[uintptr]map[string]any // the environments progs's keys name, held so no other takes their address
}

// progKey names a compiled expression: what it compiles to ("guard", or a
// set's type), its text, and the environment it compiles in, by identity
// (a compilation changes none of its environments once made).
type progKey struct {
	env  uintptr
	what string
	src  string
}

// program returns the program compile makes of src in env, compiling it
// once: the same guard or set written in several states (as generated
// specs and translated blueprints do) is one program, which a run and a
// check treat as they would its copies (programs are not changed).
func (c *compiler) program(env map[string]any, what, src string, compile func() (*vm.Program, error)) (*vm.Program, error) {
	key := progKey{env: reflect.ValueOf(env).Pointer(), what: what, src: src}
	if p, ok := c.progs[key]; ok {
		return p, nil
	}
	p, err := compile()
	if err == nil {
		if c.progs == nil {
			c.progs, c.envs = map[progKey]*vm.Program{}, map[uintptr]map[string]any{}
		}
		c.progs[key], c.envs[key.env] = p, env
	}
	return p, err
}

func (c *compiler) errorf(p mspec.Pos, format string, args ...any) {
	c.diags = append(c.diags, mspec.Diagnostic{Severity: mspec.SevError, File: c.spec.File, Pos: p, Msg: fmt.Sprintf(format, args...)})
}

func (c *compiler) compile() *Machine {
	spec := c.spec
	m := &Machine{spec: spec, reg: c.reg, States: map[string]*Cstate{}, Events: map[string]*Cevent{}}
	if spec.State(spec.Initial) == nil {
		c.errorf(spec.InitialPos, "initial state %q is not defined", spec.Initial)
	}
	c.declareEvents(m)
	for _, st := range spec.States {
		cs := &Cstate{St: st, name: st.Name}
		m.States[st.Name] = cs
		if st.Do != "" {
			cs.Action = c.reg.Lookup(st.Do)
			if cs.Action == nil {
				c.errorf(st.DoPos, "unknown action %q", st.Do)
			} else {
				cs.params = c.params(st, cs.Action)
			}
		}
		cs.Set = c.assigns(st.Set, c.env)
		for i, t := range st.Next {
			ct := c.transition(t, i, c.env)
			cs.Next = append(cs.Next, ct)
			m.addMove(ct, st.Name)
		}
		if st.OnError != nil {
			cs.OnError = c.transition(st.OnError, -1, c.env)
			m.addMove(cs.OnError, st.Name)
		}
		c.stateEvents(m, cs)
	}
	c.globalEvents(m)
	return m
}

// addMove declares the looplab/fsm event that moves from state along ct.
func (m *Machine) addMove(ct *Ctrans, from ...string) {
	if len(from) > 0 {
		m.fsmEvs = append(m.fsmEvs, fsm.EventDesc{Name: ct.fsmEv, Src: from, Dst: ct.Target})
	}
}

func (c *compiler) transition(t *mspec.Transition, index int, env map[string]any) *Ctrans {
	ct := &Ctrans{T: t, Index: index, Via: fmt.Sprintf("next[%d]", index), Target: t.To, Set: c.assigns(t.Set, env)}
	if index < 0 {
		ct.Via = "on_error"
	}
	ct.fsmEv = ct.Via
	if c.spec.State(t.To) == nil {
		c.errorf(t.ToPos, "transition to undefined state %q", t.To)
	}
	if t.When != "" {
		ct.Guard = c.guard(t.When, t.WhenPos, env)
		ct.reads = mspec.Identifiers(ct.Guard)
	}
	return ct
}

func (c *compiler) guard(src string, at mspec.Pos, env map[string]any) *vm.Program {
	p, err := c.program(env, "guard", src, func() (*vm.Program, error) { return mspec.CompileGuard(src, env) })
	if err != nil {
		e := mspec.LocateExprError(err, at)
		c.errorf(e.Pos, "guard %q: %s", src, e.Msg)
		return nil
	}
	return p
}

func (c *compiler) assigns(as []*mspec.Assign, env map[string]any) []Cassign {
	out := make([]Cassign, 0, len(as))
	for _, a := range as {
		v := c.spec.Var(a.Var)
		if v == nil {
			c.errorf(a.Pos, "set: unknown context variable %q", a.Var)
			continue
		}
		p, err := c.program(env, fmt.Sprintf("set %s %v", v.Type, v.Nullable), a.Expr, func() (*vm.Program, error) { return mspec.CompileVarValue(a.Expr, v, env) })
		if err != nil {
			e := mspec.LocateExprError(err, a.ExprPos)
			c.errorf(e.Pos, "set %s: %s", a.Var, e.Msg)
			continue
		}
		ca := Cassign{V: v, Prog: p, tail: appendTail(a.Expr, v, env), text: textParts(a.Expr, v, env), A: a, reads: mapReads(p, c.spec)}
		if ca.keys, ca.omit = mapKeysProg(a.Expr, v, env); ca.keys != nil {
			ca.keysReads = mapReads(ca.keys, c.spec)
		}
		out = append(out, ca)
	}
	return out
}

func (c *compiler) params(st *mspec.State, a *Action) []cparam {
	given := map[string]*mspec.Param{}
	for _, p := range st.With {
		given[p.Name] = p
	}
	out := make([]cparam, 0, len(a.Params))
	for _, ps := range a.Params {
		p, ok := given[ps.Name]
		if !ok {
			if ps.Required {
				c.errorf(st.DoPos, "action %q needs parameter %q", a.Name, ps.Name)
			}
			if ps.Default != nil {
				v, _ := ps.Type.Coerce(ps.Default)
				out = append(out, cparam{name: ps.Name, value: v})
			}
			continue
		}
		if ps.Type == mspec.TypeExprMap {
			if progs := c.exprMap(a, ps, p); progs != nil {
				out = append(out, cparam{name: ps.Name, progs: progs})
			}
			continue
		}
		if src, ok := mspec.ExprSource(p.Value); ok && ps.Format != "" && !ps.Format.Literal(src) {
			prog, err := mspec.CompileValue(src, mspec.TypeAny, c.env)
			if err != nil {
				c.errorf(p.VPos, "parameter %q of action %q: %q is not %s, nor an expression that gives one", ps.Name, a.Name, src, ps.Format.Describe())
				continue
			}
			out = append(out, cparam{name: ps.Name, prog: prog, src: src, at: mspec.ExprStart(c.spec.Source, p.VPos), format: ps.Format})
			continue
		}
		if ps.Type == mspec.TypeExpr {
			src, ok := mspec.ExprSource(p.Value)
			if !ok {
				c.errorf(p.VPos, "parameter %q of action %q must be an expression, not %s", ps.Name, a.Name, mspec.DescribeValue(p.Value))
				continue
			}
			prog, err := mspec.CompileValue(src, mspec.TypeAny, c.env)
			if err != nil {
				e := mspec.LocateExprError(err, p.VPos)
				c.errorf(e.Pos, "parameter %q: %s", ps.Name, e.Msg)
				continue
			}
			out = append(out, cparam{name: ps.Name, prog: prog, src: src, at: mspec.ExprStart(c.spec.Source, p.VPos)})
			continue
		}
		v, err := ps.Type.Coerce(p.Value)
		if err != nil {
			c.errorf(p.VPos, "parameter %q of action %q: %v", ps.Name, a.Name, err)
			continue
		}
		out = append(out, cparam{name: ps.Name, value: v})
	}
	for _, p := range st.With {
		if a.Param(p.Name) == nil {
			c.errorf(p.Pos, "action %q has no parameter %q", a.Name, p.Name)
		}
	}
	for i := range out {
		p := &out[i]
		if p.prog != nil {
			p.reads = mapReads(p.prog, c.spec)
		}
		for _, k := range slices.Sorted(maps.Keys(p.progs)) {
			p.reads = append(p.reads, mapReads(p.progs[k], c.spec)...)
		}
	}
	return out
}

// Spec returns the compiled spec.
func (m *Machine) Spec() *mspec.Spec { return m.spec }

// Registry returns the registry the machine was compiled against.
func (m *Machine) Registry() *Registry { return m.reg }

// guardsSaw renders the values the guards of a state read, for the "no
// transition holds" error.
func GuardsSaw(cs *Cstate, env map[string]any) string {
	var parts []string
	for _, ct := range cs.Next {
		if ct.Guard == nil {
			continue
		}
		var vals []string
		for _, name := range ct.reads {
			if v, ok := env[name]; ok {
				vals = append(vals, fmt.Sprintf("%s=%s", name, mspec.FormatValue(v)))
			}
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", ct.T.When, strings.Join(vals, ", ")))
	}
	return strings.Join(parts, "; ")
}

// exprMap compiles an expr_map parameter: each value an expression.
func (c *compiler) exprMap(a *Action, ps ParamSpec, p *mspec.Param) map[string]*vm.Program {
	m, ok := p.Value.(map[string]any)
	if !ok {
		c.errorf(p.VPos, "parameter %q of action %q must be a mapping of names to expressions, not %s", ps.Name, a.Name, mspec.DescribeValue(p.Value))
		return nil
	}
	progs := make(map[string]*vm.Program, len(m))
	for k, v := range m {
		src, ok := mspec.ExprSource(v)
		if !ok {
			c.errorf(p.VPos, "parameter %q of action %q, key %q: must be an expression, not %s", ps.Name, a.Name, k, mspec.DescribeValue(v))
			continue
		}
		prog, err := mspec.CompileValue(src, mspec.TypeAny, c.env)
		if err != nil {
			c.errorf(p.VPos, "parameter %q, key %q: %s", ps.Name, k, mspec.LocateExprError(err, p.VPos).Msg)
			continue
		}
		progs[k] = prog
	}
	return progs
}
