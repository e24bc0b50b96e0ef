package check

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check/sample"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// The values the model checker gives a variable an action writes:
//
//	bool             false, true
//	string with enum its enum values
//	string           "", its default, every literal an expression compares it with
//	                 (==, !=, in, contains, startsWith, endsWith, matches
//	                 and a string the pattern matches (sample.Regex),
//	                 hasPrefix, hasSuffix; through upper, lower, trim: the
//	                 literal in its own, lower and upper case), these padded
//	                 to n and n+1 bytes when its len is compared with n, and
//	                 one other value ("other")
//	int with range   every value of [lo, hi]
//	int              its default, and c-1, c, c+1 for every value c an
//	                 expression compares it with (the other side of the
//	                 comparison, evaluated at the defaults; a divisor of
//	                 / or % is compared with 0; through arithmetic with
//	                 constants, the value where the sides meet: arith);
//	                 default+1 when nothing is
//	                 compared with it
//	float            as int, with c-1.0, c, c+1.0
//	list             its default, [] and ["item"], a list of each element
//	                 the spec looks for in it, these padded with "item" to
//	                 n and n+1 items when its len is compared with n
//	                 (containerValues)
//	map              its default, {} and {"key": "value"}, a map of each key
//	                 the spec reads with each value it compares the key
//	                 with, these padded to n and n+1 keys when its len is
//	                 compared with n (containerValues)
//	any              (payload fields) null, false, true, the values of a
//	                 string, an int, a list and a map as above, and c-1.0, c,
//	                 c+1.0 for every float c an expression compares it with
//
// A nullable variable also takes null when the action's write is declared
// of type any (writesNull): the action passes on a value from outside (a
// field of the model's JSON reply, a key of a script's JSON output, such as
// an L++ compute unit's None, a child run's variable), and JSON's null is
// one. A write declared of a type (a reply's text, a tool's status) is a
// value of that type.
//
// The error text of a failed action (last_error on its on_error route) is
// every literal an expression compares last_error with, and "error".
const otherValue = "other"

// compared collects, per variable, the values expressions compare it with.
type compared map[string][]any

// comparedValues walks every expression of the spec and records, for each
// `VAR op OTHER` (and hasPrefix(VAR, OTHER)...), OTHER evaluated at the
// variables' initial values (their defaults, or the values given).
func comparedValues(spec *mspec.Spec, given map[string]any) compared {
	env := map[string]any{mspec.VarState: spec.Initial, mspec.VarLastError: ""}
	for _, v := range spec.Context {
		env[v.Name] = machine.CloneValue(v.Default)
		if val, ok := given[v.Name]; ok {
			env[v.Name] = val
		}
	}
	// Payload fields are compared as event.payload.FIELD; they are known
	// under that name (not an identifier, so no expression can read it).
	for _, d := range spec.EventDecls {
		for _, f := range d.Payload {
			env[payloadKey(f.Name)] = f.Type.Zero()
		}
	}
	out := compared{}
	for _, src := range specExpressions(spec) {
		tree, err := parser.Parse(src)
		if err != nil {
			continue
		}
		node := tree.Node
		ast.Walk(&node, &compareVisitor{env: env, out: out})
	}
	return out
}

// specExpressions returns the text of every guard, set, invariant and
// final_requires of the spec.
func specExpressions(spec *mspec.Spec) []string {
	var out []string
	sets := func(as []*mspec.Assign) {
		for _, a := range as {
			out = append(out, a.Expr)
		}
	}
	for _, st := range spec.States {
		sets(st.Set)
		for _, t := range st.Transitions() {
			if t.When != "" {
				out = append(out, t.When)
			}
			sets(t.Set)
		}
		for _, c := range st.FinalRequires {
			out = append(out, c.Expr)
		}
	}
	for _, ev := range spec.Events {
		if ev.When != "" {
			out = append(out, ev.When)
		}
		sets(ev.Set)
	}
	for _, c := range spec.Invariants {
		out = append(out, c.Expr)
	}
	return out
}

type compareVisitor struct {
	env map[string]any
	out compared
}

