package gate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	exprparser "github.com/expr-lang/expr/parser"
)

// PrintError is an expr construct with no equivalent in L++'s gate dialect.
type PrintError struct {
	Col  int    // 1-based column in the expr expression
	What string // what has no equivalent
}

func (e *PrintError) Error() string {
	return fmt.Sprintf("column %d: %s has no L++ equivalent", e.Col, e.What)
}

// Python precedences, low to high.
const (
	pyOr = iota + 1
	pyAnd
	pyNot
	pyCmp
	pyAdd
	pyMul
	pyNeg
	pyPow
	pyAtom
)

// pyExpr is a printed Python expression and its precedence.
type pyExpr struct {
	s    string
	prec int
}

func (p pyExpr) at(min int) string {
	if p.prec < min {
		return "(" + p.s + ")"
	}
	return p.s
}

// PrintGate prints an expr guard in L++'s Python-like gate dialect: the
// inverse of Translate for what it writes (x == nil is x is None,
// m?.k ?? d is m.get('k', d), (s ?? "") != "" is s, floor(a / b) is
// a // b, lpp_payload?.X, read in helper states, is event.payload.X).
// A construct with no equivalent is a *PrintError with its column.
func PrintGate(src string) (string, error) {
	tree, err := exprparser.Parse(src)
	if err != nil {
		return "", fmt.Errorf("cannot parse %q: %w", src, err)
	}
	p, err := printPy(tree.Node)
	if err != nil {
		return "", err
	}
	return p.s, nil
}

func pyErr(n ast.Node, format string, args ...any) error {
	return &PrintError{Col: n.Location().From + 1, What: fmt.Sprintf(format, args...)}
}

// pyString writes a Python string literal (single quotes).
func pyString(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
	return "'" + strings.ReplaceAll(q, "'", `\'`) + "'"
}

