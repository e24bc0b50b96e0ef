package gate

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Translate translates a gate expression from L++'s Python-like dialect
// into an expr guard. types maps each context property to its L++ type
// (string, number, integer, boolean, array, object): the translation of
// `in` and of truth values depends on them. The expression may read
// `event.payload.NAME` and `event.name`. Every context value may be None
// (see docs/lpp.md, "No value yet"), and the translation keeps Python's
// meaning for it: `x is None` is `x == nil`, and the truth value of a
// string x is `(x ?? "") != ""`.
//
// A construct the translator cannot express is an *Error with its column.
func Translate(src string, types map[string]string) (string, error) {
	return TranslateIn(src, &Env{Types: types, Payload: "event.payload"})
}

// Env is what a translation knows besides the expression.
type Env struct {
	Types map[string]string
	// Payload is the expr text that stands for event.payload: the event
	// itself in a state's `on:` list, a captured copy in a helper state
	// after it (see translate.go).
	Payload string
	// EventName, when set, is the event's name known statically (in a
	// helper state, where `event` is gone).
	EventName string
	// Rename maps a property's blueprint name to its internal name.
	Rename map[string]string
	// Defined maps a property that may not exist yet in lpp's context (an
	// undeclared name nothing may have written) to the bool variable that
	// says it does: lpp's evaluation fails where it reads the property
	// while it does not (the gate is false), so a read adds the condition
	// `(NAME != nil || FLAG)` where the evaluation reaches it (and/or and
	// `if else` keep Python's order).
	Defined map[string]string
	// LppFalse collects what the translation gave its evident meaning
	// although lpp's evaluator fails on it (the gate is then false in lpp).
	LppFalse []*Error
	// known are the reads an enclosing `and` (or `or`) has already tested
	// not to be None where the expression being emitted is evaluated.
	known []string
	// errs are the conditions under which lpp's evaluation of the gate
	// does not fail (len(None) fails, and a failure makes the whole gate
	// false): the translation is `errs && expression`. and/or make the
	// conditions of their right side conditional on their left one.
	errs []string
}

// failsUnless records that lpp's evaluation fails (the gate is false)
// unless none of nils is None.
func (env *Env) failsUnless(nils []string) {
	if g := nonNil(env.unknown(nils)); g != "" && !slices.Contains(env.errs, g) {
		env.errs = append(env.errs, g)
	}
}

// definedUnless records that lpp's evaluation fails (the gate is false)
// unless the property name exists in lpp's context: it is not None, or its
// flag says something wrote it. A read already known not to be None needs
// no condition.
func (env *Env) definedUnless(name string) {
	flag, ok := env.Defined[name]
	if !ok || slices.Contains(env.known, name) {
		return
	}
	if g := "(" + name + " != nil || " + flag + ")"; !slices.Contains(env.errs, g) {
		env.errs = append(env.errs, g)
	}
}

// asserted returns the reads that condition n proves not None when it is
// true (negated: when it is false): `x is not None`, `x != None`, and
// conjunctions of them.
func (env *Env) asserted(n *Node, negated bool) []string {
	switch {
	case n.Op == "and" && !negated || n.Op == "or" && negated:
		return append(env.asserted(n.Kids[0], negated), env.asserted(n.Kids[1], negated)...)
	case n.Op == "not":
		return env.asserted(n.Kids[0], !negated)
	case n.Op == "cmp" && len(n.CmpOp) == 1:
		op := n.CmpOp[0]
		want := map[bool][]string{false: {"is not", "!="}, true: {"is", "=="}}[negated]
		if !slices.Contains(want, op) {
			return nil
		}
		l, r := n.Kids[0], n.Kids[1]
		if r.Op == "const" && r.Text == "None" {
			l, r = r, l
		}
		if l.Op != "const" || l.Text != "None" {
			return nil
		}
		o, err := env.emit(r)
		if err != nil || len(o.nils) != 1 || o.nils[0] != o.s {
			return nil
		}
		return o.nils
	}
	return nil
}

