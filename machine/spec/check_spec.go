package spec

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// The spec keys the model checker reads (see docs/check.md): `invariants:`
// at the top, `final_requires:` on a final state and `range:` on an int
// context variable. Runs ignore them.

// Range bounds an int context variable (`range: [lo, hi]`): the values the
// model checker gives it when an action writes it, and the bounds every value
// a set gives it must stay within.
type Range struct {
	Lo, Hi int
	Pos    Pos
}

// Contains reports whether n is within the range.
func (r *Range) Contains(n int) bool { return n >= r.Lo && n <= r.Hi }

// Condition is a named bool expression the model checker verifies: an
// invariant (in every reachable state, or only in the states In names) or
// one entry of a final state's final_requires (when a run ends there).
type Condition struct {
	Name    string // the invariant's key; for final_requires, the map key or "final_requires[i]"
	Expr    string
	Pos     Pos // position of the name (or of the list item)
	ExprPos Pos
	In      []string // invariants only: the states it must hold in (empty: every state)
	InPos   Pos
}

var invariantKeys = []string{"expr", "in"}

// invariants decodes `invariants:`, a mapping of name → expression or
// name → {expr, in}.
func (d *decoder) invariants(n *yaml.Node) []*Condition {
	if n.Tag == "!!null" || !d.wantMapping(n, "invariants") {
		return nil
	}
	var out []*Condition
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if d.badKey(k, "invariants") {
			continue
		}
		if seen[k.Value] {
			d.errorf(pos(k), span(k), "duplicate invariant %q", k.Value)
			continue
		}
		seen[k.Value] = true
		what := fmt.Sprintf("invariant %q", k.Value)
		c := &Condition{Name: k.Value, Pos: pos(k)}
		switch v.Kind {
		case yaml.MappingNode:
			f := d.fields(v, what, invariantKeys...)
			x, ok := f["expr"]
			if !ok {
				d.errorf(pos(k), span(k), "%s has no \"expr\"", what)
				d.hintLast("add `expr: CONDITION`, e.g. `expr: retries <= max_retries`")
				continue
			}
			if !d.conditionExpr(c, x.val, what) {
				continue
			}
			if in, ok := f["in"]; ok {
				c.In, c.InPos = d.stateList(in.val, what), pos(in.val)
			}
		default:
			if !d.conditionExpr(c, v, what) {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// conditionExpr reads the expression of a condition from n.
func (d *decoder) conditionExpr(c *Condition, n *yaml.Node, what string) bool {
	text, ok := d.exprText(n, what)
	if !ok {
		return false
	}
	c.Expr, c.ExprPos = text, pos(n)
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		c.ExprPos.Col++ // point inside the quotes, as for guards
	}
	return true
}

// stateList reads a state name or a list of them.
func (d *decoder) stateList(n *yaml.Node, what string) []string {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" && n.Value != "" {
		return []string{n.Value}
	}
	if n.Kind != yaml.SequenceNode {
		d.errorf(pos(n), span(n), "in of %s must be a state name or a list of them, not %s", what, kindName(n))
		return nil
	}
	var out []string
	for _, item := range n.Content {
		if item.Kind != yaml.ScalarNode || item.Tag == "!!null" || item.Value == "" {
			d.errorf(pos(item), span(item), "in of %s must list state names", what)
			continue
		}
		out = append(out, item.Value)
	}
	return out
}

// finalRequires decodes a final state's `final_requires:`: a list of
// expressions, or a mapping of name → expression.
func (d *decoder) finalRequires(n *yaml.Node, state string) []*Condition {
	what := fmt.Sprintf("final_requires of state %q", state)
	var out []*Condition
	switch n.Kind {
	case yaml.SequenceNode:
		for i, item := range n.Content {
			c := &Condition{Name: fmt.Sprintf("final_requires[%d]", i), Pos: pos(item)}
			if d.conditionExpr(c, item, what) {
				out = append(out, c)
			}
		}
	case yaml.MappingNode:
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if d.badKey(k, what) {
				continue
			}
			if seen[k.Value] {
				d.errorf(pos(k), span(k), "duplicate key %q in %s", k.Value, what)
				continue
			}
			seen[k.Value] = true
			c := &Condition{Name: k.Value, Pos: pos(k)}
			if d.conditionExpr(c, v, what) {
				out = append(out, c)
			}
		}
	default:
		if n.Tag == "!!null" {
			return nil
		}
		d.errorf(pos(n), span(n), "%s must be a list of conditions or a mapping of name → condition, not %s", what, kindName(n))
		d.hintLast(`e.g. final_requires: ['plan_error == ""']`)
	}
	return out
}

// varRange decodes `range: [lo, hi]`.
func (d *decoder) varRange(n *yaml.Node, name string) *Range {
	bad := func() *Range {
		d.errorf(pos(n), span(n), "range of %q must be a list of two ints [lo, hi], not %s", name, kindName(n))
		d.hintLast("e.g. `range: [0, 10]`")
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return bad()
	}
	if len(n.Content) != 2 {
		d.errorf(pos(n), span(n), "range of %q must be a list of two ints [lo, hi]: it has %d items", name, len(n.Content))
		d.hintLast("e.g. `range: [0, 10]`")
		return nil
	}
	var bounds [2]int
	for i, item := range n.Content {
		v, err := strconv.ParseInt(strings.ReplaceAll(item.Value, "_", ""), 0, 64)
		if item.Kind != yaml.ScalarNode || item.Tag != "!!int" || err != nil {
			d.errorf(pos(item), span(item), "range of %q: its %s bound must be an int, not %s", name, [2]string{"low", "high"}[i], kindName(item))
			d.hintLast("e.g. `range: [0, 10]`")
			return nil
		}
		bounds[i] = int(v)
	}
	if bounds[0] > bounds[1] {
		d.errorf(pos(n), span(n), "range of %q is empty: %d > %d", name, bounds[0], bounds[1])
		d.hintLast(fmt.Sprintf("write `range: [%d, %d]`", bounds[1], bounds[0]))
		return nil
	}
	return &Range{Lo: bounds[0], Hi: bounds[1], Pos: pos(n)}
}

// requirementLabel names one condition of a final state's final_requires in
// messages: `final_requires[0] of state "done"` or `final_requires "ok" of state "done"`.
func RequirementLabel(c *Condition, state string) string {
	if strings.HasPrefix(c.Name, "final_requires[") {
		return fmt.Sprintf("%s of state %q", c.Name, state)
	}
	return fmt.Sprintf("final_requires %q of state %q", c.Name, state)
}

// input decodes a context variable's `input: true`.
func (d *decoder) input(f map[string]field, cv *Var) {
	x, ok := f["input"]
	if !ok {
		return
	}
	cv.InputPos = pos(x.val)
	b, err := d.nodeValue(x.val)
	bv, isBool := b.(bool)
	if err != nil || !isBool {
		d.errorf(pos(x.val), span(x.val), "input of %q must be true or false, not %s", cv.Name, kindName(x.val))
		d.hintLast(boolHint(x.val))
		return
	}
	cv.Input = bv
}
