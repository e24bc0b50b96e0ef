package gate

// Python's operators across types: what the gate translator writes where
// expr's operators differ from Python's or refuse the operands' types
// (1 == True, 'ab' * 2, [1] < [2], 'a' < 1). A construct Python raises on
// (a TypeError, a division by zero) makes lpp's gate false: the
// translation adds the condition under which it does not fail to the
// gate's preconditions (okIf), so that lppctl's gate is false there too.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// group is the kind of values of a type for Python's operators: "num"
// (number, integer), "bool", "str", "arr", "obj", "none", or "any" when
// the type is not known.
func group(typ string) string {
	switch typ {
	case tNumber, tInteger:
		return "num"
	case tBool:
		return "bool"
	case tString:
		return "str"
	case tArray:
		return "arr"
	case tObject, tEvPay:
		return "obj"
	case tNone:
		return "none"
	}
	return "any"
}

// okIf records that lpp's evaluation of the gate fails (the gate is false)
// unless cond holds.
func (env *Env) okIf(cond string) {
	if cond != "" && !slices.Contains(env.errs, cond) {
		env.errs = append(env.errs, cond)
	}
}

// okUnlessNone records that the evaluation fails unless one of nils is
// None (a clash of types, which None escapes: None + 1 is None in lpp);
// with no nils it always fails.
func (env *Env) okUnlessNone(nils []string) {
	if nils = env.unknown(nils); len(nils) == 0 {
		env.okIf("false")
		return
	}
	env.okIf("(" + isNil(nils) + ")")
}

// clash records a construct Python raises a TypeError on for the types
// its operands have (the gate is false in lpp, and so in lppctl), with a
// warning.
func (env *Env) clash(col, span int, what string, nils []string) {
	env.okUnlessNone(nils)
	unless := ""
	if len(env.unknown(nils)) > 0 {
		unless = " (unless a value it reads is None)"
	}
	env.LppFalse = append(env.LppFalse, gateErr(col, max(span, 1), "compare or combine values of the same type",
		"%s: Python raises a TypeError, so lpp evaluates the gate false wherever it gets there%s, and so does lppctl", what, unless))
}

// asNum is a number or a bool as a number (True + 1 is 2).
func asNum(o gout) string {
	if o.typ == tBool {
		return "(" + o.at(precCond+1) + " ? 1 : 0)"
	}
	return o.s
}

func nonZeroLiteral(o gout) bool {
	if len(o.nils) > 0 {
		return false
	}
	f, err := strconv.ParseFloat(o.s, 64)
	return err == nil && f != 0
}

// zeroLiteral reports whether o is the number 0 as a literal (0, 0.0, 0e3).
func zeroLiteral(o gout) bool {
	if len(o.nils) > 0 || o.typ != tInteger && o.typ != tNumber {
		return false
	}
	f, err := strconv.ParseFloat(o.s, 64)
	return err == nil && f == 0
}

// divisorOK records that a / b, a // b and a % b fail on a zero b (unless
// a None makes the result None first).
func (env *Env) divisorOK(r gout, rs string, nils []string) {
	if nonZeroLiteral(r) {
		return
	}
	cond := rs + " != 0"
	if nils = env.unknown(nils); len(nils) > 0 {
		cond = "(" + isNil(nils) + " || " + cond + ")"
	}
	env.okIf(cond)
}

