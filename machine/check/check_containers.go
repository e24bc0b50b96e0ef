package check

import (
	"fmt"
	"maps"
	"slices"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
)

// The values of a list or a map an action writes (or an event's payload
// carries) follow what the spec reads of it, as a string's follow the
// literals it is compared with: a guard `"urgent" in tags`, `len(tags) > 2`,
// `meta.priority == "high"` or `len(plan.steps) > 0` holds for some reply
// of the model, so the check gives the variable a value where it holds
// (["urgent"], a list of 3 and 4 items, {"priority": "high"},
// {"steps": ["item"]}). Without them such a branch was reported
// unreachable, and a defect behind it missed.

// elemKey is how comparedValues keeps the items a list is searched for
// (`X in L`, `L[i] == X`, `first(L) == X`).
func elemKey(name string) string { return "items(" + name + ")" }

// keysKey is how comparedValues keeps the maps of one key a map variable
// is read with: {key: value compared with}, {key: true} for a key read as a
// condition, {key: [n items]} for `len(M.key)` compared with n.
func keysKey(name string) string { return "keys(" + name + ")" }

// memberOf returns the variable (or payload field) n reads an item of, and
// the item: a string key (M.key, M?.key, M["key"]) or an int index (L[0]).
func (c *compareVisitor) memberOf(n ast.Node) (name string, key any, ok bool) {
	if ch, isChain := n.(*ast.ChainNode); isChain {
		n = ch.Node
	}
	m, isMember := n.(*ast.MemberNode)
	if !isMember {
		return "", nil, false
	}
	if _, field := comparedName(m); field {
		return "", nil, false // event.payload.FIELD is a field, not an item
	}
	name, ok = comparedName(m.Node)
	if !ok {
		if name, ok = c.jsonOf(m.Node); !ok {
			return "", nil, false
		}
	} else if _, known := c.env[name]; !known {
		return "", nil, false
	}
	switch p := m.Property.(type) {
	case *ast.StringNode:
		return name, p.Value, true
	case *ast.IntegerNode:
		return name, p.Value, true
	}
	return "", nil, false
}

// item records `M.key OP OTHER` ({key: OTHER} for M), `L[i] OP OTHER` and
// `first(L) OP OTHER` / `last(L) OP OTHER` (OTHER an item of L).
func (c *compareVisitor) item(n, other ast.Node) {
	if b, ok := n.(*ast.BuiltinNode); ok && (b.Name == "first" || b.Name == "last") && len(b.Arguments) == 1 {
		if m, fn, ok := c.keysOf(b.Arguments[0]); ok {
			if val, err := expr.Eval(other.String(), c.env); err == nil {
				c.fromKeys(m, fn, val)
			}
			return
		}
		name, ok := comparedName(b.Arguments[0])
		if _, known := c.env[name]; !ok || !known {
			return
		}
		if val, err := expr.Eval(other.String(), c.env); err == nil {
			c.out[elemKey(name)] = append(c.out[elemKey(name)], val)
		}
		return
	}
	name, key, wrap, ok := c.deep(n)
	if !ok {
		c.splitItem(n, other)
		c.keysItem(n, other)
		return
	}
	val, err := expr.Eval(other.String(), c.env)
	if err != nil {
		return
	}
	c.keyed(name, key, wrap(val))
	if f, isNum := asFloat(val); isNum && wrap(nil) != nil { // nested: the other branch too
		c.keyed(name, key, wrap(f-1))
		c.keyed(name, key, wrap(f+1))
	} else if wrap(nil) != nil {
		c.keyed(name, key, wrap(nil))
	}
}