var pyCmpOps = map[string]string{"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
var pyArith = map[string]int{"+": pyAdd, "-": pyAdd, "*": pyMul, "/": pyMul, "%": pyMul}

// pyBuiltins maps expr's builtins to Python functions; pyMethods to methods.
var (
	pyBuiltins = map[string]string{"len": "len", "abs": "abs", "min": "min", "max": "max", "string": "str", "int": "int", "float": "float"}
	pyMethods  = map[string]string{"hasPrefix": "startswith", "hasSuffix": "endswith", "lower": "lower", "upper": "upper", "trim": "strip", "keys": "keys", "values": "values"}
)

func printPy(n ast.Node) (pyExpr, error) {
	switch x := n.(type) {
	case *ast.NilNode:
		return pyExpr{"None", pyAtom}, nil
	case *ast.BoolNode:
		if x.Value {
			return pyExpr{"True", pyAtom}, nil
		}
		return pyExpr{"False", pyAtom}, nil
	case *ast.IntegerNode:
		return pyExpr{strconv.Itoa(x.Value), pyAtom}, nil
	case *ast.FloatNode:
		s := strconv.FormatFloat(x.Value, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eIN") {
			s += ".0"
		}
		return pyExpr{s, pyAtom}, nil
	case *ast.StringNode:
		return pyExpr{pyString(x.Value), pyAtom}, nil
	case *ast.IdentifierNode:
		if x.Value == PayloadVar {
			return pyExpr{"event.payload", pyAtom}, nil
		}
		return pyExpr{x.Value, pyAtom}, nil
	case *ast.ChainNode:
		return printPy(x.Node)
	case *ast.MemberNode:
		return printMember(x, nil)
	case *ast.ArrayNode:
		parts := make([]string, len(x.Nodes))
		for i, e := range x.Nodes {
			p, err := printPy(e)
			if err != nil {
				return pyExpr{}, err
			}
			parts[i] = p.at(pyOr)
		}
		return pyExpr{"[" + strings.Join(parts, ", ") + "]", pyAtom}, nil
	case *ast.UnaryNode:
		return printUnary(x)
	case *ast.BinaryNode:
		return printBinary(x)
	case *ast.BuiltinNode:
		return printBuiltin(x)
	case *ast.ConditionalNode:
		if _, isNil := x.Exp1.(*ast.NilNode); isNil && guardedBy(nilGuards(x.Cond, "||", "=="), x.Exp2) {
			// (x == nil ? nil : x + 1): the import's "None where a read
			// is None" in the guard of an `if else`, which is lpp's x + 1
			return printPy(x.Exp2)
		}
		c, err := printPy(x.Cond)
		if err != nil {
			return pyExpr{}, err
		}
		a, err := printPy(x.Exp1)
		if err != nil {
			return pyExpr{}, err
		}
		b, err := printPy(x.Exp2)
		if err != nil {
			return pyExpr{}, err
		}
		return pyExpr{"(" + a.at(pyOr) + " if " + c.at(pyOr) + " else " + b.at(pyOr) + ")", pyAtom}, nil
	case *ast.SliceNode:
		base, err := printPy(x.Node)
		if err != nil {
			return pyExpr{}, err
		}
		var lo, hi string
		for i, e := range []ast.Node{x.From, x.To} {
			if e == nil {
				continue
			}
			p, err := printPy(e)
			if err != nil {
				return pyExpr{}, err
			}
			if i == 0 {
				lo = p.at(pyOr)
			} else {
				hi = p.at(pyOr)
			}
		}
		return pyExpr{base.at(pyAtom) + "[" + lo + ":" + hi + "]", pyAtom}, nil
	case *ast.MapNode:
		return pyExpr{}, pyErr(n, "a map literal (L++ gates have no dict literals)")
	case *ast.PredicateNode, *ast.PointerNode:
		return pyExpr{}, pyErr(n, "a predicate (L++ gates have no lambdas or comprehensions)")
	case *ast.CallNode:
		if p, ok, err := printGateFunc(x); ok {
			return p, err
		}
		return pyExpr{}, pyErr(n, "calling %s", describeCallee(x.Callee))
	}
	return pyExpr{}, pyErr(n, "this expression (%T)", n)
}

func describeCallee(n ast.Node) string {
	if id, ok := n.(*ast.IdentifierNode); ok {
		return id.Value + "()"
	}
	return "a function"
}

// printMember prints x.k, x?.k, x[i]; def is the default of an enclosing
// `?? def` (m?.k ?? d is m.get('k', d)).
func printMember(x *ast.MemberNode, def *pyExpr) (pyExpr, error) {
	if x.Method {
		return pyExpr{}, pyErr(x, "a method call")
	}
	prop, isStr := x.Property.(*ast.StringNode)
	// event.payload, event.payload.X, lpp_payload?.X: the event's payload.
	if id, ok := x.Node.(*ast.IdentifierNode); ok && isStr {
		switch {
		case id.Value == "event" && (prop.Value == "payload" || prop.Value == "name"):
			return pyExpr{"event." + prop.Value, pyAtom}, nil
		case id.Value == PayloadVar:
			return pyPayloadField(x, prop.Value, def)
		}
	}
	if inner, ok := x.Node.(*ast.MemberNode); ok && isStr {
		if id, ok := inner.Node.(*ast.IdentifierNode); ok && id.Value == "event" {
			if p, ok := inner.Property.(*ast.StringNode); ok && p.Value == "payload" {
				return pyPayloadField(x, prop.Value, def)
			}
		}
	}
	base, err := printPy(x.Node)
	if err != nil {
		return pyExpr{}, err
	}
	if isStr && x.Optional {
		return withDefault(pyExpr{base.at(pyAtom) + ".get(" + pyString(prop.Value) + ")", pyAtom}, base.at(pyAtom), prop.Value, def), nil
	}
	if def != nil {
		return pyExpr{}, pyErr(x, "?? after an index")
	}
	idx, err := printPy(x.Property)
	if err != nil {
		return pyExpr{}, err
	}
	return pyExpr{base.at(pyAtom) + "[" + idx.at(pyOr) + "]", pyAtom}, nil
}

// pyPayloadField prints a field of the event's payload: event.payload.k,
// event.payload['k'] or, read optionally, event.payload.get('k'[, def]).
func pyPayloadField(x *ast.MemberNode, k string, def *pyExpr) (pyExpr, error) {
	switch {
	case x.Optional || def != nil:
		return withDefault(pyExpr{"event.payload.get(" + pyString(k) + ")", pyAtom}, "event.payload", k, def), nil
	case IdentRE.MatchString(k) && !ReservedName(k):
		return pyExpr{"event.payload." + k, pyAtom}, nil
	}
	return pyExpr{"event.payload[" + pyString(k) + "]", pyAtom}, nil
}

// withDefault is base.get('k', def) when there is a default, else p.
func withDefault(p pyExpr, base, k string, def *pyExpr) pyExpr {
	if def == nil {
		return p
	}
	return pyExpr{base + ".get(" + pyString(k) + ", " + def.at(pyOr) + ")", pyAtom}
}

func printUnary(x *ast.UnaryNode) (pyExpr, error) {
	switch x.Operator {
	case "!", "not":
		// not (a in b) is a not in b.
		if b, ok := x.Node.(*ast.BinaryNode); ok && (b.Operator == "in" || b.Operator == "contains") {
			p, err := printBinary(b)
			if err != nil {
				return pyExpr{}, err
			}
			return pyExpr{strings.Replace(p.s, " in ", " not in ", 1), pyCmp}, nil
		}
		p, err := printPy(x.Node)
		if err != nil {
			return pyExpr{}, err
		}
		return pyExpr{"not " + p.at(pyNot), pyNot}, nil
	case "-", "+":
		p, err := printPy(x.Node)
		if err != nil {
			return pyExpr{}, err
		}
		return pyExpr{x.Operator + p.at(pyNeg), pyNeg}, nil
	}
	return pyExpr{}, pyErr(x, "the operator %s", x.Operator)
}

// zeroOf reports whether n is the literal a truth test compares with:
// "", 0, [] or {} (after ??).
func isZeroLit(n ast.Node) bool {
	switch z := n.(type) {
	case *ast.StringNode:
		return z.Value == ""
	case *ast.IntegerNode:
		return z.Value == 0
	case *ast.ArrayNode:
		return len(z.Nodes) == 0
	case *ast.MapNode:
		return len(z.Pairs) == 0
	}
	return false
}

// truthTest recognises the truth value of x as Translate writes it,
// (x ?? "") != "", (x ?? 0) != 0, len(x ?? []) > 0: Python's plain x.
func truthTest(b *ast.BinaryNode) (ast.Node, bool) {
	if b.Operator == "!=" {
		if c, ok := b.Left.(*ast.BinaryNode); ok && c.Operator == "??" && isZeroLit(c.Right) && isZeroLit(b.Right) {
			return c.Left, true
		}
	}
	if b.Operator == ">" {
		if l, ok := b.Left.(*ast.BuiltinNode); ok && l.Name == "len" && len(l.Arguments) == 1 {
			if c, ok := l.Arguments[0].(*ast.BinaryNode); ok && c.Operator == "??" && isZeroLit(c.Right) {
				if z, ok := b.Right.(*ast.IntegerNode); ok && z.Value == 0 {
					return c.Left, true
				}
			}
		}
	}
	return nil, false
}

// nilGuards returns the operands E of a chain of `E != nil` joined by op
// (&&), or of `E == nil` (||): the guards the import writes before a
// comparison so that None compares as in lpp.
func nilGuards(n ast.Node, op, cmp string) []ast.Node {
	b, ok := n.(*ast.BinaryNode)
	if !ok {
		return nil
	}
	if b.Operator == cmp {
		if _, isNil := b.Right.(*ast.NilNode); isNil {
			return []ast.Node{b.Left}
		}
		return nil
	}
	if op == "&&" && (b.Operator == "||" || b.Operator == "or") {
		// (X || E != nil): the condition under which lpp's evaluation of
		// a right side of and/or does not fail
		return nilGuards(b.Right, op, cmp)
	}
	if b.Operator != op && !(op == "&&" && b.Operator == "and") {
		return nil
	}
	l, r := nilGuards(b.Left, op, cmp), nilGuards(b.Right, op, cmp)
	if l == nil || r == nil {
		return nil
	}
	return append(l, r...)
}

// guardedBy reports whether every guarded operand is read by rest (the
// guard then only says what lpp says of None: the comparison is false).
func guardedBy(guards []ast.Node, rest ast.Node) bool {
	if len(guards) == 0 {
		return false
	}
	r := rest.String()
	for _, g := range guards {
		if !strings.Contains(r, g.String()) && !printedIn(g, rest) {
			return false
		}
	}
	if rb, ok := rest.(*ast.BinaryNode); ok && (rb.Operator == "==" || rb.Operator == "!=") {
		if _, isNil := rb.Right.(*ast.NilNode); isNil {
			return false
		}
	}
	return true
}

// printedIn reports whether g prints as a part of what rest prints as: the
// guard of an `if else` ((c ? (x == nil ? nil : x + 1) : y) != nil) prints
// as the value it guards.
func printedIn(g, rest ast.Node) bool {
	if _, ok := g.(*ast.ConditionalNode); !ok {
		return false
	}
	pg, err := printPy(g)
	if err != nil {
		return false
	}
	pr, err := printPy(rest)
	return err == nil && strings.Contains(pr.s, pg.s)
}

func printBinary(b *ast.BinaryNode) (pyExpr, error) {
	if (b.Operator == "&&" || b.Operator == "and") && precondition(b.Left, b.Right.String()) {
		return printPy(b.Right)
	}
	if (b.Operator == "&&" || b.Operator == "and") && guardedBy(nilGuards(b.Left, b.Operator, "!="), b.Right) {
		return printPy(b.Right)
	}
	if (b.Operator == "||" || b.Operator == "or") && guardedBy(nilGuards(b.Left, b.Operator, "=="), b.Right) {
		return printPy(b.Right)
	}
	if x, ok := truthTest(b); ok {
		p, err := printPy(x)
		return pyExpr{p.s, p.prec}, err
	}
	if b.Operator == "??" {
		if m, ok := Unchain(b.Left).(*ast.MemberNode); ok {
			def, err := printPy(b.Right)
			if err != nil {
				return pyExpr{}, err
			}
			return printMember(m, &def)
		}
		return pyExpr{}, pyErr(b, "?? (a default) on anything but a map's field")
	}
	l, err := printPy(b.Left)
	if err != nil {
		return pyExpr{}, err
	}
	r, err := printPy(b.Right)
	if err != nil {
		return pyExpr{}, err
	}
	switch op := b.Operator; {
	case op == "&&" || op == "and":
		return pyExpr{l.at(pyAnd) + " and " + r.at(pyAnd+1), pyAnd}, nil
	case op == "||" || op == "or":
		return pyExpr{l.at(pyOr) + " or " + r.at(pyOr+1), pyOr}, nil
	case (op == "==" || op == "!=") && (r.s == "None" || l.s == "None"):
		return pyExpr{l.at(pyCmp+1) + map[string]string{"==": " is ", "!=": " is not "}[op] + r.at(pyCmp+1), pyCmp}, nil
	case (op == "==" || op == "!=") && (isBoolLit(b.Right) && isField(b.Left) || isBoolLit(b.Left) && isField(b.Right)):
		// expr's field == true is Python's field is True: Python's ==
		// would also hold for 1 (and Translate reads it as py_eq)
		return pyExpr{l.at(pyCmp+1) + map[string]string{"==": " is ", "!=": " is not "}[op] + r.at(pyCmp+1), pyCmp}, nil
	case pyCmpOps[op] != "":
		return pyExpr{l.at(pyCmp+1) + " " + op + " " + r.at(pyCmp+1), pyCmp}, nil
	case op == "in":
		return pyExpr{l.at(pyCmp+1) + " in " + r.at(pyCmp+1), pyCmp}, nil
	case op == "contains": // s contains x is x in s
		return pyExpr{r.at(pyCmp+1) + " in " + l.at(pyCmp+1), pyCmp}, nil
	case op == "**" || op == "^":
		return pyExpr{l.at(pyPow+1) + " ** " + r.at(pyNeg), pyPow}, nil
	case pyArith[op] != 0:
		prec := pyArith[op]
		return pyExpr{l.at(prec) + " " + op + " " + r.at(prec+1), prec}, nil
	}
	return pyExpr{}, pyErr(b, "the operator %s", b.Operator)
}

func printBuiltin(x *ast.BuiltinNode) (pyExpr, error) {
	if x.Name == "concat" && len(x.Arguments) == 2 { // the import's list + list
		return printInfix(x.Arguments[0], "+", x.Arguments[1])
	}
	if x.Name == "get" && len(x.Arguments) == 2 { // the import's list index: None out of range
		l, err := printPy(x.Arguments[0])
		if err != nil {
			return pyExpr{}, err
		}
		i, err := printPy(x.Arguments[1])
		if err != nil {
			return pyExpr{}, err
		}
		return pyExpr{l.at(pyAtom) + "[" + i.s + "]", pyAtom}, nil
	}
	if _, ok := pyBuiltins[x.Name]; !ok && pyMethods[x.Name] == "" && x.Name != "floor" {
		return pyExpr{}, pyErr(x, "%s()", x.Name)
	}
	args := make([]string, len(x.Arguments))
	for i, a := range x.Arguments {
		p, err := printPy(a)
		if err != nil {
			return pyExpr{}, err
		}
		args[i] = p.at(pyOr)
		if i == 0 {
			args[i] = p.at(pyAtom) // a method's receiver
		}
	}
	if x.Name == "floor" && len(x.Arguments) == 1 {
		if d, ok := x.Arguments[0].(*ast.BinaryNode); ok && d.Operator == "/" {
			l, err := printPy(d.Left)
			if err != nil {
				return pyExpr{}, err
			}
			r, err := printPy(d.Right)
			if err != nil {
				return pyExpr{}, err
			}
			return pyExpr{l.at(pyMul) + " // " + r.at(pyMul+1), pyMul}, nil
		}
	}
	if f, ok := pyBuiltins[x.Name]; ok {
		for i, a := range x.Arguments {
			p, _ := printPy(a)
			args[i] = p.at(pyOr)
		}
		return pyExpr{f + "(" + strings.Join(args, ", ") + ")", pyAtom}, nil
	}
	if m, ok := pyMethods[x.Name]; ok && len(args) >= 1 {
		return pyExpr{args[0] + "." + m + "(" + strings.Join(args[1:], ", ") + ")", pyAtom}, nil
	}
	return pyExpr{}, pyErr(x, "%s()", x.Name)
}

// The gate functions (machine/spec/pyfuncs.go) the import writes, printed
// as the Python they stand for.
var (
	pyGateCalls = map[string]string{"py_str": "str", "py_int": "int", "py_float": "float", "py_round": "round",
		"py_abs": "abs", "py_len": "len", "py_sum": "sum", "py_min": "min", "py_max": "max"}
	pyGateOps = map[string]string{"py_mod": "%", "py_floordiv": "//", "py_mul": "*", "py_eq": "==", "py_in": "in"}
)

// printGateFunc prints a call of a gate function (ok false: it is none).
func printGateFunc(x *ast.CallNode) (pyExpr, bool, error) {
	id, ok := x.Callee.(*ast.IdentifierNode)
	if !ok {
		return pyExpr{}, false, nil
	}
	if f, ok := pyGateCalls[id.Value]; ok {
		a := x.Arguments
		if len(a) == 2 && id.Value == "py_str" {
			if _, typed := Unchain(a[1]).(*ast.StringNode); typed {
				a = a[:1] // py_str(n, "number"): str(n) of a number property
			}
		}
		args := make([]string, len(a))
		for i, a := range a {
			p, err := printPy(a)
			if err != nil {
				return pyExpr{}, true, err
			}
			args[i] = p.at(pyOr)
		}
		return pyExpr{f + "(" + strings.Join(args, ", ") + ")", pyAtom}, true, nil
	}
	if op, ok := pyGateOps[id.Value]; ok && len(x.Arguments) == 2 {
		p, err := printInfix(x.Arguments[0], op, x.Arguments[1])
		return p, true, err
	}
	if id.Value == "py_ok" && len(x.Arguments) >= 2 { // py_ok("int", s) alone: int(s) is not None, which fails where int(s) does
		if name, ok := x.Arguments[0].(*ast.StringNode); ok {
			callee := &ast.IdentifierNode{Value: "py_" + name.Value}
			if p, ok, err := printGateFunc(&ast.CallNode{Callee: callee, Arguments: x.Arguments[1:]}); ok {
				if err != nil {
					return pyExpr{}, true, err
				}
				return pyExpr{p.at(pyCmp+1) + " is not None", pyCmp}, true, nil
			}
		}
	}
	if id.Value == "py_cmp" && len(x.Arguments) == 3 {
		if op, ok := x.Arguments[1].(*ast.StringNode); ok && pyCmpOps[op.Value] != "" {
			p, err := printInfix(x.Arguments[0], op.Value, x.Arguments[2])
			return p, true, err
		}
	}
	return pyExpr{}, false, nil
}

// printInfix prints l op r for an arithmetic operator or ==, <, ...
func printInfix(ln ast.Node, op string, rn ast.Node) (pyExpr, error) {
	l, err := printPy(ln)
	if err != nil {
		return pyExpr{}, err
	}
	r, err := printPy(rn)
	if err != nil {
		return pyExpr{}, err
	}
	prec := map[string]int{"+": pyAdd, "%": pyMul, "//": pyMul, "*": pyMul}[op]
	if prec == 0 {
		prec = pyCmp
		return pyExpr{l.at(prec+1) + " " + op + " " + r.at(prec+1), prec}, nil
	}
	return pyExpr{l.at(prec) + " " + op + " " + r.at(prec+1), prec}, nil
}

// precondition reports whether n is only what the import writes before a
// gate for the places lpp's evaluation fails (the gate is then false in
// lpp without it): py_ok(...) before the call it checks, R != 0 before a
// division by R, each possibly after `E == nil ||` (or after the left side
// of an and/or, which decides before the right side is evaluated).
func precondition(n ast.Node, rest string) bool {
	switch x := Unchain(n).(type) {
	case *ast.CallNode:
		id, ok := x.Callee.(*ast.IdentifierNode)
		if !ok || id.Value != "py_ok" || len(x.Arguments) == 0 {
			return false
		}
		name, ok := x.Arguments[0].(*ast.StringNode)
		return ok && strings.Contains(rest, "py_"+name.Value+"(")
	case *ast.BinaryNode:
		switch x.Operator {
		case "&&", "and":
			return precondition(x.Left, rest) && precondition(x.Right, rest)
		case "||", "or": // E == nil || ..., or the left side of an and/or deciding first
			return precondition(x.Right, rest)
		case "!=":
			z, ok := x.Right.(*ast.IntegerNode)
			d := x.Left.String()
			return ok && z.Value == 0 && (strings.Contains(rest, "/ "+d) || strings.Contains(rest, ", "+d+")"))
		}
	}
	return false
}

// Unchain is the node under an optional chain (a?.b): itself otherwise.
func Unchain(n ast.Node) ast.Node {
	if c, ok := n.(*ast.ChainNode); ok {
		return c.Node
	}
	return n
}

// isBoolLit reports whether n is true or false.
func isBoolLit(n ast.Node) bool {
	_, ok := n.(*ast.BoolNode)
	return ok
}

// isField reports whether n reads a map's field (of any type).
func isField(n ast.Node) bool {
	if c, ok := n.(*ast.ChainNode); ok { // meta?.k
		n = c.Node
	}
	_, ok := n.(*ast.MemberNode)
	return ok
}
