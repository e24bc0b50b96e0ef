package gate

// The gate translator's attribute access, subscripts, function and method
// calls (gate.go holds the translator and its operators).

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

func (env *Env) attr(n *Node) (gout, error) {
	base, err := env.emit(n.Kids[0])
	if err != nil {
		return gout{}, err
	}
	col := n.opCol[0]
	switch base.typ {
	case tEvent:
		switch n.Text {
		case "payload":
			return gout{s: env.Payload, prec: precAtom, typ: tEvPay}, nil
		case "name", "type":
			if env.EventName != "" {
				return gout{s: strconv.Quote(env.EventName), prec: precAtom, typ: tString}, nil
			}
			return gout{s: "event.name", prec: precAtom, typ: tString}, nil
		}
		return gout{}, gateErr(col, len([]rune(n.Text)), "read event.payload or event.name", "event has no field %q", n.Text)
	case tEvPay:
		if IdentRE.MatchString(n.Text) && !ReservedName(n.Text) {
			return gout{s: base.s + "." + n.Text, prec: precAtom, typ: tAny, nils: []string{base.s + "." + n.Text}, payField: true}, nil
		}
		x := base.s + "[" + strconv.Quote(n.Text) + "]"
		return gout{s: x, prec: precAtom, typ: tAny, nils: []string{x}, payField: true}, nil
	}
	switch base.typ {
	case tObject, tAny, tNone:
		// lpp: a dict's key (None when missing), None on None.
		var x string
		if IdentRE.MatchString(n.Text) && !ReservedName(n.Text) {
			x = base.at(precAtom) + "?." + n.Text
		} else {
			x = base.at(precAtom) + "?.[" + strconv.Quote(n.Text) + "]"
		}
		return gout{s: x, prec: precAtom, typ: tAny, nils: []string{x}}, nil
	}
	return gout{}, gateErr(col, len([]rune(n.Text)), fmt.Sprintf("read a key with x['%s'] or x.get('%s')", n.Text, n.Text),
		"attribute access (.%s) is not supported on %s: lpp evaluates it false as well", n.Text, TypeArticle(base.typ))
}

func (env *Env) subscript(n *Node) (gout, error) {
	if b := n.Kids[0]; b.Op == "name" && b.Text == "event" && n.Op == "index" && n.Kids[1].Op == "str" {
		// lpp's event is a dict: event['name'] is event.name
		k := n.Kids[1]
		return env.attr(&Node{Op: "attr", Text: k.Text, Col: n.Col, Span: n.Span, Kids: []*Node{b}, opCol: []int{k.Col}})
	}
	base, err := env.valueOf(n.Kids[0])
	if err != nil {
		return gout{}, err
	}
	typ := tAny
	if base.typ == tString {
		typ = tString
	}
	if n.Op == "slice" {
		env.lppFails(n.opCol[0], 1, "a slice is not in lpp's whitelist")
		if base.typ != tString && base.typ != tArray && base.typ != tAny {
			return gout{}, gateErr(n.opCol[0], 1, "", "only a string or a list can be sliced, and this is %s", TypeArticle(base.typ))
		}
		var lo, hi string
		for i, k := range n.Kids[1:] {
			if k == nil {
				continue
			}
			o, err := env.valueOf(k)
			if err != nil {
				return gout{}, err
			}
			if i == 0 {
				lo = o.at(precCond + 1)
			} else {
				hi = o.at(precCond + 1)
			}
		}
		if base.typ == tArray {
			typ = tArray
		}
		return gout{s: base.at(precAtom) + "[" + lo + ":" + hi + "]", prec: precAtom, typ: typ}, nil
	}
	idx, err := env.valueOf(n.Kids[1])
	if err != nil {
		return gout{}, err
	}
	if idx.typ == tNone {
		return gout{}, gateErr(n.Kids[1].Col, n.Kids[1].Span, "", "None is not a valid index")
	}
	var x string
	switch {
	case base.typ == tString:
		// lpp's evaluator refuses a string's items; s[i] on None is None
		env.okUnlessNone(base.nils)
		unless := ""
		if len(env.unknown(base.nils)) > 0 {
			unless = " (unless the string is None: then it is None)"
		}
		env.LppFalse = append(env.LppFalse, gateErr(n.opCol[0], 1, "compare the whole string, or use a compute gate",
			"lpp's evaluator cannot index a string: the gate is false in lpp wherever it gets there%s, and so it is in lppctl", unless))
		return gout{s: "nil", prec: precAtom, typ: tNone}, nil
	case base.typ == tObject && idx.typ != tString && idx.typ != tAny:
		// a JSON object's keys are strings: d.get(1) is None
		return gout{s: "nil", prec: precAtom, typ: tNone}, nil
	case base.typ == tArray && idx.typ != tInteger && idx.typ != tBool && idx.typ != tAny:
		env.clash(n.opCol[0], 1, "a list indexed with "+TypeArticle(idx.typ), base.nils)
		return gout{s: "nil", prec: precAtom, typ: tNone}, nil
	case base.typ == tArray:
		x = "get(" + base.s + ", " + idx.s + ")" // None out of range, and on None
	default: // a dict's key, None when missing, None on None
		if k := n.Kids[1]; k.Op == "str" && IdentRE.MatchString(k.Text) && !ReservedName(k.Text) {
			x = base.at(precAtom) + "?." + k.Text
		} else {
			x = base.at(precAtom) + "?.[" + idx.s + "]"
		}
	}
	return gout{s: x, prec: precAtom, typ: typ, nils: []string{x}, payField: base.typ == tEvPay}, nil
}