// deep reads an item of a variable at any depth (M.a, M.a.b, L[0].k):
// the variable, its first key, and how the item's value nests under it
// (M.a.b == 3: {a: {b: 3}}).
func (c *compareVisitor) deep(n ast.Node) (string, any, func(any) any, bool) {
	if name, key, ok := c.memberOf(n); ok {
		return name, key, func(v any) any { return v }, true
	}
	if ch, isChain := n.(*ast.ChainNode); isChain {
		n = ch.Node
	}
	m, isMember := n.(*ast.MemberNode)
	if !isMember {
		return "", nil, nil, false
	}
	var one func(any) any
	switch p := m.Property.(type) {
	case *ast.StringNode:
		one = func(v any) any { return map[string]any{p.Value: v} }
	case *ast.IntegerNode:
		if p.Value != 0 {
			return "", nil, nil, false
		}
		one = func(v any) any { return []any{v} }
	default:
		return "", nil, nil, false
	}
	name, key, wrap, ok := c.deep(m.Node)
	if !ok {
		return "", nil, nil, false
	}
	return name, key, func(v any) any { return wrap(one(v)) }, true
}

// keyed notes that item key of variable name may hold val.
func (c *compareVisitor) keyed(name string, key, val any) {
	switch k := key.(type) {
	case string:
		c.out[keysKey(name)] = append(c.out[keysKey(name)], map[string]any{k: val})
	case int:
		c.out[elemKey(name)] = append(c.out[elemKey(name)], val)
	}
}

// element records `X in C`: X is an item of list C, or a key of map C.
func (c *compareVisitor) element(container, x ast.Node) {
	if m, fn, ok := c.keysOf(container); ok {
		if val, err := expr.Eval(x.String(), c.env); err == nil {
			c.fromKeys(m, fn, val)
		}
		return
	}
	if name, key, wrap, ok := c.deep(container); ok { // "a" in M.tags: {tags: ["a"]}
		if val, err := expr.Eval(x.String(), c.env); err == nil {
			c.keyed(name, key, wrap([]any{val}))
		}
		return
	}
	name, ok := comparedName(container)
	if !ok {
		return
	}
	if _, known := c.env[name]; !known {
		return
	}
	val, err := expr.Eval(x.String(), c.env)
	if err != nil {
		return
	}
	c.out[elemKey(name)] = append(c.out[elemKey(name)], val)
	if s, ok := val.(string); ok {
		c.out[keysKey(name)] = append(c.out[keysKey(name)], map[string]any{s: "value"})
	}
}

// keysOf returns the map variable (or payload field) n lists the keys or
// the values of: keys(M), values(M).
func (c *compareVisitor) keysOf(n ast.Node) (name, fn string, ok bool) {
	b, isBuiltin := n.(*ast.BuiltinNode)
	if !isBuiltin || (b.Name != "keys" && b.Name != "values") || len(b.Arguments) != 1 {
		return "", "", false
	}
	name, ok = comparedName(b.Arguments[0])
	if _, known := c.env[name]; !ok || !known {
		return "", "", false
	}
	return name, b.Name, true
}

// fromKeys notes that map name has val among its keys (fn "keys") or its
// values (fn "values").
func (c *compareVisitor) fromKeys(name, fn string, val any) {
	if fn == "values" {
		c.out[keysKey(name)] = append(c.out[keysKey(name)], map[string]any{"key": val})
		return
	}
	if s, ok := val.(string); ok {
		c.out[keysKey(name)] = append(c.out[keysKey(name)], map[string]any{s: "value"})
	}
}

// keysItem records `keys(M)[i] OP OTHER` (values(M) too): OTHER is a key
// (a value) of M.
func (c *compareVisitor) keysItem(n, other ast.Node) {
	if ch, ok := n.(*ast.ChainNode); ok {
		n = ch.Node
	}
	m, ok := n.(*ast.MemberNode)
	if !ok {
		return
	}
	if _, isIndex := m.Property.(*ast.IntegerNode); !isIndex {
		return
	}
	name, fn, ok := c.keysOf(m.Node)
	if !ok {
		return
	}
	if val, err := expr.Eval(other.String(), c.env); err == nil {
		c.fromKeys(name, fn, val)
	}
}

