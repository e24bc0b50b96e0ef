package check

import (
	"fmt"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"slices"
)

// The values a model check starts from: every variable its default, except
// those CheckOptions.Initial gives a value, and the free inputs (`input:
// true` in the spec, or CheckOptions.Inputs), which take every value of
// their domain (the values an action's write takes): one initial pair per
// combination, all explored breadth first together.

// Validate reports options the spec cannot take: a value for a variable the
// spec does not declare, of the wrong type, outside its enum or range; an
// input the spec does not declare, or that is also given a value.
func (o CheckOptions) Validate(spec *mspec.Spec) error {
	names := make([]string, len(spec.Context))
	for i, v := range spec.Context {
		names[i] = v.Name
	}
	unknown := func(name string) error {
		hint := ""
		if best, ok := mspec.DidYouMean(name, names); ok {
			hint = fmt.Sprintf("; did you mean %q?", best)
		}
		return fmt.Errorf("the spec has no context variable %q%s", name, hint)
	}
	for _, name := range sortedKeys(o.Initial) {
		v := spec.Var(name)
		if v == nil {
			return fmt.Errorf("cannot start %s from a given value: %w", name, unknown(name))
		}
		val, err := v.Type.Coerce(o.Initial[name])
		if err == nil {
			if s, ok := val.(string); ok && len(v.Enum) > 0 && !mspec.Contains(v.Enum, s) {
				err = fmt.Errorf("%q is not one of %s", s, mspec.QuoteList(v.Enum))
			}
		}
		if n, ok := val.(int); ok && err == nil && v.Range != nil && !v.Range.Contains(n) {
			err = fmt.Errorf("%d is outside its range [%d, %d]", n, v.Range.Lo, v.Range.Hi)
		}
		if err != nil {
			return fmt.Errorf("cannot start %s from %s: %w", name, mspec.FormatValue(o.Initial[name]), err)
		}
	}
	for _, name := range o.Inputs {
		if spec.Var(name) == nil {
			return fmt.Errorf("cannot make %s an input: %w", name, unknown(name))
		}
		if _, ok := o.Initial[name]; ok {
			return fmt.Errorf("cannot make %s an input: it is also given a value; drop one of the two", name)
		}
	}
	return nil
}

// startValues sets up the initial values: x.initial (defaults, then the
// given values) and the free inputs with their domains. A name the spec does
// not declare is skipped (Validate reports it).
func (x *Explorer) startValues(opts CheckOptions) {
	x.initial = slices.Clone(x.defaults)
	x.given = make(slotSet, x.nslots)
	for name, val := range opts.Initial {
		if s, ok := x.slot[name]; ok && s != x.lastErr {
			if typed, err := x.Vars[s].Type.Coerce(val); err == nil {
				x.initial[s], x.given[s] = typed, true
			}
		}
	}
	for s, v := range x.Vars {
		if x.given[s] || !v.Input && !slices.Contains(opts.Inputs, v.Name) {
			continue
		}
		dom, _ := x.Cmp.Domain(v)
		x.free = append(x.free, s)
		x.freeDoms = append(x.freeDoms, dom)
		if r := v.Range; r != nil && uint64(r.Hi)-uint64(r.Lo) >= maxRangeValues {
			x.untried = append(x.untried, fmt.Sprintf("input %s: the first %d of the %d values of its range", v.Name, maxRangeValues, uint64(r.Hi)-uint64(r.Lo)+1))
		}
	}
}

// addRoots adds an initial pair for every combination of the free inputs'
// values (one when there is none); pairs that differ only in inputs no
// expression reads are one. It stops at MaxStates.
func (x *Explorer) addRoots() {
	init := x.States[x.stateIdx[x.spec.Initial]]
	idx := make([]int, len(x.free))
	for {
		vals := slices.Clone(x.initial)
		for i, s := range x.free {
			vals[s] = x.freeDoms[i][idx[i]]
		}
		x.canon(init, vals)
		ids := make([]uint32, len(vals))
		for i, v := range vals {
			ids[i] = x.values.id(v)
		}
		r := x.key(init, ids)
		if id, slot := x.store.find(r); id < 0 {
			root := int32(len(x.roots))
			x.roots = append(x.roots, slices.Clone(vals))
			x.add(init, r, slot, -1, root, 0) // a root's move is its index in x.roots
			if x.stopped != "" {
				return
			}
		}
		i := 0
		for ; i < len(idx); i++ {
			idx[i]++
			if idx[i] < len(x.freeDoms[i]) {
				break
			}
			idx[i] = 0
		}
		if i == len(idx) {
			return
		}
	}
}

// rootOf returns the initial values of the path to node id, and the free
// inputs among them that the initial state reads (for traces).
func (x *Explorer) rootOf(id int32) ([]any, map[string]any) {
	for x.nodes.at(int(id)).parent >= 0 {
		id = x.nodes.at(int(id)).parent
	}
	vals := slices.Clone(x.roots[x.nodes.at(int(id)).move])
	init := x.States[x.stateOf(id)]
	var inputs map[string]any
	for _, s := range x.free {
		if !init.live[s] {
			continue
		}
		if inputs == nil {
			inputs = map[string]any{}
		}
		inputs[x.Vars[s].Name] = vals[s]
	}
	return vals, inputs
}

// inputReport lists the variables that did not start from their default.
func (x *Explorer) inputReport() []VarDomain {
	var out []VarDomain
	free := 0
	for s, v := range x.Vars {
		switch {
		case free < len(x.free) && x.free[free] == s:
			_, src := x.Cmp.Domain(v)
			out = append(out, VarDomain{Var: v.Name, Values: x.freeDoms[free], Source: src})
			free++
		case x.given[s]:
			out = append(out, VarDomain{Var: v.Name, Values: []any{x.initial[s]}, Source: "given"})
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
