package machine

import (
	"fmt"
	"strings"

	"github.com/expr-lang/expr/vm"
	"github.com/looplab/fsm"
)

// Machine is a spec compiled against a registry: every expression compiled
// once, every action resolved. It is immutable and safe to share between runs.
type Machine struct {
	spec   *Spec
	reg    *Registry
	states map[string]*cstate
	events map[string]*cevent
	fsmEvs []fsm.EventDesc
}

type cstate struct {
	st      *State
	action  *Action
	params  []cparam
	set     []cassign
	next    []*ctrans
	onError *ctrans
}

type cparam struct {
	name  string
	value any         // literal value, or nil when prog is set
	prog  *vm.Program // for expr parameters
}

type cassign struct {
	v    *Var
	prog *vm.Program
}

type ctrans struct {
	t      *Transition
	index  int    // position in next (-1 for on_error)
	via    string // "next[i]" or "on_error", for records
	guard  *vm.Program
	set    []cassign
	fsmEv  string
	reads  []string // context names the guard reads, for "no transition" messages
	target string
}

type cevent struct {
	ev    *Event
	from  map[string]bool // nil: every non-final state
	guard *vm.Program
	set   []cassign
	fsmEv string
}

// Compile resolves a spec's actions and compiles its expressions. The spec
// should have passed Validate; Compile reports the first problems it meets as
// diagnostics (wrapped in an error that wraps ErrInvalidSpec).
func Compile(spec *Spec, reg *Registry) (*Machine, error) {
	c := &compiler{spec: spec, reg: reg, env: TypeEnv(spec)}
	m := c.compile()
	if err := c.diags.Err(); err != nil {
		return nil, err
	}
	return m, nil
}

type compiler struct {
	spec  *Spec
	reg   *Registry
	env   map[string]any
	diags Diagnostics
}

func (c *compiler) errorf(p Pos, format string, args ...any) {
	c.diags = append(c.diags, Diagnostic{Severity: SevError, File: c.spec.File, Pos: p, Msg: fmt.Sprintf(format, args...)})
}

func (c *compiler) compile() *Machine {
	spec := c.spec
	m := &Machine{spec: spec, reg: c.reg, states: map[string]*cstate{}, events: map[string]*cevent{}}
	if spec.State(spec.Initial) == nil {
		c.errorf(spec.InitialPos, "initial state %q is not defined", spec.Initial)
	}
	sources := map[string][]string{} // fsm event → source states
	for _, st := range spec.States {
		cs := &cstate{st: st}
		m.states[st.Name] = cs
		if st.Do != "" {
			cs.action = c.reg.Lookup(st.Do)
			if cs.action == nil {
				c.errorf(st.DoPos, "unknown action %q", st.Do)
			} else {
				cs.params = c.params(st, cs.action)
			}
		}
		cs.set = c.assigns(st.Set)
		for i, t := range st.Next {
			ct := c.transition(t, i)
			cs.next = append(cs.next, ct)
			sources[ct.fsmEv] = appendUnique(sources[ct.fsmEv], st.Name)
		}
		if st.OnError != nil {
			cs.onError = c.transition(st.OnError, -1)
			sources[cs.onError.fsmEv] = appendUnique(sources[cs.onError.fsmEv], st.Name)
		}
	}
	for _, ev := range spec.Events {
		ce := &cevent{ev: ev, fsmEv: "event:" + ev.Name, set: c.assigns(ev.Set)}
		if spec.State(ev.To) == nil {
			c.errorf(ev.ToPos, "event %q goes to undefined state %q", ev.Name, ev.To)
		}
		if ev.When != "" {
			ce.guard = c.guard(ev.When, ev.WhenPos)
		}
		var src []string
		if len(ev.From) > 0 {
			ce.from = map[string]bool{}
			for _, f := range ev.From {
				ce.from[f] = true
				src = append(src, f)
			}
		} else {
			for _, st := range spec.States {
				if !st.Final {
					src = append(src, st.Name)
				}
			}
		}
		m.events[ev.Name] = ce
		if len(src) > 0 {
			m.fsmEvs = append(m.fsmEvs, fsm.EventDesc{Name: ce.fsmEv, Src: src, Dst: ev.To})
		}
	}
	for _, st := range spec.States { // file order keeps fsm's tables deterministic
		for _, ev := range []string{"to:" + st.Name} {
			if src := sources[ev]; len(src) > 0 {
				m.fsmEvs = append(m.fsmEvs, fsm.EventDesc{Name: ev, Src: src, Dst: st.Name})
			}
		}
	}
	return m
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func (c *compiler) transition(t *Transition, index int) *ctrans {
	ct := &ctrans{t: t, index: index, via: fmt.Sprintf("next[%d]", index), fsmEv: "to:" + t.To, target: t.To, set: c.assigns(t.Set)}
	if index < 0 {
		ct.via = "on_error"
	}
	if c.spec.State(t.To) == nil {
		c.errorf(t.ToPos, "transition to undefined state %q", t.To)
	}
	if t.When != "" {
		ct.guard = c.guard(t.When, t.WhenPos)
		ct.reads = identifiers(ct.guard)
	}
	return ct
}

func (c *compiler) guard(src string, at Pos) *vm.Program {
	p, err := CompileGuard(src, c.env)
	if err != nil {
		e := locateExprError(err, at)
		c.errorf(e.Pos, "guard %q: %s", src, e.Msg)
		return nil
	}
	return p
}

func (c *compiler) assigns(as []*Assign) []cassign {
	out := make([]cassign, 0, len(as))
	for _, a := range as {
		v := c.spec.Var(a.Var)
		if v == nil {
			c.errorf(a.Pos, "set: unknown context variable %q", a.Var)
			continue
		}
		p, err := CompileVarValue(a.Expr, v, c.env)
		if err != nil {
			e := locateExprError(err, a.ExprPos)
			c.errorf(e.Pos, "set %s: %s", a.Var, e.Msg)
			continue
		}
		out = append(out, cassign{v: v, prog: p})
	}
	return out
}

func (c *compiler) params(st *State, a *Action) []cparam {
	given := map[string]*Param{}
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
		if ps.Type == TypeExpr {
			src, ok := exprSource(p.Value)
			if !ok {
				c.errorf(p.VPos, "parameter %q of action %q must be an expression, not %s", ps.Name, a.Name, describeValue(p.Value))
				continue
			}
			prog, err := CompileValue(src, TypeAny, c.env)
			if err != nil {
				e := locateExprError(err, p.VPos)
				c.errorf(e.Pos, "parameter %q: %s", ps.Name, e.Msg)
				continue
			}
			out = append(out, cparam{name: ps.Name, prog: prog})
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
	return out
}

// Spec returns the compiled spec.
func (m *Machine) Spec() *Spec { return m.spec }

// Registry returns the registry the machine was compiled against.
func (m *Machine) Registry() *Registry { return m.reg }

// describeTransition names a transition for messages and journals: "next[2]", "on_error", "event RESET".
func (ct *ctrans) describe() string { return ct.via }

// guardsSaw renders the values the guards of a state read, for the "no
// transition holds" error.
func guardsSaw(cs *cstate, env map[string]any) string {
	var parts []string
	for _, ct := range cs.next {
		if ct.guard == nil {
			continue
		}
		var vals []string
		for _, name := range ct.reads {
			if v, ok := env[name]; ok {
				vals = append(vals, fmt.Sprintf("%s=%s", name, formatValue(v)))
			}
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", ct.t.When, strings.Join(vals, ", ")))
	}
	return strings.Join(parts, "; ")
}