// itemLen records `len(M.key) OP n`: M.key holds n and n+1 items; and
// `len(keys(M)) OP n` (values too): M holds n and n+1 keys.
func (c *compareVisitor) itemLen(arg, other ast.Node) {
	if m, _, ok := c.keysOf(arg); ok {
		if val, err := expr.Eval(other.String(), c.env); err == nil {
			if n, ok := asInt(val); ok && n >= 0 && n <= maxPaddedLen {
				c.out[lenKey(m)] = append(c.out[lenKey(m)], n)
			}
		}
		return
	}
	name, key, ok := c.memberOf(arg)
	if !ok {
		return
	}
	val, err := expr.Eval(other.String(), c.env)
	if err != nil {
		return
	}
	n, ok := asInt(val)
	if !ok || n < 0 || n > maxPaddedLen {
		return
	}
	for _, l := range []int{n - 1, n, n + 1} { // each side of `>= n` and `> n`
		if l >= 0 {
			c.keyed(name, key, padList(nil, l))
		}
	}
}

// condition records an item read as a condition (`M.ok && ...`, `!M.ok`,
// L++'s `let v = M?.ok; v != nil && v != false ...`): {key: true} and
// {key: false} for a map, true and false for a list's item.
func (c *compareVisitor) condition(n ast.Node) {
	name, key, ok := c.memberOf(n)
	if !ok {
		return
	}
	c.keyed(name, key, true)
	c.keyed(name, key, false)
}

// padList returns l with "item" appended up to n items.
func padList(l []any, n int) []any {
	out := slices.Clone(l)
	for len(out) < n {
		out = append(out, "item")
	}
	if out == nil {
		out = []any{}
	}
	return out
}

// listValues adds to a list's domain a list of each item the spec looks
// for, one of all of them, and each value so far padded to the lengths
// len(L) is compared with (n and n+1 items).
func (cmp compared) listValues(name string, vals *[]any, add func(any)) {
	items := cmp[elemKey(name)]
	for _, it := range items {
		add([]any{it})
	}
	if len(items) > 1 {
		add(slices.Clone(items))
	}
	padded(cmp[lenKey(name)], vals, add)
}

// mapValues adds to a map's domain each map of one key the spec reads, one
// with every key (its first value), and each value so far padded with keys
// to the sizes len(M) is compared with (n and n+1 keys).
func (cmp compared) mapValues(name string, vals *[]any, add func(any)) {
	all := map[string]any{}
	for _, m := range cmp[keysKey(name)] {
		one := m.(map[string]any)
		add(one)
		for k, v := range one {
			if _, ok := all[k]; !ok {
				all[k] = v
			}
		}
	}
	if len(all) > 1 {
		add(all)
	}
	padded(cmp[lenKey(name)], vals, add)
}

// padded adds each list and map of vals padded to n and n+1 items for each
// length n in lens ("item" items, "keyI": "value" keys).
func padded(lens []any, vals *[]any, add func(any)) {
	base := len(*vals)
	for _, c := range lens {
		n := c.(int)
		for _, have := range (*vals)[:base] {
			for _, want := range []int{n, n + 1} {
				switch v := have.(type) { // a nullable one's default is null
				case []any:
					if len(v) < want {
						add(padList(v, want))
					}
				case map[string]any:
					if len(v) < want {
						add(padMap(v, want))
					}
				}
			}
		}
	}
}

// padMap returns a copy of m with keys "key1", "key2"... up to n keys.
func padMap(m map[string]any, n int) map[string]any {
	out := maps.Clone(m)
	if out == nil {
		out = map[string]any{}
	}
	for i := 1; len(out) < n; i++ {
		if _, taken := out[fmt.Sprintf("key%d", i)]; !taken {
			out[fmt.Sprintf("key%d", i)] = "value"
		}
	}
	return out
}
