package check

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/expr-lang/expr/vm"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// The parameters of a state's action that are expressions (an `expr`
// parameter, each key of an `expr_map`, a parameter with a format written
// as an expression) are evaluated by the run before the action runs, on the
// values the state is entered with: one that cannot be evaluated fails the
// action (its on_error route, or the run fails there). The check evaluates
// them too, whatever the action: what the action does with them is
// abstracted, but their failure is the machine's. The built-in emit's
// payload is more: its values are the event's payload, which the guards of
// the event's transitions read (check_moves.go).

// xparam is one expression parameter of a state's action.
type xparam struct {
	name string // the parameter
	key  string // the key of an expr_map parameter ("" otherwise)
	prog *vm.Program
	memo *memoProg
	pos  mspec.Pos
	// format: the parameter's format (a duration), whose value the run
	// checks before the action runs: `string(n - 1) + "s"` fails for n 0.
	format mspec.Format
}

// what names the parameter in messages: `parameter "payload", key "n"`.
func (p *xparam) what() string {
	if p.key != "" {
		return fmt.Sprintf("parameter %q, key %q", p.name, p.key)
	}
	return fmt.Sprintf("parameter %q", p.name)
}

// actionParams compiles the expression parameters of st's action.
func (x *Explorer) actionParams(st *Xstate, env map[string]any) {
	a := st.Cs.Action
	if a == nil {
		return
	}
	for _, p := range st.Cs.St.With {
		ps := a.Param(p.Name)
		if ps == nil {
			continue
		}
		add := func(key string, v any, format mspec.Format) {
			src, ok := mspec.ExprSource(v)
			if !ok {
				return
			}
			prog, err := mspec.CompileValue(src, mspec.TypeAny, env)
			if err != nil {
				return // Validate reports it; a spec that compiled has none
			}
			st.params = append(st.params, xparam{name: p.Name, key: key, prog: prog, pos: p.VPos, format: format})
		}
		switch {
		case ps.Type == mspec.TypeExprMap:
			m, _ := p.Value.(map[string]any)
			for _, k := range slices.Sorted(maps.Keys(m)) {
				add(k, m[k], "")
			}
		case ps.Type == mspec.TypeExpr:
			add("", p.Value, "")
		case ps.Format != "":
			if src, ok := mspec.ExprSource(p.Value); ok && !ps.Format.Literal(src) {
				add("", p.Value, ps.Format)
			}
		}
	}
}

// paramReads returns the slots whose value at st's entry p's evaluation
// depends on: every slot p reads for the payload of an event emit sends
// and st handles (the event's guards and sets may read it), else what can
// make it fail (check_fallible.go).
func (x *Explorer) paramReads(st *Xstate, p *xparam) []int {
	if p.format == "" && (st.emits == nil || st.emitCe == nil || p.name != "payload") {
		return x.fallibleSlots(p.prog)
	}
	// The payload emit sends, or a value whose format the run checks: each
	// value it reads may decide it.
	var out []int
	for _, name := range mspec.Identifiers(p.prog) {
		if s, ok := x.slot[name]; ok {
			out = append(out, s)
		}
	}
	return out
}

// evalParams evaluates st's expression parameters in env (the values the
// state is entered with). For the built-in emit with a payload it also
// builds the event it sends (x.emitVal, x.emitLabel). It returns why the
// action fails, or nil.
func (x *Explorer) evalParams(st *Xstate) *stopErr {
	var payload map[string]any
	for i := range st.params {
		p := &st.params[i]
		v, err := x.evalM(p.prog, p.memo)
		if err != nil {
			msg, _ := x.evalFailure(err, "", p.pos)
			return &stopErr{fmt.Sprintf("%s of action %q in state %q cannot be evaluated: %s", p.what(), st.Cs.Action.Name, st.Cs.St.Name, msg), p.pos}
		}
		if f, bad := mspec.NotFinite(v); bad {
			// As the run checks it (Machine.checkParam) before the action.
			verb := "holds" // a list or map holding one
			if _, whole := v.(float64); whole {
				verb = "is"
			}
			return &stopErr{fmt.Sprintf("%s of action %q in state %q: the value %s %v, %s", p.what(), st.Cs.Action.Name, st.Cs.St.Name, verb, f, mspec.ErrNotFinite), p.pos}
		}
		if p.format != "" {
			if _, ferr := p.format.Value(v); ferr != nil {
				return &stopErr{fmt.Sprintf("%s of action %q in state %q: %s", p.what(), st.Cs.Action.Name, st.Cs.St.Name, strings.TrimPrefix(ferr.Error(), mspec.ErrFormat.Error()+": ")), p.pos}
			}
		}
		if st.emitCe != nil && p.name == "payload" {
			if payload == nil {
				payload = map[string]any{}
			}
			payload[p.key] = v
		}
	}
	ce := st.emitCe
	if ce == nil {
		return nil
	}
	val, label, err := emittedEvent(ce, payload)
	if err != nil {
		pos := st.Cs.St.DoPos
		for _, p := range st.Cs.St.With {
			if p.Name == "payload" {
				pos = p.VPos
			}
		}
		return &stopErr{fmt.Sprintf("the action %q of state %q cannot emit event %q: %v", st.Cs.Action.Name, st.Cs.St.Name, ce.Name, err), pos}
	}
	x.emitVal, x.emitLabel = val, label
	return nil
}

// emittedEvent checks a payload an action emits against the event's fields
// as the run does (machine/event.go, checkPayload: a null for a required
// field, a value not of the field's type or enum fail the action; an
// optional field left out or null reads as its default), and returns the
// value of `event` its transitions see, and how a trace shows it.
func emittedEvent(ce *machine.Cevent, payload map[string]any) (any, string, error) {
	ev := reflect.New(ce.Typ).Elem()
	ev.Field(0).SetString(ce.Name)
	var parts []string
	for i, f := range ce.Decl.Payload {
		v, given := payload[f.Name]
		if !given || v == nil {
			if f.Required && given {
				return nil, "", fmt.Errorf("payload field %q is null, but it is required (%s)", f.Name, f.Type)
			}
			if f.Required {
				return nil, "", fmt.Errorf("its payload lacks the required field %q (%s)", f.Name, f.Type)
			}
			v = machine.CloneValue(f.Default)
		} else {
			cv, err := f.Type.Coerce(v)
			if err != nil {
				return nil, "", fmt.Errorf("payload field %q: %s is not %s", f.Name, mspec.DescribeValue(v), f.Type.Article())
			}
			if s, ok := cv.(string); ok && len(f.Enum) > 0 && !mspec.Contains(f.Enum, s) {
				return nil, "", fmt.Errorf("payload field %q: %q is not one of %s", f.Name, s, mspec.QuoteList(f.Enum))
			}
			v = cv
		}
		if v != nil {
			fv := ev.Field(1).Field(i)
			fv.Set(reflect.ValueOf(v).Convert(fv.Type()))
		}
		parts = append(parts, fmt.Sprintf("%s: %s", f.Name, QuoteValue(v)))
	}
	return ev.Interface(), "{" + strings.Join(parts, ", ") + "}", nil
}