// unknown drops from nils the reads already known not to be None.
func (env *Env) unknown(nils []string) []string {
	if len(env.known) == 0 {
		return nils
	}
	var out []string
	for _, x := range nils {
		if !slices.Contains(env.known, x) {
			out = append(out, x)
		}
	}
	return out
}

// TranslateIn is Translate with what the translation knows besides the
// expression: the property types, the payload's fields, the names renamed.
func TranslateIn(src string, env *Env) (string, error) {
	tree, err := Parse(src)
	if err != nil {
		return "", err
	}
	if r := refusedName(tree); r != nil { // lpp refuses the whole gate before evaluating it
		env.LppFalse = append(env.LppFalse, gateErr(r.Col, r.Span, "rename the property, and the gate that reads it",
			"lpp refuses the name %q in a gate (even as a context key), so the gate is always false in lpp: lppctl translates it to false", r.Text))
		return "false", nil
	}
	saved := env.errs
	env.errs = nil
	defer func() { env.errs = saved }()
	o, err := env.emit(tree)
	if err != nil {
		return "", err
	}
	c, err := env.truth(o, tree)
	if err != nil {
		return "", err
	}
	if len(env.errs) > 0 { // where lpp's evaluation fails, the gate is false
		return strings.Join(env.errs, " && ") + " && " + c.at(precAnd+1), nil
	}
	return c.s, nil
}

// refusedName returns the first name node of the tree that lpp refuses
// (eval, type, input, ...), or nil.
func refusedName(n *Node) *Node {
	if n == nil {
		return nil
	}
	if n.Op == "name" && slices.Contains(lppRefused, n.Text) {
		return n
	}
	for _, k := range n.Kids {
		if r := refusedName(k); r != nil {
			return r
		}
	}
	return nil
}

// Precedences of expr's operators (github.com/expr-lang/expr/parser/operator).
const (
	precCond = 0 // a ? b : c, always parenthesized when nested
	precOr   = 10
	precAnd  = 15
	precCmp  = 20
	precAdd  = 30
	precNot  = 50
	precMul  = 60
	precNeg  = 90
	precPow  = 100
	precAtom = 1000
	tAny     = "any"
	tNone    = "none"
	tBool    = "boolean"
	tString  = "string"
	tNumber  = "number"
	tInteger = "integer"
	tArray   = "array"
	tObject  = "object"
	tEvent   = "event"   // the name `event`
	tEvPay   = "payload" // event.payload
)

// gout is an emitted expression.
type gout struct {
	s    string
	prec int
	typ  string
	bool bool // a bool that is never None (a comparison, not, and, or, True, False)
	// nils are the reads (properties, fields) whose None makes this value
	// None (in lpp, arithmetic with None gives None): a comparison tests them.
	nils []string
	// loose: a value of any type that expr's orderings may refuse when the
	// gate runs (min(l)): an ordering goes through py_cmp.
	loose bool
	// payField: a field of the event's payload, which the translation
	// types from its use (event.payload.v == 1: v is a number).
	payField bool
	// lit is "(" for a tuple literal, "{" for a set literal: expr has
	// lists only, and neither equals a list (or anything a context holds).
	lit string
}

func (o gout) at(min int) string {
	if o.prec < min {
		return "(" + o.s + ")"
	}
	return o.s
}

