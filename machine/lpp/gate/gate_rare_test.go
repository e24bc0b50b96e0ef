package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRareGatesAnswerAsLppDoes: gates that real blueprints seldom write,
// where lppctl's answer differed from lpp's. The answers are lpp's
// (/work/audit2/lpp/fuzz/lppref.py, a model of lpp's evaluator).
func TestRareGatesAnswerAsLppDoes(t *testing.T) {
	for _, c := range []struct {
		gate string
		ctx  map[string]any
		want bool
	}{
		// a None in the branch of `if else` not taken does not make the value None
		{`(name if count else 'b') == 'b'`, map[string]any{}, true},
		{`(name if count else 'b') == 'b'`, map[string]any{"count": 1}, false},
		{`(name if count else 'b') == 'b'`, map[string]any{"count": 1, "name": "b"}, true},
		{`(name if count else 'b') != 'b'`, map[string]any{}, false},
		{`(name if count else 'b') != 'b'`, map[string]any{"count": 1}, true},
		{`('a' if count else name) == 'a'`, map[string]any{"count": 1}, true},
		{`('a' if count else name) == 'a'`, map[string]any{}, false},
		{`('a' if count else name) is None`, map[string]any{}, true},
		{`('a' if count else name) is None`, map[string]any{"count": 1}, false},
		{`(score if approved else count) > 1`, map[string]any{"approved": true, "score": 2}, true},
		{`(score if approved else count) > 1`, map[string]any{"approved": false, "count": 3}, true},
		{`(score + 1 if approved else 0) > 0`, map[string]any{"approved": false}, false},
		{`(score + 1 if approved else 0) == 0`, map[string]any{"approved": false}, true},
		{`(score + count if approved else 5) >= 5`, map[string]any{"approved": false, "score": 1}, true},
		{`(score + count if approved else 5) >= 5`, map[string]any{"approved": true, "score": 1, "count": 4}, true},
		{`(score + count if approved else 5) >= 5`, map[string]any{"approved": true, "score": 1}, false},
		{`'a' in (name if approved else target)`, map[string]any{"approved": true, "name": "abc"}, true},
		{`'a' in (name if approved else target)`, map[string]any{"approved": false, "name": "abc"}, false},
		// a dict's keys are strings
		{`1 in meta`, map[string]any{"meta": map[string]any{"a": 1}}, false},
		{`1 not in meta`, map[string]any{"meta": map[string]any{"a": 1}}, true},
		{`count in meta`, map[string]any{"meta": map[string]any{"a": 1}, "count": 1}, false},
		{`None not in meta`, map[string]any{}, true},
		{`True in event.payload`, map[string]any{}, false},
		// branches of types that do not compare: false where Python raises
		{`(approved if approved else '') > 1`, map[string]any{}, false},
		// arithmetic with None is None, which is false
		{`count + 2`, map[string]any{}, false},
		{`not count + 2`, map[string]any{}, true},
		// an if else with a None branch has the other branch's type; a
		// None on a side of py_eq or py_cmp is not evaluated
		{`(target if name else None)`, map[string]any{"name": "a", "target": "x"}, true},
		{`(target if name else None)`, map[string]any{"name": "a"}, false},
		{`score + 2 != True`, map[string]any{}, true},
		{`count + score > approved`, map[string]any{}, false},
		{`(None if count else 0) == score + 2`, map[string]any{"count": 1}, true},
		{`(0 if approved else None) > score + score`, map[string]any{"score": 0.0}, false},
		// branches of types known only when the gate runs: Python's ==
		{`(count if name else approved) == True`, map[string]any{"name": "a", "count": 1}, true},
		{`'b' > (count if items else score)`, map[string]any{"items": []any{}, "score": 1.5}, false},
		// a tuple is not a list
		{`items == ()`, map[string]any{"items": []any{}}, false},
		{`items != ()`, map[string]any{"items": []any{}}, true},
		{`items == ('x',)`, map[string]any{"items": []any{"x"}}, false},
		{`('x',) == items`, map[string]any{"items": []any{"x"}}, false},
		{`items == []`, map[string]any{"items": []any{}}, true},
		{`(1, 2) == (1, 2)`, map[string]any{}, true},
		{`[1] != (1,)`, map[string]any{}, true},
		// a number directly before a keyword (Python 3.11: a SyntaxWarning)
		{`count>1and count<3`, map[string]any{"count": 2}, true},
		{`count>1or count<3`, map[string]any{"count": 0}, true},
		{`(1if approved else 2) == 1`, map[string]any{"approved": true}, true},
		{`count==1.5or approved`, map[string]any{"count": 1.5}, true},
		{`1not in items`, map[string]any{"items": []any{2}}, true},
		{`count>1e1and count<30`, map[string]any{"count": 20}, true},
		{`count>1_0and approved`, map[string]any{"count": 20, "approved": true}, true},
	} {
		got, err := Translate(c.gate, TestTypes)
		if !assert.NoError(t, err, c.gate) {
			continue
		}
		vals := map[string]any{"name": nil, "target": nil, "count": nil, "score": nil, "approved": nil, "items": nil, "meta": nil}
		for k, v := range c.ctx {
			vals[k] = v
		}
		out, err := evalGuard(got, vals)
		if !assert.NoError(t, err, "%s: %s", c.gate, got) {
			continue
		}
		assert.Equal(t, c.want, out, "%s → %s with %v", c.gate, got, c.ctx)
	}
}
