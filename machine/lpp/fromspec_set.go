package lpp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/expr-lang/expr/ast"
	exprparser "github.com/expr-lang/expr/parser"

	"github.com/lppctl/lppctl/machine/lpp/gate"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// setAction writes a set entry as an L++ set action: a literal, a read
// path (a variable, event.payload.NAME, dotted: o.k, event.payload.o.k),
// the payload as a whole (the import's map of its fields), and a write
// into a map (the import's merge(o ?? {}, {"k": v}): target o.k).
func (w *writer) setAction(a *mspec.Assign) (jobj, error) {
	tree, err := exprparser.Parse(a.Expr)
	if err != nil {
		return nil, fmt.Errorf("set %s: %w", a.Var, err)
	}
	target, n := a.Var, tree.Node
	if target == gate.StateVar { // the import's write of _state
		target = "_state"
	}
	for { // merge(o ?? {}, {"k": v}), nested: target o.k…
		key, inner, ok := mergeInto(n, target)
		if !ok {
			break
		}
		target, n = target+"."+key, inner
	}
	if ref, ok := refOf(n); ok {
		return jobj{{"type", ActionSet}, {"target", target}, {"value_from", ref}}, nil
	}
	v, ok := literalOf(n)
	if !ok {
		return nil, fmt.Errorf("set %s: %s: an L++ set takes a literal, a variable or event.payload.NAME (write a computation as a compute action)", a.Var, a.Expr)
	}
	return jobj{{"type", ActionSet}, {"target", target}, {"value", v}}, nil
}

// mergeInto reads the import's write of one key into the map m:
// merge(m ?? {}, {"k": v}), m written as the path m names (nested: the
// import writes (o)?.["a"]); it returns k and v.
func mergeInto(n ast.Node, m string) (string, ast.Node, bool) {
	call, ok := n.(*ast.CallNode)
	if !ok || len(call.Arguments) != 2 {
		return "", nil, false
	}
	if id, ok := call.Callee.(*ast.IdentifierNode); !ok || id.Value != mspec.FnMerge {
		return "", nil, false
	}
	base, ok := call.Arguments[0].(*ast.BinaryNode)
	if !ok || base.Operator != "??" {
		return "", nil, false
	}
	if p, ok := pathOf(base.Left); !ok || strings.Join(p, ".") != m {
		return "", nil, false
	}
	if empty, ok := base.Right.(*ast.MapNode); !ok || len(empty.Pairs) != 0 {
		return "", nil, false
	}
	lit, ok := call.Arguments[1].(*ast.MapNode)
	if !ok || len(lit.Pairs) != 1 {
		return "", nil, false
	}
	pair := lit.Pairs[0].(*ast.PairNode)
	k, ok := pair.Key.(*ast.StringNode)
	if !ok {
		return "", nil, false
	}
	return k.Value, pair.Value, true
}

// pathOf reads a chain of reads (x, x.k, x?.k, x?.["k"]) as its path.
func pathOf(n ast.Node) ([]string, bool) {
	switch x := gate.Unchain(n).(type) {
	case *ast.IdentifierNode:
		return []string{x.Value}, true
	case *ast.MemberNode:
		p, ok := x.Property.(*ast.StringNode)
		if !ok {
			return nil, false
		}
		base, ok := pathOf(x.Node)
		return append(base, p.Value), ok
	}
	return nil, false
}

// refOf reads a path as L++ writes it in value_from and input_map: a
// variable, event.payload.NAME (lpp_payload?.NAME in a helper state),
// dotted (o.k, event.payload.o.k), or the whole payload (lpp_payload, or
// the import's map of the payload's fields).
func refOf(n ast.Node) (string, bool) {
	if c, ok := n.(*ast.BuiltinNode); ok && c.Name == "first" && len(c.Arguments) == 1 { // first([n]): the import's copy of a number or a bool
		if l, ok := c.Arguments[0].(*ast.ArrayNode); ok && len(l.Nodes) == 1 {
			if _, ok := l.Nodes[0].(*ast.IdentifierNode); ok {
				return refOf(l.Nodes[0])
			}
		}
	}
	if isEventMap(n) {
		return "event", true
	}
	if m, ok := n.(*ast.MapNode); ok && len(m.Pairs) > 0 { // {"f": event.payload.f, ...}
		for _, pn := range m.Pairs {
			pair := pn.(*ast.PairNode)
			k, ok := pair.Key.(*ast.StringNode)
			p, ok2 := pathOf(pair.Value)
			if !ok || !ok2 || !slices.Equal(p, []string{"event", "payload", k.Value}) {
				return "", false
			}
		}
		return "event.payload", true
	}
	p, ok := pathOf(n)
	if !ok {
		return "", false
	}
	switch {
	case p[0] == payloadVar:
		p = append([]string{"event", "payload"}, p[1:]...)
	case len(p) == 1 && p[0] == gate.StateVar: // the import's read of _state
		return "_state", true
	case len(p) == 2 && p[0] == "event" && p[1] == "name":
		return "event.name", true
	case p[0] == "event" && (len(p) < 3 || p[1] != "payload"):
		return "", false // the event or the payload record itself: no L++ path
	}
	return strings.Join(p, "."), true
}

// isEventMap reads the import's translation of the whole event:
// {"name": event.name (or the event's name), "payload": the payload}.
func isEventMap(n ast.Node) bool {
	m, ok := n.(*ast.MapNode)
	if !ok || len(m.Pairs) != 2 {
		return false
	}
	k0, ok0 := m.Pairs[0].(*ast.PairNode).Key.(*ast.StringNode)
	k1, ok1 := m.Pairs[1].(*ast.PairNode).Key.(*ast.StringNode)
	if !ok0 || !ok1 || k0.Value != "name" || k1.Value != "payload" {
		return false
	}
	name, payload := m.Pairs[0].(*ast.PairNode).Value, m.Pairs[1].(*ast.PairNode).Value
	if _, lit := name.(*ast.StringNode); !lit {
		if p, ok := pathOf(name); !ok || !slices.Equal(p, []string{"event", "name"}) {
			return false
		}
	}
	if e, ok := payload.(*ast.MapNode); ok && len(e.Pairs) == 0 { // an event that carries no field
		return true
	}
	ref, ok := refOf(payload)
	return ok && ref == "event.payload"
}