// functions maps the Python builtins a gate may call to the gate
// functions (machine/spec/pyfuncs.go) or expr's, with their result type and
// their number of arguments (min, max; max -1: any).
var functions = map[string]struct {
	expr     string
	typ      string
	min, max int
}{
	"len":   {"len", tInteger, 1, 1},
	"abs":   {"py_abs", tNumber, 1, 1},
	"min":   {"py_min", tAny, 1, -1},
	"max":   {"py_max", tAny, 1, -1},
	"str":   {"py_str", tString, 1, 1},
	"int":   {"py_int", tInteger, 1, 1},
	"float": {"py_float", tNumber, 1, 1},
	"sum":   {"py_sum", tNumber, 1, 1},
	"round": {"py_round", tInteger, 1, 2},
	"bool":  {"", tBool, 1, 1},
	"any":   {"any", tBool, 1, 1},
	"all":   {"all", tBool, 1, 1},
}

func (env *Env) call(n *Node) (gout, error) {
	fn := n.Kids[0]
	if fn.Op != "name" {
		return gout{}, gateErr(n.opCol[0], 1, "", "only functions can be called")
	}
	f, ok := functions[fn.Text]
	if !ok {
		names := make([]string, 0, len(functions))
		for k := range functions {
			names = append(names, k)
		}
		slices.Sort(names)
		return gout{}, gateErr(fn.Col, fn.Span, cmp.Or(mspec.DidYouMeanHint(fn.Text, names), "use a compute gate for anything else"),
			"function %s() is not supported in a gate (supported: %s)", fn.Text, strings.Join(names, ", "))
	}
	args := n.Kids[1:]
	if (fn.Text == "any" || fn.Text == "all") && len(args) == 1 && args[0].Op == "list" {
		return env.anyAllOfList(fn.Text, args[0])
	}
	if len(args) < f.min || f.max >= 0 && len(args) > f.max {
		want := plural(f.min, "argument")
		if f.max != f.min {
			want = fmt.Sprintf("%d or %d arguments", f.min, f.max)
		}
		return gout{}, gateErr(fn.Col, fn.Span, "", "%s() takes %s, not %d", fn.Text, want, len(args))
	}
	outs := make([]gout, len(args))
	parts := make([]string, len(args))
	for i, a := range args {
		o, err := env.valueOf(a)
		if err != nil {
			return gout{}, err
		}
		outs[i], parts[i] = o, o.s
	}
	typ := f.typ
	switch fn.Text {
	case "bool": // Python's truth value, never None
		return env.truth(outs[0], args[0])
	case "str": // str(None) is 'None': never fails
		if o := outs[0]; o.typ == tNumber && len(o.nils) == 1 && o.nils[0] == o.s { // a number property's value
			return gout{s: f.expr + "(" + parts[0] + `, "number")`, prec: precAtom, typ: tString}, nil
		}
		return gout{s: f.expr + "(" + parts[0] + ")", prec: precAtom, typ: tString}, nil
	case "any", "all":
		env.failsUnless(outs[0].nils) // any(None) fails in lpp: the gate is false
		return gout{s: f.expr + "(" + parts[0] + " ?? [], " + pyTruthy("#") + ")", prec: precAtom, typ: tBool, bool: true}, nil
	case "len":
		switch o := outs[0]; o.typ {
		case tString, tArray, tObject, tEvPay:
			env.failsUnless(o.nils) // len(None) fails in lpp: the gate is false
			return gout{s: "len(" + parts[0] + ")", prec: precAtom, typ: tInteger}, nil
		case tAny:
			f.expr = "py_len"
		default:
			env.clash(args[0].Col, max(args[0].Span, 1), "len() of "+TypeArticle(o.typ), nil)
			return gout{s: "0", prec: precAtom, typ: tInteger}, nil
		}
	case "abs":
		if outs[0].typ == tInteger || outs[0].typ == tBool {
			typ = tInteger
		}
	case "round":
		if len(args) == 2 && outs[0].typ != tInteger && outs[0].typ != tBool {
			typ = tNumber // round(x, n) keeps a float a float
		}
	case "min", "max":
		if len(args) > 1 {
			typ = outs[0].typ
			for _, o := range outs[1:] {
				if o.typ != typ {
					typ = tAny
				}
			}
		}
	}
	// the function fails where Python raises (int('abc'), sum([1, None]),
	// min([])): the gate is then false
	env.okIf("py_ok(" + strconv.Quote(strings.TrimPrefix(f.expr, "py_")) + ", " + strings.Join(parts, ", ") + ")")
	return gout{s: f.expr + "(" + strings.Join(parts, ", ") + ")", prec: precAtom, typ: typ, loose: typ == tAny}, nil
}

