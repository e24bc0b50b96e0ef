package machine

import (
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Key-level changes of map variables. expr has no function that changes
// one key of a map, so a spec adds, replaces and removes keys with two
// functions of its own:
//
//	merge(m, {k: v, ...})  a copy of m with the keys of the second map set
//	omit(m, "k", ...)      a copy of m without the keys named
//
// Written as they are, they copy the map, and so would the checks of the
// value and the journal: a run that adds one key per transition would be
// quadratic. A set of map variable m of the shape `m: merge(m, PATCH)` or
// `m: omit(m, KEYS...)` (m the variable's own name) is compiled twice, as
// written and as its PATCH (or its keys) alone: at run time only the keys
// changed are evaluated, checked, measured (MaxValueBytes) and written in
// place into a map the run owns, and the step's record names them
// (Record.MapKeys), so the journal writes a patch of those keys only.
//
// No value anyone holds ever changes. The run changes a map in place only
// while it owns it: the map is the variable's value, and no one else was
// handed it. Handing it out ends the ownership, and the next key change
// copies the map (once: the copy is owned again). The map is handed out by
// Run.Var and Run.Vars, by Call.Var and Call.Vars (an action may keep what
// it reads), by an expression whose value is a list or a map and that reads
// the variable (`m2: m`, `[m]`, a parameter), and by a record given to an
// observer that is not a ValueBorrower.

// ValueBorrower is implemented by observers that read a record's values only
// during OnStep and keep none of them (they copy what they keep), as the
// journal does. While every observer of a run is one, a map value in a
// record may change after OnStep returns, when the run changes a key of it
// in place; otherwise the run never changes a map it handed to an observer.
type ValueBorrower interface {
	Observer
	BorrowsValues()
}

// mapKeysProg compiles the changed part of a set of map variable v whose
// expression is `merge(NAME, PATCH)` (the PATCH, a map) or
// `omit(NAME, KEYS...)` (its keys, as a list), with NAME v's own name; nil
// when the expression has another shape.
func mapKeysProg(src string, v *mspec.Var, env map[string]any) (p *vm.Program, omit bool) {
	if v.Type != mspec.TypeMap {
		return nil, false
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return nil, false
	}
	call, ok := tree.Node.(*ast.CallNode)
	if !ok || len(call.Arguments) < 2 {
		return nil, false
	}
	fn, ok := call.Callee.(*ast.IdentifierNode)
	if !ok || (fn.Value != mspec.FnMerge && fn.Value != mspec.FnOmit) {
		return nil, false
	}
	if _, taken := env[fn.Value]; taken {
		return nil, false
	}
	if id, ok := call.Arguments[0].(*ast.IdentifierNode); !ok || id.Value != v.Name {
		return nil, false
	}
	if fn.Value == mspec.FnMerge {
		if len(call.Arguments) != 2 {
			return nil, false
		}
		p, err := mspec.CompileValue(call.Arguments[1].String(), mspec.TypeMap, env)
		if err != nil {
			return nil, false
		}
		return p, false
	}
	keys := make([]string, len(call.Arguments)-1)
	for i, a := range call.Arguments[1:] {
		keys[i] = a.String()
	}
	p, err = mspec.CompileValue("["+strings.Join(keys, ", ")+"]", mspec.TypeList, env)
	if err != nil {
		return nil, false
	}
	return p, true
}

// mapReads returns the map variables of the spec that program p reads: a
// value of p that is a list or a map may hold one of them.
func mapReads(p *vm.Program, spec *mspec.Spec) []string {
	var out []string
	for _, name := range mspec.Identifiers(p) {
		if v := spec.Var(name); v != nil && v.Type == mspec.TypeMap {
			out = append(out, name)
		}
	}
	return out
}

// mapChange is how a set changes the keys of its map variable: the keys
// set, with their values, or removed.
type mapChange struct {
	set  map[string]any
	del  []string
	size int // the map's size after the change (see knownSize)
}

// mapKeys evaluates the changed part of a, when a is a merge into (or an
// omit from) its own variable and the variable holds a map: what changes,
// checked as the whole value would be (the keys set) and measured. ok is
// false when the set must be evaluated as written: another shape, an error
// (for its message), a value past MaxValueBytes (likewise).
func (r *Run) mapKeys(a *Cassign) (ch mapChange, ok bool) {
	if a.keys == nil {
		return mapChange{}, false
	}
	cur, isMap := r.env[a.V.Name].(map[string]any)
	if !isMap {
		return mapChange{}, false
	}
	v, err := r.vm.Run(a.keys, r.env)
	if err != nil {
		return mapChange{}, false
	}
	size := r.knownSize(a.V.Name, cur)
	if a.omit {
		keys, ok := v.([]any)
		if !ok {
			return mapChange{}, false
		}
		for i, k := range keys {
			s, ok := k.(string)
			if !ok {
				return mapChange{}, false
			}
			if slices.Contains(ch.del[:i], s) {
				ch.del = append(ch.del, s) // keeps ch.del[:i] aligned with keys
				continue
			}
			if old, had := cur[s]; had {
				size -= 16 + len(s) + mspec.ValueSize(old, mspec.MaxValueBytes)
			}
			ch.del = append(ch.del, s)
		}
		ch.size = size
		return ch, true
	}
	cv, err := mspec.TypeMap.Coerce(v)
	if err != nil {
		return mapChange{}, false
	}
	set, _ := cv.(map[string]any)
	if r.m.checkStorable("set "+a.V.Name, a.A.Expr, a.A.ExprPos, set) != nil {
		return mapChange{}, false
	}
	r.escaped(set, a.keysReads)
	for k, val := range set {
		if old, had := cur[k]; had {
			size -= mspec.ValueSize(old, mspec.MaxValueBytes)
		} else {
			size += 16 + len(k)
		}
		if size > mspec.MaxValueBytes {
			return mapChange{}, false
		}
		size += mspec.ValueSize(val, mspec.MaxValueBytes-size)
	}
	if size > mspec.MaxValueBytes {
		return mapChange{}, false
	}
	ch.set, ch.size = set, size
	return ch, true
}

// applyKeys changes the keys of ch in map variable name's value: in place
// when the run owns the map, else in a copy it then owns. It returns the
// new value.
func (r *Run) applyKeys(name string, ch mapChange) map[string]any {
	cur, _ := r.env[name].(map[string]any)
	own := r.ownedMap(name, cur)
	for _, k := range ch.del {
		delete(own, k)
	}
	maps.Copy(own, ch.set)
	r.keepSize(name, ch.size)
	return own
}

// ownedMap returns cur when the run owns it, else a copy of it that the run
// owns from now on.
func (r *Run) ownedMap(name string, cur map[string]any) map[string]any {
	if own, ok := r.mown[name]; ok && sameMap(own, cur) {
		return own
	}
	own := make(map[string]any, len(cur)+1)
	maps.Copy(own, cur)
	if r.mown == nil {
		r.mown = map[string]map[string]any{}
	}
	r.mown[name] = own
	return own
}

func sameMap(a, b map[string]any) bool {
	return a != nil && b != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// keepKeys records that the step changed keys of map variable name (see
// Record.MapKeys); keys nil: the step set it otherwise.
func (r *Run) keepKeys(name string, ch *mapChange, changed map[string]any) {
	if ch == nil {
		delete(r.keys, name)
		return
	}
	if _, set := changed[name]; set {
		if _, ours := r.keys[name]; !ours {
			return // set otherwise before in the step (by the action)
		}
	}
	if r.keys == nil {
		r.keys = map[string][]string{}
	}
	ks := r.keys[name]
	for k := range ch.set {
		ks = append(ks, k)
	}
	r.keys[name] = append(ks, ch.del...)
}

// escaped ends the run's ownership of the maps of names when v, the value
// of an expression that reads them, may hold one (it is a list or a map).
func (r *Run) escaped(v any, names []string) {
	if len(r.mown) == 0 || len(names) == 0 {
		return
	}
	switch v.(type) {
	case []any, map[string]any:
	default:
		if v == nil || !isContainer(v) {
			return
		}
	}
	for _, name := range names {
		delete(r.mown, name)
	}
}

func isContainer(v any) bool {
	switch reflect.TypeOf(v).Kind() {
	case reflect.Map, reflect.Slice, reflect.Array, reflect.Struct, reflect.Pointer, reflect.Interface:
		return true
	}
	return false
}

// handOut ends the run's ownership of map variable name's value (it is
// handed to someone who may keep it).
func (r *Run) handOut(name string) {
	if len(r.mown) > 0 {
		delete(r.mown, name)
	}
}

// handOutAll ends the run's ownership of every map.
func (r *Run) handOutAll() {
	if len(r.mown) > 0 {
		clear(r.mown)
	}
}

// replayKeys sets map variable name to val when the record says val is the
// variable's current value with keys changed (Record.MapKeys): only those
// keys are copied into the run's own map, checked and measured. It reports
// false when that does not hold; the value is then set as any other.
func (r *Run) replayKeys(name string, val any, keys []string) (bool, error) {
	m, ok := val.(map[string]any)
	cur, isMap := r.env[name].(map[string]any)
	if !ok || !isMap {
		return false, nil
	}
	if v := r.m.spec.Var(name); v == nil || v.Type != mspec.TypeMap {
		return false, nil
	}
	for _, k := range keys {
		if nv, has := m[k]; has {
			if _, bad := mspec.NotFinite(nv); bad {
				return false, nil
			}
		}
	}
	size := r.knownSize(name, cur)
	own := r.ownedMap(name, cur)
	for _, k := range keys { // a key named twice counts once: own holds the first
		if old, had := own[k]; had {
			size -= 16 + len(k) + mspec.ValueSize(old, mspec.MaxValueBytes)
		}
		if nv, has := m[k]; has {
			own[k] = nv
			size += 16 + len(k) + mspec.ValueSize(nv, mspec.MaxValueBytes)
		} else {
			delete(own, k)
		}
	}
	r.env[name] = own
	r.keepSize(name, size) // past the limit: replayed as journaled (see replayAppended), forgotten
	return true, nil
}