// orderOps compare numbers (arith inverts arithmetic around them).
var orderOps = []string{"==", "!=", "<", "<=", ">", ">="}

var comparisonOps = []string{"==", "!=", "<", "<=", ">", ">=", "in", "contains", "startsWith", "endsWith", "matches"}

func (c *compareVisitor) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.BinaryNode:
		if n.Operator == "/" || n.Operator == "%" {
			// A divisor is compared with zero: the run fails on it.
			if name, ok := comparedName(n.Right); ok {
				if _, known := c.env[name]; known {
					c.out[name] = append(c.out[name], 0)
				}
			}
			return
		}
		if n.Operator == "&&" || n.Operator == "||" || n.Operator == "and" || n.Operator == "or" {
			c.condition(n.Left)
			c.condition(n.Right)
			return
		}
		if !slices.Contains(comparisonOps, n.Operator) {
			return
		}
		if name, ok := comparedName(n.Left); ok {
			c.record(name, n.Right, n.Operator == "in")
			if n.Operator == "matches" {
				c.matching(name, n.Right)
			}
		}
		if name, ok := comparedName(n.Right); ok && n.Operator != "in" {
			c.record(name, n.Left, false)
		}
		if n.Operator != "in" {
			c.through(n.Left, n.Right)
			c.through(n.Right, n.Left)
			c.item(n.Left, n.Right)
			c.item(n.Right, n.Left)
			c.sliced(n.Left, n.Right)
			c.sliced(n.Right, n.Left)
			if slices.Contains(orderOps, n.Operator) {
				c.arith(n.Left, n.Right)
				c.arith(n.Right, n.Left)
			}
		} else {
			c.element(n.Right, n.Left)
			if arr, ok := n.Right.(*ast.ArrayNode); ok { // `len(s) in [3, 4]`: as == each
				for _, el := range arr.Nodes {
					c.through(n.Left, el)
					c.item(n.Left, el)
					c.sliced(n.Left, el)
					c.arith(n.Left, el)
				}
			}
		}
	case *ast.UnaryNode:
		if n.Operator == "!" || n.Operator == "not" {
			c.condition(n.Node)
		}
	case *ast.ConditionalNode:
		c.condition(n.Cond)
	case *ast.VariableDeclaratorNode:
		c.condition(n.Value) // L++'s truthiness: let v = M?.key; v != nil && v != false ...
	case *ast.BuiltinNode:
		c.call(n.Name, n.Arguments)
	case *ast.CallNode:
		if callee, ok := n.Callee.(*ast.IdentifierNode); ok {
			c.call(callee.Value, n.Arguments)
		}
	}
}

// through records a comparison of a function of a string variable with
// OTHER: upper(VAR), lower(VAR) and trim(VAR) compared with a literal give
// the literal, its lower and its upper case; len(VAR) compared with n gives
// lengths (Domain pads the variable's other values to n and n+1).
func (c *compareVisitor) through(fn, other ast.Node) {
	var name string
	var args []ast.Node
	switch f := fn.(type) {
	case *ast.BuiltinNode:
		name, args = f.Name, f.Arguments
	case *ast.CallNode:
		if callee, ok := f.Callee.(*ast.IdentifierNode); ok {
			name, args = callee.Value, f.Arguments
		}
	}
	if len(args) == 2 {
		c.twoArgs(name, args, other)
		c.repeated(name, args, other)
		return
	}
	if len(args) == 3 {
		c.replaced(name, args, other)
		return
	}
	if len(args) != 1 {
		return
	}
	if name == "first" || name == "last" {
		c.item(fn, other)
		return
	}
	v, ok := comparedName(args[0])
	if !ok {
		if name == "len" {
			c.itemLen(args[0], other)
			c.splitLen(args[0], other)
		}
		return
	}
	if _, known := c.env[v]; !known {
		return
	}
	val, err := expr.Eval(other.String(), c.env)
	if err != nil {
		return
	}
	switch name {
	case "fromBase64":
		c.decoded(v, other)
	case "upper", "lower", "trim":
		if s, ok := val.(string); ok {
			c.out[v] = append(c.out[v], s, strings.ToLower(s), strings.ToUpper(s))
		}
	case "len":
		if n, ok := asInt(val); ok && n >= 0 && n <= maxPaddedLen {
			c.out[lenKey(v)] = append(c.out[lenKey(v)], n)
		}
	}
}