// anyAllOfList translates any([a, b]) / all((a, b)) over a list written
// in the gate: each item's truth value in Python's sense, then expr's
// any/all of the bools (a typed list of bools cannot take the generic truth
// test, which compares an item with 0). Python evaluates every item before
// any() looks at them, so an item whose evaluation fails fails the gate, as
// the items' own conditions say.
func (env *Env) anyAllOfList(fn string, list *Node) (gout, error) {
	parts := make([]string, len(list.Kids))
	for i, k := range list.Kids {
		o, err := env.cond(k) // refuses event, which is not a value
		if err != nil {
			return gout{}, err
		}
		parts[i] = o.s
	}
	return gout{s: fn + "([" + strings.Join(parts, ", ") + "], #)", prec: precAtom, typ: tBool, bool: true}, nil
}

func plural(n int, w string) string {
	if n == 1 {
		return "1 " + w
	}
	return fmt.Sprintf("%d %ss", n, w)
}

// methods maps the Python methods a gate may call to expr functions:
// name → function, result type, arguments after the receiver.
var methods = map[string]struct {
	expr string
	typ  string
	args int
}{
	"startswith": {"hasPrefix", tBool, 1},
	"endswith":   {"hasSuffix", tBool, 1},
	"lower":      {"lower", tString, 0},
	"upper":      {"upper", tString, 0},
	"strip":      {"trim", tString, 0},
	"keys":       {"keys", tArray, 0},
	"values":     {"values", tArray, 0},
}

func (env *Env) method(n *Node) (gout, error) {
	recv, err := env.emit(n.Kids[0])
	if err != nil {
		return gout{}, err
	}
	if recv.typ == tEvent {
		return gout{}, gateErr(n.Kids[0].Col, 5, "read event.payload.NAME or event.payload.get('NAME')", "event has no method %s()", n.Text)
	}
	args := n.Kids[1:]
	col := n.opCol[0] - len([]rune(n.Text))
	env.lppFails(col, len([]rune(n.Text)), "a method call ("+n.Text+"()) is not in lpp's whitelist")
	if n.Text == "get" {
		return env.get(recv, args, n, col)
	}
	m, ok := methods[n.Text]
	if !ok {
		names := []string{"get"}
		for k := range methods {
			names = append(names, k)
		}
		slices.Sort(names)
		return gout{}, gateErr(col, len([]rune(n.Text)), cmp.Or(mspec.DidYouMeanHint(n.Text, names), "use a compute gate for anything else"),
			"method %s() is not supported in a gate (supported: %s)", n.Text, strings.Join(names, ", "))
	}
	if len(args) != m.args {
		return gout{}, gateErr(col, len([]rune(n.Text)), "", "%s() takes %s here, not %d", n.Text, plural(m.args, "argument"), len(args))
	}
	parts := []string{recv.s}
	for _, a := range args {
		o, err := env.valueOf(a)
		if err != nil {
			return gout{}, err
		}
		parts = append(parts, o.s)
	}
	x := m.expr + "(" + strings.Join(parts, ", ") + ")"
	if m.typ == tBool {
		return gout{s: guarded(recv.nils, x), prec: precAtom, typ: tBool, bool: true}, nil
	}
	return gout{s: x, prec: precAtom, typ: m.typ, nils: recv.nils}, nil
}

// get translates d.get(k) to d?.k (nil when the key is missing or d is
// None) and d.get(k, default) to (d?.k ?? default).
func (env *Env) get(recv gout, args []*Node, n *Node, col int) (gout, error) {
	if len(args) < 1 || len(args) > 2 {
		return gout{}, gateErr(col, 3, "", "get() takes 1 or 2 arguments, not %d", len(args))
	}
	switch recv.typ {
	case tString, tArray, tNumber, tInteger, tBool, tNone:
		return gout{}, gateErr(col, 3, "", "get() is a dict method, and this is %s", TypeArticle(recv.typ))
	}
	key, err := env.valueOf(args[0])
	if err != nil {
		return gout{}, err
	}
	var s string
	if args[0].Op == "str" && IdentRE.MatchString(args[0].Text) && !ReservedName(args[0].Text) {
		s = recv.at(precAtom) + "?." + args[0].Text
	} else {
		s = recv.at(precAtom) + "?.[" + key.s + "]"
	}
	if len(args) == 1 {
		return gout{s: s, prec: precAtom, typ: tAny, nils: []string{s}, payField: recv.typ == tEvPay}, nil
	}
	def, err := env.valueOf(args[1])
	if err != nil {
		return gout{}, err
	}
	typ := tAny
	if def.typ != tNone {
		typ = def.typ
	}
	return gout{s: "(" + s + " ?? " + def.at(precAtom) + ")", prec: precAtom, typ: typ}, nil
}