// truth returns the condition "o is true" in Python's sense.
func (env *Env) truth(o gout, n *Node) (gout, error) {
	if o.bool {
		return o, nil
	}
	if len(o.nils) > 0 && (len(o.nils) > 1 || o.nils[0] != o.s) {
		// arithmetic with None is None, which is false: n + 1 is false
		// when n is None (and is not evaluated)
		t, err := env.truth(gout{s: o.s, prec: o.prec, typ: o.typ}, n)
		if u := env.unknown(o.nils); len(u) > 0 && err == nil {
			return gout{s: nonNil(u) + " && " + t.at(precAnd+1), prec: precAnd, typ: tBool, bool: true}, nil
		}
		return t, err
	}
	switch o.typ {
	case tBool:
		return gout{s: o.at(precCmp+1) + " == true", prec: precCmp, typ: tBool, bool: true}, nil
	case tString:
		return gout{s: "(" + o.at(precAtom) + ` ?? "") != ""`, prec: precCmp, typ: tBool, bool: true}, nil
	case tNumber, tInteger:
		return gout{s: "(" + o.at(precAtom) + " ?? 0) != 0", prec: precCmp, typ: tBool, bool: true}, nil
	case tArray:
		return gout{s: "len(" + o.at(precAtom) + " ?? []) > 0", prec: precCmp, typ: tBool, bool: true}, nil
	case tObject, tEvPay:
		return gout{s: "len(" + o.at(precAtom) + " ?? {}) > 0", prec: precCmp, typ: tBool, bool: true}, nil
	case tNone:
		return gout{s: "false", prec: precAtom, typ: tBool, bool: true}, nil
	case tEvent:
		return o, gateErr(n.Col, n.Span, "read event.payload.NAME or event.name", "event is not a value")
	}
	// Python's truth value of a value of any type: None, False, 0, "",
	// [] and {} are false.
	return gout{s: "(let v = " + o.s + "; " + pyTruthy("v") + ")", prec: precAtom, typ: tBool, bool: true}, nil
}

// pyTruthy is Python's truth value of the expr value named v.
func pyTruthy(v string) string {
	return v + ` != nil && ` + v + ` != false && ` + v + ` != 0 && ` + v + ` != "" && (type(` + v + `) not in ["array", "map"] || len(` + v + `) > 0)`
}

// nilOr is an expression that is nil where o's value is None in lpp, and
// o's value elsewhere: o itself when it is None only as a read is.
func (o gout) nilOr() string {
	if len(o.nils) == 0 || len(o.nils) == 1 && o.nils[0] == o.s {
		return o.at(precOr)
	}
	return "(" + isNil(o.nils) + " ? nil : " + o.at(precOr) + ")"
}

// nilOrAt is nilOr at precedence min.
func (o gout) nilOrAt(min int) string {
	if len(o.nils) == 0 || len(o.nils) == 1 && o.nils[0] == o.s {
		return o.at(min)
	}
	return o.nilOr()
}

// nonNil is the condition that none of the reads is None ("" for none).
func nonNil(nils []string) string {
	parts := make([]string, len(nils))
	for i, x := range nils {
		parts[i] = x + " != nil"
	}
	return strings.Join(parts, " && ")
}

// isNil is the condition that one of the reads is None.
func isNil(nils []string) string {
	parts := make([]string, len(nils))
	for i, x := range nils {
		parts[i] = x + " == nil"
	}
	return strings.Join(parts, " || ")
}

// guarded is cond evaluated only when none of nils is None, else false
// (lpp: an ordering with None is False, and so is equality with a value).
func guarded(nils []string, cond string) string {
	if len(nils) == 0 {
		return cond
	}
	return "(" + nonNil(nils) + " && " + cond + ")"
}

// lppFails records a construct lpp's evaluator fails on (the gate is then
// false in lpp) that lppctl gives its evident meaning.
func (env *Env) lppFails(col, span int, what string) {
	env.LppFalse = append(env.LppFalse, gateErr(col, max(span, 1), "lpp's evaluator fails on it, so in lpp the gate is always false; rewrite it so that both agree",
		"%s: lppctl translates its evident meaning, but lpp evaluates the gate false", what))
}

