package spec

import (
	"reflect"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
)

// The event as a value. Expressions see `event` as a struct typed from the
// event's payload fields, so that `event.payload.x` is type-checked (a field
// the event does not declare is an error). Used whole (`set: {got:
// event.payload}`, `{"p": event.payload}`, `keys(event.payload)`), the struct
// is no value a spec can hold: a map variable refused it with Go's name of
// the struct type, and one nested in a literal was stored, and journaled, with
// the struct's field names (F0, F1) for keys. So the patch below wraps each
// whole use of `event` or `event.payload` in FnPlain, which gives it as what
// it stands for: a map of the payload's field names (for `event`, of "name"
// and "payload"). A field read (`event.payload.x`, `event.name`) keeps its type.

// FnPlain is the function a whole `event` or `event.payload` is wrapped in.
// Its name cannot be written in a spec by mistake, and it is harmless if called.
const FnPlain = "_plain_event"

// WholeEventOptions are the options that give src's whole uses of the
// event as maps, as ExprOptions gives them (none when env has no event or
// src does not name it), for a reader that type-checks a spec's
// expression with its own configuration (the TLA+ export). A context
// variable named event, which env holds outside an event's transitions, is
// read as it is.
func WholeEventOptions(env map[string]any, src string) []expr.Option {
	if ev, ok := env[VarEvent]; ok && strings.Contains(src, VarEvent) && reflect.ValueOf(ev).Kind() == reflect.Struct {
		return eventOptions()
	}
	return nil
}

// eventOptions are the expr options that give a whole event as a map.
func eventOptions() []expr.Option {
	return []expr.Option{
		expr.Patch(&eventPatch{wrapped: map[*ast.CallNode]ast.Node{}}),
		expr.Function(FnPlain, func(args ...any) (any, error) { return PlainEvent(args[0]), nil }, new(func(any) map[string]any)),
	}
}

// eventPatch wraps every `event` and `event.payload` node in a call of
// FnPlain. The walk visits a node's children before it, so a member read
// (`event.payload.x`) first finds its object wrapped: it takes the object
// back, unwrapped, and keeps its type.
type eventPatch struct {
	wrapped map[*ast.CallNode]ast.Node // a call made here → the node it wraps
}

func (p *eventPatch) Visit(node *ast.Node) {
	if m, ok := (*node).(*ast.MemberNode); ok {
		if c, ok := m.Node.(*ast.CallNode); ok {
			if orig, ok := p.wrapped[c]; ok {
				m.Node = orig
			}
		}
	}
	if !wholeEvent(*node) {
		return
	}
	call := &ast.CallNode{Callee: &ast.IdentifierNode{Value: FnPlain}, Arguments: []ast.Node{*node}}
	p.wrapped[call] = *node
	ast.Patch(node, call)
}

// wholeEvent reports whether n is `event` or `event.payload`.
func wholeEvent(n ast.Node) bool {
	switch x := n.(type) {
	case *ast.IdentifierNode:
		return x.Value == VarEvent
	case *ast.MemberNode:
		id, ok := x.Node.(*ast.IdentifierNode)
		prop, pok := x.Property.(*ast.StringNode)
		return ok && id.Value == VarEvent && pok && prop.Value == "payload"
	}
	return false
}

// PlainEvent gives the event (or its payload) v as a map of its fields'
// names, as expressions name them; a value that is not a struct is given as
// it is.
func PlainEvent(v any) any {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Struct {
		return v
	}
	out := make(map[string]any, rv.NumField())
	for i := range rv.NumField() {
		name := rv.Type().Field(i).Tag.Get("expr")
		if name == "" {
			continue
		}
		out[name] = PlainEvent(rv.Field(i).Interface())
	}
	return out
}