// arithmetic emits l op r for + - * / // % (not **) with Python's meaning.
func (env *Env) arithmetic(n *Node, l, r gout) (gout, error) {
	op := n.Text
	nils := append(slices.Clone(l.nils), r.nils...) // None on either side: None
	if l.typ == tNone || r.typ == tNone {
		return gout{s: "nil", prec: precAtom, typ: tNone}, nil
	}
	lg, rg := group(l.typ), group(r.typ)
	prec := arithOps[op]
	infix := func(ls, rs, typ string) gout {
		return gout{s: ls + " " + op + " " + rs, prec: prec, typ: typ, nils: nils}
	}
	call := func(fn, ls, rs, typ string) gout {
		return gout{s: fn + "(" + ls + ", " + rs + ")", prec: precAtom, typ: typ, nils: nils}
	}
	if lg == "str" && op == "%" {
		return gout{}, gateErr(n.opCol[0], 1, "compare the parts of the string instead", "string formatting with %% is not supported in a gate")
	}
	if (op == "/" || op == "//" || op == "%") && zeroLiteral(r) {
		// x / 0: the divisor is always 0 (spec validation refuses the
		// division as written), so the evaluation always fails, unless x
		// is None (None / 0 is None in lpp)
		env.okUnlessNone(l.nils)
		unless := ""
		if len(env.unknown(l.nils)) > 0 {
			unless = " (unless a value it reads is None)"
		}
		env.LppFalse = append(env.LppFalse, gateErr(n.opCol[0], len(op), "divide by a value that is not always 0",
			"division by zero: Python raises a ZeroDivisionError, so lpp evaluates the gate false wherever it gets there%s, and so does lppctl", unless))
		return gout{s: "nil", prec: precAtom, typ: tNone}, nil
	}
	isNum := func(g string) bool { return g == "num" || g == "bool" }
	switch {
	case lg == "any" || rg == "any":
		other := rg // the typed side's group ("any" when both are untyped)
		if rg == "any" {
			other = lg
		}
		switch {
		case other == "obj", (other == "arr" || other == "str") && (op == "-" || op == "/" || op == "//" || op == "%"):
			// a dict in arithmetic, a list or a string minus or divided by
			// anything: a TypeError whatever the other value (expr refused
			// the translation: mismatched types any and list)
			env.clash(n.opCol[0], len(op), fmt.Sprintf("%s %s %s", TypeArticle(l.typ), op, TypeArticle(r.typ)), nils)
			return gout{s: "nil", prec: precAtom, typ: tNone}, nil
		case op == "+" && other == "arr": // a TypeError unless the other is a list too
			return call("concat", l.s, r.s, tArray), nil
		case op == "*" && (other == "arr" || other == "str"): // a repetition if the other is an int
			ok := "py_ok(\"mul\", " + l.s + ", " + r.s + ")"
			if u := env.unknown(nils); len(u) > 0 {
				ok = "(" + isNil(u) + " || " + ok + ")"
			}
			env.okIf(ok)
			return call("py_mul", l.s, r.s, tAny), nil
		case op == "/" && other != "any" && other != "none":
			env.divisorOK(r, r.at(precCmp+1), nils)
			return infix(l.at(prec), r.at(prec+1), tNumber), nil // true division gives a float (expr types it so)
		}
		switch op {
		case "//", "%": // the operands' types are known only when the gate runs
			fn := map[string]string{"//": "py_floordiv", "%": "py_mod"}[op]
			cond := "py_ok(" + strconv.Quote(fn[3:]) + ", " + l.s + ", " + r.s + ")"
			if u := env.unknown(nils); len(u) > 0 {
				cond = "(" + isNil(u) + " || " + cond + ")"
			}
			env.okIf(cond)
			return call(fn, l.s, r.s, tAny), nil
		case "/":
			env.divisorOK(r, r.at(precCmp+1), nils)
		}
		return infix(l.at(prec), r.at(prec+1), tAny), nil
	case isNum(lg) && isNum(rg):
		typ := tNumber
		if l.typ != tNumber && r.typ != tNumber && op != "/" {
			typ = tInteger
		}
		ls, rs := l.at(prec), r.at(prec+1)
		if l.typ == tBool {
			ls = asNum(l)
		}
		if r.typ == tBool {
			rs = asNum(r)
		}
		switch op {
		case "/":
			env.divisorOK(r, rs, nils)
		case "//", "%":
			env.divisorOK(r, rs, nils)
			fn := map[string]string{"//": "py_floordiv", "%": "py_mod"}[op]
			return call(fn, asNumText(l), asNumText(r), typ), nil
		}
		return infix(ls, rs, typ), nil
	case op == "+" && lg == "str" && rg == "str":
		return infix(l.at(prec), r.at(prec+1), tString), nil
	case op == "+" && lg == "arr" && rg == "arr":
		return call("concat", l.s, r.s, tArray), nil
	case op == "*" && (lg == "str" || lg == "arr") && (r.typ == tInteger || r.typ == tBool),
		op == "*" && (rg == "str" || rg == "arr") && (l.typ == tInteger || l.typ == tBool):
		typ := l.typ
		if lg != "str" && lg != "arr" {
			typ = r.typ
		}
		ok := "py_ok(\"mul\", " + l.s + ", " + r.s + ")" // a repetition past lppctl's bound fails
		if u := env.unknown(nils); len(u) > 0 {
			ok = "(" + isNil(u) + " || " + ok + ")"
		}
		env.okIf(ok)
		return call("py_mul", l.s, r.s, typ), nil
	}
	env.clash(n.opCol[0], len(op), fmt.Sprintf("%s %s %s", TypeArticle(l.typ), op, TypeArticle(r.typ)), nils)
	return gout{s: "nil", prec: precAtom, typ: tNone}, nil
}

