package export

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/conf"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// The expressions ExportTLA translates: literals (ints, strings, bools, nil,
// lists, maps with string keys), the context variables, state, last_error and
// event.name / event.payload.FIELD, the operators == != < <= > >= && || !
// (and, or, not) + - * % unary -, `in` (a list's elements, a map's keys),
// contains, startsWith, endsWith, `c ? a : b` and `if c {a} else {b}`,
// m.key and m["key"] on a map, and the functions len, hasPrefix, hasSuffix
// and concat. Anything else (floats and /, matches, ??, closures, indexing a
// list, other functions) has no TLA+ equivalent that TLC evaluates, and is
// an error naming where it is.

// tlaExprSite says where an expression is, for errors: the spec file, the
// position of its text and what it is ("guard of next[1] of state \"ask\"").
type tlaExprSite struct {
	file  string
	src   []byte
	start mspec.Pos
	what  string
}

// tlaTranslator translates expressions into TLA+ terms.
type tlaTranslator struct {
	// names maps each identifier an expression may read to its TLA+ term:
	// the variable, or a value bound by \E.
	names map[string]string
	// payload is the TLA+ term of the event's payload record ("" outside an
	// event's transition) and event the event's name.
	payload, event string
	uses           map[string]bool // helper operators the terms use (SetOf, Contains, ...)
}

// tlaUnsupported is an expression (part) with no TLA+ equivalent.
type tlaUnsupported struct {
	node ast.Node
	why  string
}

// translate returns the TLA+ term of src, type-checked against env.
func (tr *tlaTranslator) translate(src string, env map[string]any, site tlaExprSite) (string, error) {
	cfg := conf.New(env)
	for _, opt := range mspec.WholeEventOptions(env, src) { // event, event.payload used whole: maps, as a run reads them
		opt(cfg)
	}
	tree, err := checker.ParseCheck(src, cfg)
	if err != nil {
		return "", fmt.Errorf("cannot export to TLA+: %s: %w", site.what, err)
	}
	out, bad := tr.term(tree.Node)
	if bad != nil {
		at := site.start
		if site.src != nil && at.IsValid() {
			at = mspec.ExprPos(site.src, site.start, src, nodeStart(bad.node))
		}
		return "", fmt.Errorf("%s:%d:%d: cannot export to TLA+: %s: %s: %s has no TLA+ equivalent; rewrite it with the operators docs/check.md lists under \"TLA+ export\"",
			site.file, at.Line, at.Col, site.what, "`"+unwrapEvent(bad.node.String())+"`", bad.why)
	}
	return out, nil
}

// unwrapEvent writes an expression's text back as the spec has it: a whole
// event, or payload, without the call that gives it as a map.
func unwrapEvent(text string) string {
	text = strings.ReplaceAll(text, mspec.FnPlain+"("+mspec.VarEvent+".payload)", mspec.VarEvent+".payload")
	return strings.ReplaceAll(text, mspec.FnPlain+"("+mspec.VarEvent+")", mspec.VarEvent)
}

// nodeStart is the offset where a node's text starts: expr places a binary
// node at its operator, so the leftmost offset in its subtree.
func nodeStart(n ast.Node) int {
	v := &startVisitor{from: n.Location().From}
	ast.Walk(&n, v)
	return v.from
}

type startVisitor struct{ from int }

func (v *startVisitor) Visit(n *ast.Node) { v.from = min(v.from, (*n).Location().From) }

func unsupported(n ast.Node, format string, args ...any) (string, *tlaUnsupported) {
	return "", &tlaUnsupported{node: n, why: fmt.Sprintf(format, args...)}
}

