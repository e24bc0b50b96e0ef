package machine

import (
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
	"github.com/lppctl/lppctl/machine/internal/grow"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// A set that adds text to the end of a string variable, `log: log + "\n" +
// line`, would copy the whole string at every step (once per `+`: expr
// builds each sum anew): a run whose transcript gains a line per transition
// would be quadratic. Such a set is compiled twice, as lists' appends are
// (see appendTail): as written, and as the list of the parts added. At run
// time the parts are added to bytes the run owns, in place when their spare
// capacity allows: O(1) amortized per byte added.
//
// Values stay immutable as far as anyone else sees: the run writes the
// bytes only past the longest string it handed out of them (its variable's
// value), so no string anyone holds ever changes. The journal tells the
// text added from the value it wrote last at no cost either: the new value
// starts with the very bytes of the old one (see runstore's vars_concat).

// textParts compiles the parts a set of string variable v adds to its own
// value, when the expression is `NAME + PART1 + PART2...` with NAME v's own
// name: `[PART1, PART2, ...]`. A conditional may hold that shape in either
// branch or both, the idiom of a text that gains a separator once it is not
// empty (`log == "" ? line : log + "\n" + line`): it compiles to the
// conditional with the parts in those branches and `{whole: (EXPR)}` in the
// others, whose steps are evaluated as written. It is nil for any other
// shape, for a variable with an enum (its every value is checked against
// it) and when the parts do not compile.
func textParts(src string, v *mspec.Var, env map[string]any) *vm.Program {
	if v.Type != mspec.TypeString || len(v.Enum) > 0 {
		return nil
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return nil
	}
	body, ok := partsOf(tree.Node, v.Name)
	if !ok {
		return nil
	}
	p, err := mspec.CompileValue(body, mspec.TypeAny, env)
	if err != nil {
		return nil
	}
	return p
}

// partsOf writes n as textParts compiles it, and says whether a branch of
// it adds to the variable name.
func partsOf(n ast.Node, name string) (string, bool) {
	if c, ok := n.(*ast.ConditionalNode); ok {
		a, okA := partsOf(c.Exp1, name)
		b, okB := partsOf(c.Exp2, name)
		return "(" + c.Cond.String() + ") ? " + a + " : " + b, okA || okB
	}
	whole := n
	var parts []ast.Node
	for {
		b, ok := n.(*ast.BinaryNode)
		if !ok || b.Operator != "+" {
			break
		}
		parts = append(parts, b.Right)
		n = b.Left
	}
	if id, ok := n.(*ast.IdentifierNode); ok && id.Value == name && len(parts) > 0 {
		list := "["
		for i := len(parts) - 1; i >= 0; i-- {
			list += parts[i].String()
			if i > 0 {
				list += ", "
			}
		}
		return list + "]", true
	}
	return "{whole: (" + whole.String() + ")}", false
}

// addText evaluates the parts a adds to its string variable, when a is
// such a set and the variable holds a string: the new value. ok is false
// when the set must be evaluated as written: a part that is not a string (a
// sum of numbers, say, which `+` would add), the parts failing (for the
// error's sake), the value past MaxValueBytes.
func (r *Run) addText(a *Cassign) (val string, own []byte, ok bool) {
	if a.text == nil {
		return "", nil, false
	}
	cur, isString := r.env[a.V.Name].(string)
	if !isString {
		return "", nil, false
	}
	t, err := r.vm.Run(a.text, r.env)
	if err != nil {
		return "", nil, false
	}
	parts, _ := t.([]any) // else {whole: ...}: a branch evaluated as written
	n := len(cur)
	for _, p := range parts {
		s, isString := p.(string)
		if !isString {
			return "", nil, false
		}
		n += len(s)
	}
	if n > mspec.MaxValueBytes || n == len(cur) {
		return "", nil, false
	}
	own = grow.Room(r.text[a.V.Name], cur, n)
	for _, p := range parts { // within own's capacity: in place
		own = append(own, p.(string)...)
	}
	return grow.String(own), own, true
}

// keepText records that the run owns the bytes of string variable name's
// new value (nil: it was set otherwise).
func (r *Run) keepText(name string, own []byte) {
	if own == nil {
		if r.text != nil {
			delete(r.text, name)
		}
		return
	}
	if r.text == nil {
		r.text = map[string][]byte{}
	}
	r.text[name] = own
}