func asNumText(o gout) string {
	if o.typ == tBool {
		return asNum(o)
	}
	return o.s
}

// crossCompare emits l op r where expr's operators cannot (ok false: the
// plain translation holds).
func (env *Env) crossCompare(op string, l, r gout, col int) (string, bool) {
	lg, rg := group(l.typ), group(r.typ)
	nils := append(slices.Clone(l.nils), r.nils...)
	switch op {
	case "==", "!=":
		loose := (l.loose || r.loose) && lg != "none" && rg != "none" // the types are known only when the gate runs: 1 == True
		// a bool against a value of any type (a dict's field, an untyped
		// property), which may be a number: 1 == True, 1.0 == True,
		// 0 == False. A bool against a bool keeps expr's ==.
		loose = loose || lg == "bool" && rg == "any" || lg == "any" && rg == "bool"
		// a number against a value whose type is unknown until the gate
		// runs (a dict's field, a property of no type), which may be a
		// bool: True == 1, False == 0.0. A payload field is typed from
		// this very comparison (a number): expr's == holds.
		loose = loose || lg == "num" && rg == "any" && !r.payField || lg == "any" && !l.payField && rg == "num"
		// two values whose types are unknown until the gate runs
		// (o['a'] == o['b']): either may be a number or a bool
		loose = loose || lg == "any" && rg == "any" && !l.payField && !r.payField
		if !loose && (lg == rg || lg == "any" || rg == "any" || lg == "none" || rg == "none") {
			return "", false
		}
		if !loose && lg == "num" && l.typ != r.typ && rg == "num" {
			return "", false // expr compares an int with a float
		}
		// Python's ==: 1 == True, 1 != '1', None == None (n + 1 is None
		// when n is: nilOr, so that the sum is not evaluated)
		s := "py_eq(" + l.nilOr() + ", " + r.nilOr() + ")"
		if op == "!=" {
			s = "!" + s
		}
		return s, true
	case "is", "is not":
		if (l.s == "true" || l.s == "false" || r.s == "true" || r.s == "false") && lg != rg && lg != "any" && rg != "any" {
			return map[bool]string{true: "false", false: "true"}[op == "is"], true // 1 is True is False
		}
		return "", false
	case "in", "not in":
		switch {
		case rg == "obj" && (lg == "arr" || lg == "obj") && l.lit != "(":
			// a list, a dict or a set as a dict's key: unhashable, a
			// TypeError unless the dict is None (expr refused the
			// translation: cannot use list as type string in map key)
			if u := env.unknown(r.nils); len(u) > 0 {
				env.okIf("(" + isNil(u) + ")")
			} else {
				env.okIf("false")
			}
			env.LppFalse = append(env.LppFalse, gateErr(col, len(op), "compare or combine values of the same type",
				"%q with %s on its left and a dict on its right: Python raises a TypeError (unhashable), so lpp evaluates the gate false wherever it gets there, and so does lppctl", op, TypeArticle(l.typ)))
			return map[bool]string{true: "false", false: "true"}[op == "in"], true
		case rg == "none":
			return map[bool]string{true: "false", false: "true"}[op == "in"], true // x in None is False in lpp
		case rg == "str" && (lg == "str" || lg == "any" || lg == "none"), rg == "arr" || rg == "obj" || rg == "any":
			return "", false
		}
		// 1 in 'abc', 'a' in 5: a TypeError unless the right side is None
		env.clash(col, len(op), fmt.Sprintf("%q with %s on its left and %s on its right", op, TypeArticle(l.typ), TypeArticle(r.typ)), r.nils)
		return map[bool]string{true: "false", false: "true"}[op == "in"], true
	}
	// orderings
	switch {
	case lg == "none" || rg == "none":
		return "false", true // an ordering with None is False in lpp
	case (l.lit == "(") != (r.lit == "("):
		// a tuple orders only with a tuple, and a context holds none: a
		// TypeError ([1] < (1, 2)), or None, which is False too
		return "false", true
	case l.loose || r.loose, // the types are known only when the gate runs
		// a value of any type against a list, a dict or a bool, which
		// expr's orderings refuse before the gate runs (x < (1, 2),
		// x < True): Python's ordering, false where Python raises
		lg == "any" && (rg == "arr" || rg == "obj" || rg == "bool"), rg == "any" && (lg == "arr" || lg == "obj" || lg == "bool"):
		// (with None on a side, the ordering is False, and arithmetic
		// with None is None: neither is evaluated)
		u := env.unknown(nils)
		ok := "py_ok(\"cmp\", " + l.s + ", " + strconv.Quote(op) + ", " + r.s + ")"
		if len(u) > 0 {
			ok = "(" + isNil(u) + " || " + ok + ")"
		}
		env.okIf(ok)
		return guarded(u, "py_cmp("+l.s+", "+strconv.Quote(op)+", "+r.s+")"), true
	case lg == "any" || rg == "any", lg == "num" && rg == "num", lg == "str" && rg == "str":
		return "", false
	case (lg == "num" || lg == "bool") && (rg == "num" || rg == "bool"):
		s := "py_cmp(" + l.s + ", " + strconv.Quote(op) + ", " + r.s + ")"
		if l.nilOr() != l.at(precOr) || r.nilOr() != r.at(precOr) { // n + 1 with n None: None, not evaluated
			s = guarded(env.unknown(nils), s)
		}
		return s, true
	case lg == "arr" && rg == "arr": // item by item; items of clashing types fail
		env.okIf("py_ok(\"cmp\", " + l.s + ", " + strconv.Quote(op) + ", " + r.s + ")")
		return "py_cmp(" + l.s + ", " + strconv.Quote(op) + ", " + r.s + ")", true
	}
	env.clash(col, len(op), fmt.Sprintf("%s %s %s", TypeArticle(l.typ), op, TypeArticle(r.typ)), nils)
	return "false", true
}

