package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestABoolComparedWithAValueOfAnyTypeEqualsAsInPython: a dict's field or an
// event's field may hold a number, and in Python 1 == True, 1.0 == True and
// 0 == False. The answers are lpp's (/work/audit2/lpp/fuzz/lppref.py).
func TestABoolComparedWithAValueOfAnyTypeEqualsAsInPython(t *testing.T) {
	k := func(v any) map[string]any { return map[string]any{"meta": map[string]any{"k": v}} }
	for _, c := range []struct {
		gate string
		ctx  map[string]any
		want bool
	}{
		{`meta['k'] == True`, k(1), true},
		{`meta['k'] == True`, k(1.0), true},
		{`meta['k'] == True`, k(2), false},
		{`meta['k'] == True`, k(true), true},
		{`meta['k'] == True`, k("1"), false},
		{`meta['k'] == True`, map[string]any{"meta": map[string]any{}}, false},
		{`meta['k'] == False`, k(0), true},
		{`meta['k'] == False`, k(nil), false},
		{`meta['k'] != False`, k(0), false},
		{`meta['k'] != True`, k(1), false},
		{`meta['k'] != True`, k(nil), true},
		{`True == meta.k`, k(1), true},
		{`meta['k'] is True`, k(1), false}, // identity: 1 is not True
		{`approved == meta['k']`, map[string]any{"approved": true, "meta": map[string]any{"k": 1}}, true},
		{`approved == meta['k']`, k(nil), true}, // None == None
		{`approved != meta['k']`, map[string]any{"approved": false, "meta": map[string]any{"k": 0}}, false},
		{`meta['k'] == (count > 1)`, map[string]any{"count": 2, "meta": map[string]any{"k": 1}}, true},
		// in a list: an item equal by Python's ==
		{`meta['k'] in [True, False]`, k(1), true},
		{`meta['k'] in [True, False]`, k(0.0), true},
		{`meta['k'] in [True, False]`, k("True"), false},
		{`meta['k'] not in [True]`, k(1), false},
		{`True in items`, map[string]any{"items": []any{1}}, true},
		{`True in items`, map[string]any{"items": []any{2, "True"}}, false},
		{`True in items`, map[string]any{}, false},
		{`True not in items`, map[string]any{}, true},
		// a number against a dict's field, which may hold a bool: True == 1
		{`meta['k'] == 1`, k(true), true},
		{`meta['k'] == 1`, k(1), true},
		{`meta['k'] == 1`, k(1.0), true},
		{`meta['k'] == 1`, k(2), false},
		{`meta['k'] == 1`, k("1"), false},
		{`meta['k'] == 1`, k(nil), false},
		{`meta.k == 0`, k(false), true},
		{`meta.k != 1`, k(true), false},
		{`1.0 == meta.k`, k(true), true},
		{`meta['k'] == 1 and count == 1`, map[string]any{"count": 1, "meta": map[string]any{"k": true}}, true},
		{`approved not in items`, map[string]any{"approved": false, "items": []any{0}}, false},
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
