package check

import (
	"encoding/base64"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
)

// The string functions a guard reads a string variable through give the
// variable a value where the guard holds, as a comparison with a literal
// does (the model's reply is text the spec takes apart):
//
//	indexOf(s, "OK") == 2        "xxOK" (lastIndexOf too)
//	trimPrefix(s, "A: ") == "y"  "A: y" (trimSuffix: "y" + the suffix)
//	len(split(s, ",")) == 2      "x,x" and "x,x,x" (splitAfter too)
//	split(s, ",")[1] == "b"      "x,b"
//	replace(s, "-", "_") == "a_b" "a-b" (when replacing back gives the literal)
//	fromBase64(s) == "hi"        "aGk="
//	s[2:4] == "ab", s[:2] == "ab" "xxab", "ab"
//	fromJSON(s).ok == true       `{"ok":true}` (fromJSON(s)?.k, fromJSON(s)["k"],
//	                             a key read as a condition: true and false; one
//	                             JSON object per key read, and one with all)
//
// Other functions of it are not looked into.

// callOf returns the name and arguments of a call of a builtin or function.
func callOf(n ast.Node) (string, []ast.Node) {
	switch f := n.(type) {
	case *ast.BuiltinNode:
		return f.Name, f.Arguments
	case *ast.CallNode:
		if callee, ok := f.Callee.(*ast.IdentifierNode); ok {
			return callee.Value, f.Arguments
		}
	}
	return "", nil
}

// stringArgs evaluates, for a call f(VAR, LIT), the variable's name and
// the literal (a string) at the defaults.
func (c *compareVisitor) stringArgs(args []ast.Node) (string, string, bool) {
	if len(args) < 2 {
		return "", "", false
	}
	v, ok := comparedName(args[0])
	if !ok {
		return "", "", false
	}
	if _, known := c.env[v]; !known {
		return "", "", false
	}
	lit, err := expr.Eval(args[1].String(), c.env)
	if err != nil {
		return "", "", false
	}
	s, ok := lit.(string)
	return v, s, ok
}

// twoArgs records `f(VAR, LIT) OP OTHER` for indexOf, lastIndexOf,
// trimPrefix and trimSuffix.
func (c *compareVisitor) twoArgs(name string, args []ast.Node, other ast.Node) {
	if name != "indexOf" && name != "lastIndexOf" && name != "trimPrefix" && name != "trimSuffix" {
		return
	}
	v, lit, ok := c.stringArgs(args)
	if !ok {
		return
	}
	val, err := expr.Eval(other.String(), c.env)
	if err != nil {
		return
	}
	switch name {
	case "indexOf", "lastIndexOf":
		if n, ok := asInt(val); ok && n >= 0 && n <= maxPaddedLen && lit != "" {
			c.out[v] = append(c.out[v], strings.Repeat("x", n)+lit)
		}
	case "trimPrefix":
		if s, ok := val.(string); ok {
			c.out[v] = append(c.out[v], lit+s)
		}
	case "trimSuffix":
		if s, ok := val.(string); ok {
			c.out[v] = append(c.out[v], s+lit)
		}
	}
}

// splitLen records `len(split(VAR, SEP)) OP n`: VAR holds n and n+1 parts.
func (c *compareVisitor) splitLen(arg, other ast.Node) {
	name, args := callOf(arg)
	if name != "split" && name != "splitAfter" {
		return
	}
	v, sep, ok := c.stringArgs(args)
	if !ok || sep == "" {
		return
	}
	val, err := expr.Eval(other.String(), c.env)
	if err != nil {
		return
	}
	n, ok := asInt(val)
	if !ok || n < 1 || n > maxPaddedLen {
		return
	}
	for _, parts := range []int{n, n + 1} {
		c.out[v] = append(c.out[v], strings.TrimSuffix(strings.Repeat("x"+sep, parts), sep))
	}
}

// splitItem records `split(VAR, SEP)[i] OP OTHER`: VAR holds i parts
// before OTHER.
func (c *compareVisitor) splitItem(n, other ast.Node) {
	if ch, ok := n.(*ast.ChainNode); ok {
		n = ch.Node
	}
	m, ok := n.(*ast.MemberNode)
	if !ok {
		return
	}
	idx, ok := m.Property.(*ast.IntegerNode)
	if !ok || idx.Value < 0 || idx.Value > maxPaddedLen {
		return
	}
	name, args := callOf(m.Node)
	if name != "split" {
		return
	}
	v, sep, ok := c.stringArgs(args)
	if !ok || sep == "" {
		return
	}
	val, err := expr.Eval(other.String(), c.env)
	if err != nil {
		return
	}
	if s, ok := val.(string); ok {
		c.out[v] = append(c.out[v], strings.Repeat("x"+sep, idx.Value)+s)
	}
}

// replaced records `replace(VAR, OLD, NEW) OP Y`: VAR is Y with NEW put back
// to OLD, when replacing OLD with NEW in it gives Y again.
func (c *compareVisitor) replaced(name string, args []ast.Node, other ast.Node) {
	if name != "replace" || len(args) != 3 {
		return
	}
	v, old, ok := c.stringArgs(args)
	if !ok || old == "" {
		return
	}
	nv, err := expr.Eval(args[2].String(), c.env)
	if err != nil {
		return
	}
	repl, ok := nv.(string)
	y, err := expr.Eval(other.String(), c.env)
	if err != nil || !ok {
		return
	}
	want, ok := y.(string)
	if !ok {
		return
	}
	cand := want
	if repl != "" {
		cand = strings.ReplaceAll(want, repl, old)
	}
	if strings.ReplaceAll(cand, old, repl) == want {
		c.out[v] = append(c.out[v], cand)
	}
}