// term translates one node.
func (tr *tlaTranslator) term(n ast.Node) (string, *tlaUnsupported) {
	switch n := n.(type) {
	case *ast.NilNode:
		return "Nil", nil
	case *ast.IntegerNode:
		return strconv.Itoa(n.Value), nil
	case *ast.BoolNode:
		return tlaBool(n.Value), nil
	case *ast.StringNode:
		return tlaString(n.Value), nil
	case *ast.FloatNode:
		return unsupported(n, "a float (TLC has no floats)")
	case *ast.ConstantNode:
		v, err := tlaValue(n.Value)
		if err != nil {
			return unsupported(n, "%v", err)
		}
		return v, nil
	case *ast.IdentifierNode:
		if t, ok := tr.names[n.Value]; ok {
			return t, nil
		}
		return unsupported(n, "the name %s", n.Value)
	case *ast.UnaryNode:
		x, bad := tr.term(n.Node)
		if bad != nil {
			return "", bad
		}
		switch n.Operator {
		case "!", "not":
			return "~(" + x + ")", nil
		case "-":
			if isFloat(n.Node.Type()) {
				return unsupported(n, "a float (TLC has no floats)")
			}
			return "-(" + x + ")", nil
		case "+":
			return x, nil
		}
		return unsupported(n, "the operator %s", n.Operator)
	case *ast.BinaryNode:
		return tr.binary(n)
	case *ast.ConditionalNode:
		c, bad := tr.term(n.Cond)
		if bad != nil {
			return "", bad
		}
		a, bad := tr.term(n.Exp1)
		if bad != nil {
			return "", bad
		}
		b, bad := tr.term(n.Exp2)
		if bad != nil {
			return "", bad
		}
		return "(IF " + c + " THEN " + a + " ELSE " + b + ")", nil
	case *ast.ArrayNode:
		items, bad := tr.terms(n.Nodes)
		if bad != nil {
			return "", bad
		}
		return "<<" + strings.Join(items, ", ") + ">>", nil
	case *ast.MapNode:
		if len(n.Pairs) == 0 {
			return "<<>>", nil
		}
		var parts []string
		for _, p := range n.Pairs {
			pair := p.(*ast.PairNode)
			k, ok := pair.Key.(*ast.StringNode)
			if !ok {
				return unsupported(pair.Key, "a map key that is not a string literal")
			}
			v, bad := tr.term(pair.Value)
			if bad != nil {
				return "", bad
			}
			parts = append(parts, tlaString(k.Value)+" :> "+v)
		}
		return "(" + strings.Join(parts, " @@ ") + ")", nil
	case *ast.MemberNode:
		return tr.member(n)
	case *ast.BuiltinNode:
		return tr.call(n, n.Name, n.Arguments)
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); ok && id.Value == mspec.FnPlain && len(n.Arguments) == 1 {
			return tr.wholeEvent(n.Arguments[0])
		}
		if id, ok := n.Callee.(*ast.IdentifierNode); ok {
			return tr.call(n, id.Value, n.Arguments)
		}
	}
	return unsupported(n, "this expression")
}

func (tr *tlaTranslator) terms(nodes []ast.Node) ([]string, *tlaUnsupported) {
	out := make([]string, 0, len(nodes))
	for _, x := range nodes {
		t, bad := tr.term(x)
		if bad != nil {
			return nil, bad
		}
		out = append(out, t)
	}
	return out, nil
}

// tlaInfix maps expr's operators to TLA+'s, for those that mean the same on
// the types they apply to here.
var tlaInfix = map[string]string{
	"==": "=", "!=": "#", "&&": "/\\", "and": "/\\", "||": "\\/", "or": "\\/",
	"<": "<", "<=": "<=", ">": ">", ">=": ">=", "-": "-", "*": "*", "%": "%",
}

