package machine

import (
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// A set that appends to a list variable, `xs: concat(xs, [item])`, would
// copy the whole list at every step (expr's concat builds a new array), and
// so would the checks of the value: a run appending one item per transition
// would be quadratic. Such a set is compiled twice: as written (used when the
// fast way does not apply, and for its errors) and as its appended part
// alone. At run time the items are appended to an array the run owns, in
// place when the array's spare capacity allows: O(1) amortized per item.
//
// Values stay immutable as far as anyone else sees: a list value handed out
// (to the context, a record, an action) is always a slice capped at its
// length, and the run appends only past the longest length it handed out of
// that array (the owned slice's), so no item anyone holds ever changes.

// appendTail compiles the appended part of a set of list variable v whose
// expression is `concat(NAME, TAIL)` with NAME v's own name; nil when the
// expression has another shape or TAIL does not compile as a list.
func appendTail(src string, v *mspec.Var, env map[string]any) *vm.Program {
	if v.Type != mspec.TypeList {
		return nil
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return nil
	}
	call, ok := tree.Node.(*ast.BuiltinNode)
	if !ok || call.Name != "concat" || len(call.Arguments) != 2 {
		return nil
	}
	if id, ok := call.Arguments[0].(*ast.IdentifierNode); !ok || id.Value != v.Name {
		return nil
	}
	p, err := mspec.CompileValue(call.Arguments[1].String(), mspec.TypeList, env)
	if err != nil {
		return nil
	}
	return p
}

// appendItems evaluates the appended part of a, when a is an append to its
// own variable and the variable holds a list: the new value, the items
// appended, the list's length before them and the new value's size (the
// list's as the run keeps it plus the items': see knownSize). ok is false
// when the set must be evaluated as written, which it also is when the new
// value is past MaxValueBytes (for the error's sake).
func (r *Run) appendItems(a *Cassign) (val, tail []any, before, size int, ok bool) {
	if a.tail == nil {
		return nil, nil, 0, 0, false
	}
	cur, isList := r.env[a.V.Name].([]any)
	if !isList {
		return nil, nil, 0, 0, false
	}
	t, err := r.vm.Run(a.tail, r.env)
	if err != nil {
		return nil, nil, 0, 0, false
	}
	ct, err := mspec.TypeList.Coerce(t)
	if err != nil {
		return nil, nil, 0, 0, false
	}
	tail = ct.([]any)
	size = r.knownSize(a.V.Name, cur)
	if size += mspec.ItemsSize(tail, mspec.MaxValueBytes-size); size > mspec.MaxValueBytes {
		return nil, nil, 0, 0, false
	}
	own := r.owned[a.V.Name]
	if len(own) != len(cur) || (len(cur) > 0 && &own[0] != &cur[0]) {
		// Not the array this run appended to last: start one of its own.
		own = make([]any, len(cur), 2*len(cur)+len(tail)+4)
		copy(own, cur)
	}
	own = append(own, tail...)
	return own, tail, len(cur), size, true
}

// keepAppended records that the run owns the array of list, its variable
// name's new value, and which part of it the step appended (see
// Record.Appended): before is the list's length before the step appended,
// or -1 when the step set the variable otherwise.
func (r *Run) keepAppended(name string, list []any, before int, changed map[string]any) {
	if before < 0 {
		delete(r.grown, name)
		return
	}
	if r.owned == nil {
		r.owned = map[string][]any{}
	}
	r.owned[name] = list
	if _, ok := r.grown[name]; ok {
		return // appended to twice in the step: from the length before the first
	}
	if _, set := changed[name]; set {
		return // set otherwise before in the step (by the action)
	}
	if r.grown == nil {
		r.grown = map[string]int{}
	}
	r.grown[name] = before
}

// replayAppended sets list variable name to val when the record says val is
// the variable's current value with items appended (Record.Appended: before
// is its length): only those items are checked, and measured. It reports false
// when that does not hold; the value is then set as any other.
func (r *Run) replayAppended(name string, val any, before int) (bool, error) {
	xs, ok := val.([]any)
	cur, isList := r.env[name].([]any)
	if !ok || !isList || len(cur) != before || len(xs) < before {
		return false, nil
	}
	if v := r.m.spec.Var(name); v == nil || v.Type != mspec.TypeList {
		return false, nil
	}
	if _, bad := mspec.NotFinite(xs[before:]); bad {
		return false, nil
	}
	size := r.knownSize(name, cur)
	size += mspec.ItemsSize(xs[before:], mspec.MaxValueBytes-size)
	// A list past MaxValueBytes was appended by a version that did not hold
	// the limit on appends: the journal is what happened, so it is replayed
	// (the run stays resumable) and the next set that grows it is refused.
	r.env[name] = xs
	r.keepSize(name, size)
	return true, nil
}