// decoded records `fromBase64(VAR) OP Y`: VAR is Y encoded.
func (c *compareVisitor) decoded(v string, other ast.Node) {
	if y, err := expr.Eval(other.String(), c.env); err == nil {
		if s, ok := y.(string); ok {
			c.out[v] = append(c.out[v], base64.StdEncoding.EncodeToString([]byte(s)))
		}
	}
}

// sliced records `VAR[FROM:TO] OP Y`: VAR is Y after FROM bytes, padded to
// TO (a literal FROM and TO, or none).
func (c *compareVisitor) sliced(n, other ast.Node) {
	sl, ok := n.(*ast.SliceNode)
	if !ok {
		return
	}
	v, ok := comparedName(sl.Node)
	if !ok {
		return
	}
	if _, known := c.env[v].(string); !known {
		return
	}
	from, to := 0, -1
	if sl.From != nil {
		f, ok := sl.From.(*ast.IntegerNode)
		if !ok || f.Value < 0 || f.Value > maxPaddedLen {
			return
		}
		from = f.Value
	}
	if sl.To != nil {
		t, ok := sl.To.(*ast.IntegerNode)
		if !ok || t.Value < from || t.Value > maxPaddedLen {
			return
		}
		to = t.Value
	}
	y, err := expr.Eval(other.String(), c.env)
	if err != nil {
		return
	}
	s, ok := y.(string)
	if !ok {
		return
	}
	cand := strings.Repeat("x", from) + s
	if to >= 0 && len(cand) != to {
		return // Y is not TO-FROM bytes: no value gives it
	}
	c.out[v] = append(c.out[v], cand)
}

// jsonKey is how comparedValues keeps the objects fromJSON(VAR) is read
// as (keysKey(jsonKey(VAR))), as a map variable's.
func jsonKey(name string) string { return "fromJSON(" + name + ")" }

// jsonOf returns jsonKey(VAR) for fromJSON(VAR) of a string variable.
func (c *compareVisitor) jsonOf(n ast.Node) (string, bool) {
	name, args := callOf(n)
	if name != "fromJSON" || len(args) != 1 {
		return "", false
	}
	v, ok := comparedName(args[0])
	if !ok {
		// fromJSON(fromJSON(s).k): a JSON text in a key of one; its
		// objects nest under k (jsonValues)
		parent, key, wrap, ok := c.deep(args[0])
		k, isKey := key.(string)
		if !ok || !isKey || !strings.HasPrefix(parent, "fromJSON(") || wrap("") != "" {
			return "", false
		}
		c.out[nestKey(parent)] = append(c.out[nestKey(parent)], k)
		return jsonKey(parent + "." + k), true
	}
	if val, known := c.env[v]; !known || (val != nil && !isString(val)) {
		return "", false
	}
	return jsonKey(v), true
}

// nestKey is how comparedValues keeps the keys of the objects fromJSON(VAR)
// reads (name: jsonKey(VAR)) that hold a JSON text fromJSON reads again.
func nestKey(name string) string { return "nested(" + name + ")" }

// repeated records `repeat(VAR, n) == LIT`: VAR holds LIT's unit when LIT
// is n of them.
func (c *compareVisitor) repeated(name string, args []ast.Node, other ast.Node) {
	v, ok := comparedName(args[0])
	if _, known := c.env[v]; name != "repeat" || !ok || !known {
		return
	}
	n, err1 := expr.Eval(args[1].String(), c.env)
	lit, err2 := expr.Eval(other.String(), c.env)
	k, isInt := asInt(n)
	s, isStr := lit.(string)
	if err1 == nil && err2 == nil && isInt && isStr && k > 0 && len(s)%k == 0 && strings.Repeat(s[:len(s)/k], k) == s {
		c.out[v] = append(c.out[v], s[:len(s)/k])
	}
}

// jsonValues adds to a string's domain the JSON of each object of one key
// fromJSON of it is read with (a number, also one less and one more), of
// one with every key, and {}.
func (cmp compared) jsonValues(name string, add func(any)) {
	all := map[string]any{}
	put := func(m map[string]any) {
		if b, err := json.Marshal(m); err == nil {
			add(string(b))
		}
	}
	objs := cmp[keysKey(jsonKey(name))]
	if len(objs) > 0 {
		put(map[string]any{}) // every key left out: the guards' other branch
	}
	for _, m := range objs {
		one := m.(map[string]any)
		put(one)
		for k, v := range one {
			if f, ok := asFloat(v); ok { // compared with an order too: each side of it
				put(map[string]any{k: f - 1})
				put(map[string]any{k: f + 1})
			}
		}
		for _, k := range slices.Sorted(maps.Keys(one)) {
			if _, ok := all[k]; !ok {
				all[k] = one[k]
			}
		}
	}
	if len(all) > 1 {
		put(all)
	}
	var nested []string
	for _, k := range cmp[nestKey(jsonKey(name))] {
		if k := k.(string); !slices.Contains(nested, k) {
			nested = append(nested, k)
			cmp.jsonValues(jsonKey(name)+"."+k, func(v any) { put(map[string]any{k: v}) })
		}
	}
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}