func (tr *tlaTranslator) binary(n *ast.BinaryNode) (string, *tlaUnsupported) {
	a, bad := tr.term(n.Left)
	if bad != nil {
		return "", bad
	}
	b, bad := tr.term(n.Right)
	if bad != nil {
		return "", bad
	}
	lt, rt := n.Left.Type(), n.Right.Type()
	switch n.Operator {
	case "==", "!=", "&&", "and", "||", "or":
		if isFloat(lt) || isFloat(rt) {
			return unsupported(n, "a float (TLC has no floats)")
		}
		return "(" + a + " " + tlaInfix[n.Operator] + " " + b + ")", nil
	case "<", "<=", ">", ">=", "-", "*", "%":
		if !isInt(lt) || !isInt(rt) {
			return unsupported(n, "the operator %s on %s (TLA+ applies it to ints only)", n.Operator, typeWord(lt, rt))
		}
		return "(" + a + " " + tlaInfix[n.Operator] + " " + b + ")", nil
	case "+":
		switch {
		case isInt(lt) && isInt(rt):
			return "(" + a + " + " + b + ")", nil
		case isKind(lt, reflect.String) && isKind(rt, reflect.String):
			return "(" + a + " \\o " + b + ")", nil
		}
		return unsupported(n, "the operator + on %s", typeWord(lt, rt))
	case "in":
		switch {
		case isKind(rt, reflect.Slice):
			tr.uses["SetOf"] = true
			return "(" + a + " \\in SetOf(" + b + "))", nil
		case isKind(rt, reflect.Map):
			return "(" + a + " \\in DOMAIN " + b + ")", nil
		}
		return unsupported(n, "the operator in on %s", typeWord(rt))
	case "contains", "startsWith", "endsWith":
		if !isKind(lt, reflect.String) || !isKind(rt, reflect.String) {
			return unsupported(n, "the operator %s on %s", n.Operator, typeWord(lt, rt))
		}
		op := map[string]string{"contains": "Contains", "startsWith": "HasPrefix", "endsWith": "HasSuffix"}[n.Operator]
		tr.uses[op] = true
		return op + "(" + a + ", " + b + ")", nil
	case "/", "**", "^":
		return unsupported(n, "the operator %s (its value is a float; TLC has no floats)", n.Operator)
	}
	return unsupported(n, "the operator %s", n.Operator)
}

// member translates event.name, event.payload.FIELD and a map's m.key or
// m["key"].
func (tr *tlaTranslator) member(n *ast.MemberNode) (string, *tlaUnsupported) {
	prop, isString := n.Property.(*ast.StringNode)
	if id, ok := n.Node.(*ast.IdentifierNode); ok && id.Value == mspec.VarEvent && isString && tr.event != "" {
		if prop.Value == "name" {
			return tlaString(tr.event), nil
		}
		return unsupported(n, "the event alone (read event.payload.FIELD)")
	}
	if inner, ok := n.Node.(*ast.MemberNode); ok && isString && tr.payload != "" {
		if id, ok := inner.Node.(*ast.IdentifierNode); ok && id.Value == mspec.VarEvent {
			return tr.payload + "." + prop.Value, nil
		}
	}
	if !isKind(n.Node.Type(), reflect.Map) || n.Optional {
		return unsupported(n, "indexing (only a map's m.key or m[\"key\"] translates)")
	}
	m, bad := tr.term(n.Node)
	if bad != nil {
		return "", bad
	}
	k, bad := tr.term(n.Property)
	if bad != nil {
		return "", bad
	}
	return m + "[" + k + "]", nil
}

// wholeEvent translates `event.payload` used whole (the payload record: a
// TLA+ record is the function a map literal translates into, so the two
// compare equal) and `event` (a map of its name and payload).
func (tr *tlaTranslator) wholeEvent(n ast.Node) (string, *tlaUnsupported) {
	if tr.event == "" {
		return unsupported(n, "the event outside an event's transition")
	}
	payload := tr.payload
	if payload == "" { // an event without payload: an empty map
		payload = "<<>>"
	}
	if _, ok := n.(*ast.MemberNode); ok {
		return payload, nil
	}
	return "(" + tlaString("name") + " :> " + tlaString(tr.event) + " @@ " + tlaString("payload") + " :> " + payload + ")", nil
}