// maxPaddedLen bounds the lengths len(VAR) comparisons give a string.
const maxPaddedLen = sample.MaxLen

// lenKey is how comparedValues keeps the lengths a variable's len is
// compared with.
func lenKey(name string) string { return "len(" + name + ")" }

// call records hasPrefix(VAR, OTHER) and hasSuffix(VAR, OTHER).
func (c *compareVisitor) call(name string, args []ast.Node) {
	if len(args) != 2 || (name != "hasPrefix" && name != "hasSuffix") {
		return
	}
	if name, ok := comparedName(args[0]); ok {
		c.record(name, args[1], false)
	}
}

// comparedName names what a comparison compares: a variable, or an event's
// payload field (event.payload.FIELD, with . or ["FIELD"]).
func comparedName(n ast.Node) (string, bool) {
	switch n := n.(type) {
	case *ast.IdentifierNode:
		return n.Value, true
	case *ast.MemberNode:
		field, ok := n.Property.(*ast.StringNode)
		if !ok {
			return "", false
		}
		payload, ok := n.Node.(*ast.MemberNode)
		if !ok {
			return "", false
		}
		if p, ok := payload.Property.(*ast.StringNode); !ok || p.Value != "payload" {
			return "", false
		}
		if ev, ok := payload.Node.(*ast.IdentifierNode); ok && ev.Value == mspec.VarEvent {
			return payloadKey(field.Value), true
		}
	}
	return "", false
}

// record evaluates other at the defaults and notes its value (each element
// of it, for `in`).
func (c *compareVisitor) record(name string, other ast.Node, elements bool) {
	if _, ok := c.env[name]; !ok {
		return
	}
	val, err := expr.Eval(other.String(), c.env)
	if err != nil {
		return
	}
	if elements {
		if list, ok := val.([]any); ok {
			c.out[name] = append(c.out[name], list...)
		}
		return
	}
	c.out[name] = append(c.out[name], val)
}

// matching records a string that pattern (evaluated at the defaults)
// matches, for `VAR matches PATTERN` (sample.Regex).
func (c *compareVisitor) matching(name string, pattern ast.Node) {
	if _, ok := c.env[name]; !ok {
		return
	}
	val, err := expr.Eval(pattern.String(), c.env)
	if err != nil {
		return
	}
	if p, ok := val.(string); ok {
		if s, ok := sample.Regex(p); ok {
			c.out[name] = append(c.out[name], s)
		}
	}
}