// constKey is the value of a constant item as a set holds it (1, 1.0 and
// True are one value; "" for an item that is no constant).
func constKey(n *Node) string {
	switch n.Op {
	case "str":
		return "s" + n.Text
	case "num":
		f, err := strconv.ParseFloat(strings.ReplaceAll(n.Text, "_", ""), 64)
		if err != nil {
			return ""
		}
		return "n" + strconv.FormatFloat(f, 'g', -1, 64)
	case "const":
		return map[string]string{"True": "n1", "False": "n0", "None": "None"}[n.Text]
	}
	return ""
}

// tupleKind is "(" for a tuple, "{" for a set, "" for any other value: a
// tuple equals only a tuple and a set only a set, and a context holds
// neither (JSON has lists only).
func tupleKind(n *Node) string {
	if n.Op == "list" {
		return n.Text
	}
	return ""
}

// inLiteral translates x in y where Python's == tells apart what expr's
// lists do not: a tuple or set literal is in no list a context holds
// (() in l is False), in a list literal only the items of its own kind
// may equal it (() in [[]] is False, () in [()] True), and a value of a
// type unknown until the gate runs (a payload field, a dict's key) is
// compared with a list literal's items by Python's == (2 in ['a'] is
// False, 1 in [True] True), not by expr's in, which refuses an int among
// strings. ok is false when nothing of this applies.
func (env *Env) inLiteral(op string, l, r gout, rn *Node) (string, bool, error) {
	never := map[bool]string{true: "false", false: "true"}[op == "in"]
	if rn.Op != "list" {
		if l.lit == "{" && group(r.typ) == "obj" {
			return "", false, nil // a set as a dict's key: unhashable (crossCompare)
		}
		if l.lit != "" && group(r.typ) != "str" {
			return never, true, nil // () in l: l holds no tuple (None: in is False too)
		}
		return "", false, nil
	}
	var kept []*Node
	for _, k := range rn.Kids {
		if tupleKind(k) == l.lit || l.lit == "" && tupleKind(k) == "" {
			kept = append(kept, k)
		}
	}
	if len(kept) == 0 {
		return never, true, nil
	}
	r, err := env.valueOf(&Node{Op: "list", Text: rn.Text, Col: rn.Col, Span: rn.Span, Kids: kept})
	if err != nil {
		return "", false, err
	}
	if g := group(l.typ); (g == "any" || g == "arr" || g == "obj") && l.lit == "" {
		s := "py_in(" + l.nilOr() + ", " + r.s + ")"
		if op == "not in" {
			s = "!" + s
		}
		return s, true, nil
	}
	if len(kept) == len(rn.Kids) {
		return "", false, nil
	}
	return l.at(precCmp+1) + " " + op + " " + r.s, true, nil
}