func (env *Env) emit(n *Node) (gout, error) {
	switch n.Op {
	case "num":
		return emitNumber(n)
	case "str":
		return gout{s: strconv.Quote(n.Text), prec: precAtom, typ: tString}, nil
	case "const":
		switch n.Text {
		case "None":
			return gout{s: "nil", prec: precAtom, typ: tNone}, nil
		case "True":
			return gout{s: "true", prec: precAtom, typ: tBool, bool: true}, nil
		}
		return gout{s: "false", prec: precAtom, typ: tBool, bool: true}, nil
	case "name":
		if n.Text == "event" {
			return gout{s: "event", prec: precAtom, typ: tEvent}, nil
		}
		if n.Text == "_state" { // the blueprint state the run rests in
			return gout{s: StateVar, prec: precAtom, typ: tString}, nil // never None
		}
		name := n.Text
		if r, ok := env.Rename[name]; ok {
			name = r
		}
		t, ok := env.Types[name]
		if !ok {
			names := make([]string, 0, len(env.Types)+1)
			for k := range env.Types {
				names = append(names, k)
			}
			slices.Sort(names)
			return gout{}, gateErr(n.Col, n.Span, cmp.Or(mspec.DidYouMeanHint(n.Text, append(names, "event")), "declare it in context_schema.properties"),
				"unknown name %q: it is not a context property", n.Text)
		}
		env.definedUnless(name)
		return gout{s: name, prec: precAtom, typ: t, nils: []string{name}}, nil
	case "list":
		var parts []string
		seen := map[string]bool{}
		for _, k := range n.Kids {
			o, err := env.valueOf(k)
			if err != nil {
				return gout{}, err
			}
			if n.Text == "{" {
				if g := group(o.typ); (g == "arr" || g == "obj") && o.lit != "(" { // a tuple is hashable
					// {[1], x}: a list, a dict or a set is unhashable
					env.clash(k.Col, k.Span, "a set holding "+TypeArticle(o.typ), o.nils)
				}
				if key := constKey(k); key != "" && seen[key] {
					continue // {1, 1.0, True} is {1}: a set holds each value once
				} else if key != "" {
					seen[key] = true
				}
			}
			parts = append(parts, o.s)
		}
		return gout{s: "[" + strings.Join(parts, ", ") + "]", prec: precAtom, typ: tArray, lit: n.Text}, nil
	case "and", "or":
		l, err := env.cond(n.Kids[0])
		if err != nil {
			return gout{}, err
		}
		// `x is not None and x > 3`: the right side needs no guard of x
		// (and `x is None or x > 3` none either).
		saved, savedErrs := env.known, env.errs
		env.known = append(slices.Clone(env.known), env.asserted(n.Kids[0], n.Op == "or")...)
		env.errs = nil
		r, err := env.cond(n.Kids[1])
		q := env.errs
		env.known, env.errs = saved, savedErrs
		if err != nil {
			return gout{}, err
		}
		if len(q) > 0 { // the right side is evaluated only when the left one does not decide
			qs := strings.Join(q, " && ")
			if n.Op == "and" {
				env.errs = append(env.errs, "(!"+l.at(precNot+1)+" || "+qs+")")
			} else {
				env.errs = append(env.errs, "("+l.at(precOr+1)+" || "+qs+")")
			}
		}
		op, prec := " && ", precAnd
		if n.Op == "or" {
			op, prec = " || ", precOr
		}
		return gout{s: l.at(prec) + op + r.at(prec+1), prec: prec, typ: tBool, bool: true}, nil
	case "not":
		return env.not(n)
	case "neg", "pos":
		x, err := env.valueOf(n.Kids[0])
		if err != nil {
			return gout{}, err
		}
		env.lppFails(n.Col, 1, "unary "+map[bool]string{true: "+", false: "-"}[n.Op == "pos"]+" is not in lpp's whitelist")
		if n.Op == "pos" {
			return x, nil
		}
		return gout{s: "-" + x.at(precNeg), prec: precNeg, typ: x.typ, nils: x.nils}, nil
	case "bin":
		return env.binary(n)
	case "cmp":
		return env.comparison(n)
	case "cond":
		c, err := env.cond(n.Kids[0])
		if err != nil {
			return gout{}, err
		}
		saved := env.errs
		env.errs = nil
		a, err := env.valueOf(n.Kids[1])
		qa := env.errs
		env.errs = nil
		if err != nil {
			return gout{}, err
		}
		b, err := env.valueOf(n.Kids[2])
		qb := env.errs
		env.errs = saved
		if err != nil {
			return gout{}, err
		}
		if len(qa) > 0 {
			env.errs = append(env.errs, "(!"+c.at(precNot+1)+" || "+strings.Join(qa, " && ")+")")
		}
		if len(qb) > 0 {
			env.errs = append(env.errs, "("+c.at(precOr+1)+" || "+strings.Join(qb, " && ")+")")
		}
		typ := tAny
		switch {
		case a.typ == b.typ, b.typ == tNone: // None is a value of every type
			typ = a.typ
		case a.typ == tNone:
			typ = b.typ
		case group(a.typ) == "num" && group(b.typ) == "num" && a.typ != tBool && b.typ != tBool:
			typ = tNumber // an integer or a number
		}
		s := "(" + c.at(precOr) + " ? " + a.at(precOr) + " : " + b.at(precOr) + ")"
		var nils []string
		if len(a.nils) > 0 || len(b.nils) > 0 || a.typ == tNone || b.typ == tNone {
			// The value is None when the branch taken is: a None in the
			// other one does not matter (lpp evaluates one branch).
			nils = []string{"(" + c.at(precOr) + " ? " + a.nilOr() + " : " + b.nilOr() + ")"}
		}
		// branches of types that do not compare (a list or a string): an
		// ordering goes through py_cmp, false where Python raises
		ga, gb := group(a.typ), group(b.typ)
		loose := a.loose || b.loose || ga != gb && ga != "none" && gb != "none"
		return gout{s: s, prec: precAtom, typ: typ, bool: a.bool && b.bool, nils: nils, loose: loose}, nil
	case "attr":
		return env.attr(n)
	case "index", "slice":
		return env.subscript(n)
	case "call":
		return env.call(n)
	case "method":
		return env.method(n)
	}
	return gout{}, gateErr(n.Col, 1, "", "unsupported expression")
}