// domain returns the values a write of v takes, and where they come from.
func (cmp compared) Domain(v *mspec.Var) ([]any, string) {
	var vals []any
	seen := map[string]bool{}
	var key []byte
	add := func(x any) { // once each, by canonical encoding (a spec may compare with many literals)
		key = appendValue(key[:0], x)
		if !seen[string(key)] {
			seen[string(key)] = true
			vals = append(vals, x)
		}
	}
	switch v.Type {
	case mspec.TypeBool:
		return []any{false, true}, "bool"
	case mspec.TypeString:
		if len(v.Enum) > 0 {
			for _, e := range v.Enum {
				add(e)
			}
			return vals, "enum"
		}
		add("")
		add(v.Default)
		for _, c := range cmp[v.Name] {
			if s, ok := c.(string); ok {
				add(s)
			}
		}
		// len(VAR) compared with n: each value so far padded with x to n
		// and n+1 bytes ("ab" for hasPrefix(s, "ab") && len(s) > 3: "abxx").
		base := len(vals)
		for _, c := range cmp[lenKey(v.Name)] {
			n := c.(int)
			for _, have := range vals[:base] {
				s, ok := have.(string) // a nullable string's default is null
				if !ok {
					continue
				}
				for _, l := range []int{n, n + 1} {
					if len(s) < l {
						add(s + strings.Repeat("x", l-len(s)))
					}
				}
			}
		}
		cmp.jsonValues(v.Name, add)
		add(otherString(vals))
		return vals, "compared"
	case mspec.TypeInt:
		if r := v.Range; r != nil {
			for n := r.Lo; n <= r.Hi && len(vals) < maxRangeValues; n++ {
				add(n)
			}
			return vals, "range"
		}
		add(v.Default)
		for _, c := range cmp[v.Name] {
			if n, ok := asInt(c); ok {
				add(n - 1)
				add(n)
				add(n + 1)
			}
		}
		if len(vals) == 1 {
			d, _ := v.Default.(int) // a nullable variable may start with no value: 0 + 1
			add(d + 1)
			return sortedInts(vals), "default"
		}
		return sortedInts(vals), "compared"
	case mspec.TypeFloat:
		add(v.Default)
		for _, c := range cmp[v.Name] {
			if f, ok := asFloat(c); ok {
				add(f - 1)
				add(f)
				add(f + 1)
			}
		}
		if len(vals) == 1 {
			d, _ := v.Default.(float64)
			add(d + 1)
		}
		return vals, "compared"
	case mspec.TypeList:
		add(v.Default)
		add([]any{})
		add([]any{"item"})
		cmp.listValues(v.Name, &vals, add)
		return vals, "list"
	case mspec.TypeMap:
		add(v.Default)
		add(map[string]any{})
		add(map[string]any{"key": "value"})
		cmp.mapValues(v.Name, &vals, add)
		return vals, "map"
	case mspec.TypeAny:
		// A payload field of any JSON value: null, both bools, the values
		// a string and an int would take, each float compared with and its
		// neighbours, and the list and map values.
		add(nil)
		add(v.Default)
		add(false)
		add(true)
		for _, t := range []mspec.Type{mspec.TypeString, mspec.TypeInt, mspec.TypeList, mspec.TypeMap} {
			tv := *v
			tv.Type, tv.Default, tv.Enum, tv.Range = t, t.Zero(), nil, nil
			more, _ := cmp.Domain(&tv)
			for _, x := range more {
				add(x)
			}
		}
		// A number with a fraction, and one past each int compared with:
		// a value a guard on numbers lets through and an int variable
		// refuses (`x >= 1` holds for 1.5).
		add(0.5)
		for _, c := range cmp[v.Name] {
			switch n := c.(type) {
			case float64:
				add(n - 1)
				add(n)
				add(n + 1)
			case int:
				add(float64(n) + 0.5)
			}
		}
		return vals, "any"
	}
	return []any{v.Default}, "default"
}

// writesNull reports whether an action's write w can give v null: v is
// nullable and w passes on a value of any type (see above) that the action
// does not declare non-null (VarSpec.NotNull: env.read parses a value as the
// variable's type).
func writesNull(v *mspec.Var, w machine.VarSpec) bool {
	return v.Nullable && w.Type == mspec.TypeAny && !w.NotNull
}

// withNull returns vals with null first, unless it holds null already.
func withNull(vals []any) []any {
	if slices.Contains(vals, nil) {
		return vals
	}
	return append([]any{nil}, vals...)
}

// maxRangeValues caps the values a range gives one write.
const maxRangeValues = 1024

// errorValues returns the texts a failed action's last_error takes.
func (cmp compared) ErrorValues() []any {
	var vals []any
	for _, c := range cmp[mspec.VarLastError] {
		if s, ok := c.(string); ok && s != "" && !slices.Contains(vals, any(s)) {
			vals = append(vals, s)
		}
	}
	if !slices.Contains(vals, any("error")) {
		vals = append(vals, "error")
	}
	return vals
}

func otherString(vals []any) string {
	s := otherValue
	for i := 2; slices.Contains(vals, any(s)); i++ {
		s = fmt.Sprintf("%s%d", otherValue, i)
	}
	return s
}

func asInt(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case float64:
		if n == float64(int(n)) {
			return int(n), true
		}
	}
	return 0, false
}

func asFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// sortedInts sorts ints, a nullable variable's nil first.
func sortedInts(vals []any) []any {
	sort.Slice(vals, func(i, j int) bool {
		a, aok := vals[i].(int)
		b, bok := vals[j].(int)
		return !aok && bok || aok && bok && a < b
	})
	return vals
}