func (tr *tlaTranslator) call(n ast.Node, name string, args []ast.Node) (string, *tlaUnsupported) {
	ts, bad := tr.terms(args)
	if bad != nil {
		return "", bad
	}
	switch {
	case name == "len" && len(args) == 1:
		switch t := args[0].Type(); {
		case isKind(t, reflect.String), isKind(t, reflect.Slice):
			return "Len(" + ts[0] + ")", nil
		case isKind(t, reflect.Map):
			return "Cardinality(DOMAIN " + ts[0] + ")", nil
		}
	case (name == "hasPrefix" || name == "hasSuffix") && len(args) == 2:
		op := "HasPrefix"
		if name == "hasSuffix" {
			op = "HasSuffix"
		}
		tr.uses[op] = true
		return op + "(" + ts[0] + ", " + ts[1] + ")", nil
	case name == "string" && len(args) == 1:
		switch t := args[0].Type(); {
		case isKind(t, reflect.Int):
			return "ToString(" + ts[0] + ")", nil // TLC's ToString writes an int's digits, as expr does
		case isKind(t, reflect.String):
			return ts[0], nil
		}
	case name == "join" && (len(args) == 1 || len(args) == 2) && isKind(args[0].Type(), reflect.Slice):
		tr.uses["Join"] = true
		sep := `""`
		if len(args) == 2 {
			sep = ts[1]
		}
		return "Join(" + ts[0] + ", " + sep + ")", nil
	case name == "concat" && len(args) > 0:
		return "(" + strings.Join(ts, " \\o ") + ")", nil
	}
	return unsupported(n, "the function %s", name)
}

func isKind(t reflect.Type, k reflect.Kind) bool { return t != nil && t.Kind() == k }

func isInt(t reflect.Type) bool {
	return t != nil && slices.Contains([]reflect.Kind{reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64}, t.Kind())
}

func isFloat(t reflect.Type) bool {
	return isKind(t, reflect.Float64) || isKind(t, reflect.Float32)
}

// typeWord names operand types in errors: "string and int", "unknown types".
func typeWord(ts ...reflect.Type) string {
	var words []string
	for _, t := range ts {
		w := "a value of unknown type"
		switch {
		case isInt(t):
			w = "int"
		case isFloat(t):
			w = "float"
		case t != nil && t.Kind() != reflect.Interface:
			w = map[reflect.Kind]string{reflect.String: "string", reflect.Bool: "bool", reflect.Slice: "list", reflect.Map: "map"}[t.Kind()]
			if w == "" {
				w = t.String()
			}
		}
		if !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	return strings.Join(words, " and ")
}

func tlaBool(b bool) string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}

// tlaString quotes s as a TLA+ string literal.
func tlaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tlaValue writes a spec value (a default, a domain value) as a TLA+ term:
// nil is the model value Nil, a list a sequence, a map a function from its
// keys (built with TLC's :> and @@).
func tlaValue(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "Nil", nil
	case bool:
		return tlaBool(x), nil
	case int:
		return strconv.Itoa(x), nil
	case string:
		return tlaString(x), nil
	case float64:
		return "", fmt.Errorf("the float %v (TLC has no floats)", x)
	case []any:
		items := make([]string, 0, len(x))
		for _, it := range x {
			t, err := tlaValue(it)
			if err != nil {
				return "", err
			}
			items = append(items, t)
		}
		return "<<" + strings.Join(items, ", ") + ">>", nil
	case map[string]any:
		if len(x) == 0 {
			return "<<>>", nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			t, err := tlaValue(x[k])
			if err != nil {
				return "", err
			}
			parts = append(parts, tlaString(k)+" :> "+t)
		}
		return "(" + strings.Join(parts, " @@ ") + ")", nil
	}
	return "", fmt.Errorf("the value %v of type %T", v, v)
}