// valueOf emits n where a value is needed.
func (env *Env) valueOf(n *Node) (gout, error) {
	o, err := env.emit(n)
	if err != nil {
		return o, err
	}
	if o.typ == tEvent {
		return o, gateErr(n.Col, n.Span, "read event.payload.NAME or event.name", "event is not a value")
	}
	return o, nil // and/or too: lpp's evaluator gives True or False for them (lpp-format §8), as && and || do
}

// cond emits n where a condition is needed.
func (env *Env) cond(n *Node) (gout, error) {
	o, err := env.emit(n)
	if err != nil {
		return o, err
	}
	return env.truth(o, n)
}

func emitNumber(n *Node) (gout, error) {
	s := strings.ReplaceAll(n.Text, "_", "")
	if strings.HasSuffix(strings.ToLower(s), "j") {
		return gout{}, gateErr(n.Col, n.Span, "", "complex numbers are not supported")
	}
	lower := strings.ToLower(s)
	prefixed := strings.HasPrefix(lower, "0x") || strings.HasPrefix(lower, "0o") || strings.HasPrefix(lower, "0b")
	if !prefixed && len(s) > 1 && s[0] == '0' && strings.Trim(s, "0123456789") == "" && strings.Trim(s, "0") != "" {
		return gout{}, gateErr(n.Col, n.Span, "write 0o"+s[1:]+" for an octal number, or remove the leading zeros", "invalid number %q: leading zeros are not allowed", n.Text)
	}
	if i, err := strconv.ParseInt(s, 0, 64); err == nil && (prefixed || !strings.ContainsAny(s, ".eE")) {
		return gout{s: strconv.FormatInt(i, 10), prec: precAtom, typ: tInteger}, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || strings.ContainsAny(s, "xXpP") {
		return gout{}, gateErr(n.Col, n.Span, "", "invalid number %q", n.Text)
	}
	out := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(out, ".eIN") {
		out += ".0"
	}
	return gout{s: out, prec: precAtom, typ: tNumber}, nil
}

func (env *Env) not(n *Node) (gout, error) {
	// not x in y, not x is None, not a == b: the inverse comparison reads better.
	if c := n.Kids[0]; c.Op == "cmp" && len(c.CmpOp) == 1 {
		inv := map[string]string{"==": "!=", "!=": "==", "in": "not in", "not in": "in", "is": "is not", "is not": "is"}
		if op, ok := inv[c.CmpOp[0]]; ok {
			flipped := *c
			flipped.CmpOp = []string{op}
			return env.comparison(&flipped)
		}
	}
	x, err := env.cond(n.Kids[0])
	if err != nil {
		return gout{}, err
	}
	return gout{s: "!" + x.at(precNot+1), prec: precNot, typ: tBool, bool: true}, nil
}

var arithOps = map[string]int{"+": precAdd, "-": precAdd, "*": precMul, "/": precMul, "%": precMul, "//": precMul, "**": precPow}

func (env *Env) binary(n *Node) (gout, error) {
	l, err := env.valueOf(n.Kids[0])
	if err != nil {
		return gout{}, err
	}
	r, err := env.valueOf(n.Kids[1])
	if err != nil {
		return gout{}, err
	}
	if n.Text == "**" {
		if l.typ == tNone || r.typ == tNone {
			return gout{s: "nil", prec: precAtom, typ: tNone}, nil
		}
		env.lppFails(n.Col, 2, "** is not in lpp's whitelist")
		return gout{s: l.at(precPow+1) + " ** " + r.at(precNeg), prec: precPow, typ: tNumber, nils: append(slices.Clone(l.nils), r.nils...)}, nil
	}
	return env.arithmetic(n, l, r)
}

// comparison emits a comparison chain: a < b < c is (a < b) && (b < c).
func (env *Env) comparison(n *Node) (gout, error) {
	ops := make([]gout, len(n.Kids))
	for i, k := range n.Kids {
		o, err := env.valueOf(k)
		if err != nil {
			return gout{}, err
		}
		o.nils = env.unknown(o.nils)
		ops[i] = o
	}
	parts := make([]string, len(n.CmpOp))
	for i, op := range n.CmpOp {
		l, r := ops[i], ops[i+1]
		if (op == "in" || op == "not in") && r.typ == tString {
			env.failsUnless(l.nils) // None in a string fails in lpp: the gate is false
		}
		if (op == "==" || op == "!=") && l.lit != r.lit {
			// a tuple (or a set) never equals a list: () == [] is False
			parts[i] = map[bool]string{true: "false", false: "true"}[op == "=="]
			continue
		}
		if (op == "==" || op == "!=") && l.lit == "{" {
			// sets are equal whatever their order: {1, 2} == {2, 1}
			s := "(all(" + l.s + ", # in " + r.s + ") && all(" + r.s + ", # in " + l.s + "))"
			if op == "!=" {
				s = "!" + s
			}
			parts[i] = s
			continue
		}
		if op == "in" || op == "not in" {
			s, ok, err := env.inLiteral(op, l, r, n.Kids[i+1])
			if err != nil {
				return gout{}, err
			}
			if ok {
				parts[i] = s
				continue
			}
		}
		if s, ok := boolIn(op, l, r, n.Kids[i+1]); ok {
			parts[i] = s
			continue
		}
		if s, ok := env.crossCompare(op, l, r, n.opCol[i]); ok {
			parts[i] = s
			continue
		}
		s, err := compare(op, l, r, n.Kids[i], n.Kids[i+1], n.opCol[i])
		if err != nil {
			return gout{}, err
		}
		parts[i] = s
	}
	if len(parts) == 1 {
		return gout{s: parts[0], prec: precCmp, typ: tBool, bool: true}, nil
	}
	return gout{s: strings.Join(parts, " && "), prec: precAnd, typ: tBool, bool: true}, nil
}

func compare(op string, l, r gout, ln, rn *Node, col int) (string, error) {
	ls, rs := l.at(precCmp+1), r.at(precCmp+1)
	// Comparing with None: x == nil tests the value (or, for arithmetic,
	// whether one of its reads is None).
	noneTest := func(x gout, eq bool) string {
		if len(x.nils) == 0 || len(x.nils) == 1 && x.nils[0] == x.s {
			return map[bool]string{true: x.at(precCmp+1) + " == nil", false: x.at(precCmp+1) + " != nil"}[eq]
		}
		if eq {
			return "(" + isNil(x.nils) + ")"
		}
		return "(" + nonNil(x.nils) + ")"
	}
	switch op {
	case "is", "is not":
		if rn.Op != "const" && ln.Op != "const" {
			return "", gateErr(col, len(op), "compare values with == or !=",
				"%q compares identity: only `is None`, `is not None`, `is True` and `is False` are supported", op)
		}
		op = map[string]string{"is": "==", "is not": "!="}[op]
	case "in", "not in":
		neg := ""
		if op == "not in" {
			neg = "not "
		}
		var s string
		switch r.typ {
		case tObject, tEvPay:
			if slices.Contains([]string{tInteger, tNumber, tBool, tNone}, l.typ) {
				// a dict's keys are strings (JSON's): 1 in o is False, and
				// so is 1 in None
				return map[bool]string{true: "true", false: "false"}[neg != ""], nil
			}
		}
		switch r.typ {
		case tString:
			s = rs + " " + neg + "contains " + ls
		case tArray, tObject, tEvPay, tAny:
			s = ls + " " + neg + "in " + rs
		default:
			return "", gateErr(col, len(op), "", "%q needs a string, a list or a dict on its right, and this is %s", op, TypeArticle(r.typ))
		}
		// In lpp, x in None is False and x not in None True; None in a
		// string fails (false), None in a list is a plain membership.
		nils := slices.Clone(r.nils) // (None in a string fails: see comparison)
		if len(nils) == 0 {
			return s, nil
		}
		if neg == "" {
			return "(" + nonNil(nils) + " && " + s + ")", nil
		}
		return "(" + isNil(nils) + " || " + s + ")", nil
	}
	switch op {
	case "==", "!=":
		eq := op == "=="
		switch {
		case l.typ == tNone && r.typ == tNone:
			return map[bool]string{true: "true", false: "false"}[eq], nil
		case r.typ == tNone:
			return noneTest(l, eq), nil
		case l.typ == tNone:
			return noneTest(r, eq), nil
		case len(l.nils) == 0 && len(r.nils) == 0:
			return ls + " " + op + " " + rs, nil
		case l.s == "true" || l.s == "false" || r.s == "true" || r.s == "false":
			// expr compares nil with a bool as Python does; arithmetic
			// with None is None, not evaluated (n * None is not True)
			return l.nilOrAt(precCmp+1) + " " + op + " " + r.nilOrAt(precCmp+1), nil
		case len(l.nils) == 0 || len(r.nils) == 0:
			nils := append(slices.Clone(l.nils), r.nils...)
			if eq {
				return guarded(nils, ls+" == "+rs), nil
			}
			return "(" + isNil(nils) + " || " + ls + " != " + rs + ")", nil
		}
		// both may be None: None == None
		s := "((" + isNil(l.nils) + ") && (" + isNil(r.nils) + ") || " + nonNil(append(slices.Clone(l.nils), r.nils...)) + " && " + ls + " == " + rs + ")"
		if !eq {
			s = "!" + s
		}
		return s, nil
	}
	// orderings: False when either side is None
	return guarded(append(slices.Clone(l.nils), r.nils...), ls+" "+op+" "+rs), nil
}

// boolIn emits x in l where Python's == finds an item expr's in does not:
// a bool in a list of any items, or a value of any type in a list literal
// that holds a bool (1 in [True] is True). ok false: the plain translation
// holds.
func boolIn(op string, l, r gout, rn *Node) (string, bool) {
	if op != "in" && op != "not in" || r.typ != tArray {
		return "", false
	}
	hasBool := rn.Op == "list" && slices.ContainsFunc(rn.Kids, func(k *Node) bool {
		return k.Op == "const" && (k.Text == "True" || k.Text == "False")
	})
	// a bool in a list literal of None, bools and strings: expr's in
	plain := rn.Op == "list" && !slices.ContainsFunc(rn.Kids, func(k *Node) bool { return k.Op != "const" && k.Op != "str" })
	if !(l.typ == tBool && !plain) && !(group(l.typ) == "any" && hasBool) {
		return "", false
	}
	s := "py_in(" + l.nilOr() + ", " + r.s + ")"
	switch {
	case op == "in" && len(r.nils) > 0: // x in None is False in lpp
		return "(" + nonNil(r.nils) + " && " + s + ")", true
	case op == "in":
		return s, true
	case len(r.nils) > 0:
		return "(" + isNil(r.nils) + " || !" + s + ")", true
	}
	return "!" + s, true
}
