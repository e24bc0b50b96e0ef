package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEqualityAndMembershipCornersAnswerAsPythonDoes: == and in where
// Python's equality is not expr's: two values whose types are known only
// when the gate runs (1 == True), tuples and sets (which equal only their
// own kind, and a context holds neither), set literals (order and
// duplicates do not count; a list in one is unhashable), and a value of
// unknown type in a list literal. The answers are Python 3.11's, through
// /work/audit5/lpp12-harness/model.py (a model of lpp's safe_eval, lpp-format §8).
func TestEqualityAndMembershipCornersAnswerAsPythonDoes(t *testing.T) {
	for _, c := range []struct {
		gate string
		ctx  map[string]any
		want bool
	}{
		{`meta['a'] == meta['b']`, map[string]any{"meta": map[string]any{"a": 1, "b": true}}, true},
		{`meta['a'] == meta['b']`, map[string]any{"meta": map[string]any{"a": []any{1}, "b": []any{true}}}, true},
		{`meta['a'] == meta['b']`, map[string]any{"meta": map[string]any{"a": "1", "b": 1}}, false},
		{`meta['a'] != meta['b']`, map[string]any{"meta": map[string]any{"a": 1, "b": 1.0}}, false},
		{`meta['a'] == meta['b']`, map[string]any{"meta": map[string]any{}}, true},
		{`() in [[]]`, nil, false},
		{`() in [()]`, nil, true},
		{`[] in [()]`, nil, false},
		{`() in items`, map[string]any{"items": []any{[]any{}}}, false},
		{`() not in items`, map[string]any{"items": []any{[]any{}}}, true},
		{`() in items`, nil, false},
		{`(1,) in [(1,), [1]]`, nil, true},
		{`[1] in [(1,), [1]]`, nil, true},
		{`[1] in [(1,)]`, nil, false},
		{`items in [()]`, map[string]any{"items": []any{}}, false},
		{`{1, 2} == {2, 1}`, nil, true},
		{`{1, 2} != {2, 1}`, nil, false},
		{`{1, 2} == {1}`, nil, false},
		{`len({1, 1.0, True}) == 1`, nil, true},
		{`len({'a', 'a', 'b'}) == 2`, nil, true},
		{`sum({2, 2}) == 2`, nil, true},
		{`len({items, 1}) == 2`, map[string]any{"items": []any{}}, false},
		{`len({items, 1}) == 2`, nil, true},
		{`{[1], 2} is not None`, nil, false},
		{`('a', 'b') in {('a', 'b'), 1}`, nil, true}, // a tuple is hashable
		{`meta['k'] in ['a', 'b']`, map[string]any{"meta": map[string]any{"k": 2}}, false},
		{`meta['k'] in ['a', 'b']`, map[string]any{"meta": map[string]any{"k": "a"}}, true},
		{`meta['k'] in [True]`, map[string]any{"meta": map[string]any{"k": 1}}, true},
		{`meta['k'] not in ['a']`, map[string]any{"meta": map[string]any{"k": 2}}, true},
		// an ordering of a value of any type with a list or a bool (expr
		// refused it before the gate ran: mismatched types any and list)
		{`meta['k'] < (1, 2)`, map[string]any{"meta": map[string]any{"k": []any{1}}}, false}, // a list and a tuple do not order
		{`meta['k'] < True`, map[string]any{"meta": map[string]any{"k": 0}}, true},
		{`meta['k'] >= [1]`, map[string]any{"meta": map[string]any{"k": []any{2}}}, true},
		{`meta['k'] < [1]`, map[string]any{"meta": map[string]any{"k": "a"}}, false},
		// arithmetic of a value of any type with a list, a dict or a
		// string (expr refused the translation: mismatched types any and list)
		{`(meta['k'] - items) is None`, map[string]any{"meta": map[string]any{"k": 1}, "items": []any{}}, false},
		{`(meta['k'] - items) is None`, map[string]any{"meta": map[string]any{}, "items": []any{}}, true},
		{`len(meta['k'] + items) == 2`, map[string]any{"meta": map[string]any{"k": []any{1}}, "items": []any{2}}, true},
		{`name != meta['k'] / score`, map[string]any{"name": "a", "meta": map[string]any{"k": 1}, "score": 2.0}, true},
		{`(meta['k'] * meta) is None`, map[string]any{"meta": map[string]any{"k": 1}}, false},
		{`(meta['k'] * items) == [1, 1]`, map[string]any{"meta": map[string]any{"k": 2}, "items": []any{1}}, true},
		{`(meta['k'] * name) == 'aa'`, map[string]any{"meta": map[string]any{"k": 2}, "name": "a"}, true},
		{`(meta['k'] * name) is None`, map[string]any{"meta": map[string]any{"k": "b"}, "name": "a"}, false},
		{`items in ['a', [1]]`, map[string]any{"items": []any{1}}, true},
		{`[1] in ['a', 'b']`, nil, false},
		// a list or a dict as a dict's key: unhashable
		{`items not in meta`, map[string]any{"meta": map[string]any{}, "items": []any{}}, false},
		{`items not in meta`, map[string]any{"items": []any{}}, true},
		{`{1} not in meta`, map[string]any{"meta": map[string]any{}}, false},
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
