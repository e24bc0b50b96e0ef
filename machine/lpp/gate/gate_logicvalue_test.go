package gate

import (
	"testing"

	"github.com/expr-lang/expr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TestAndOrGiveABoolWhereAValueIsNeeded: lpp's evaluator gives True or
// False for and/or (lpp-format §8), not one of the operands as Python
// does, so `(name or 'x') == True` is a gate lpp reads (True when name is
// None); lppctl refused it ("and/or give one of their operands in
// Python"). The answers below are lpp's.
func TestAndOrGiveABoolWhereAValueIsNeeded(t *testing.T) {
	for _, c := range []struct {
		gate string
		ctx  map[string]any
		want bool
	}{
		{`(name or 'x') == True`, map[string]any{"name": nil}, true},
		{`(name or 'x') == 'x'`, map[string]any{"name": nil}, false},
		{`(name and 1) == 1`, map[string]any{"name": "a"}, true},
		{`(count > 1 or approved) == True`, map[string]any{"count": 2, "approved": false}, true},
		{`(count > 1 or approved) == True`, map[string]any{"count": nil, "approved": nil}, false},
		{`(count or 0) > 0`, map[string]any{"count": nil}, false},
		{`(items and items[0]) in [True]`, map[string]any{"items": []any{5}}, true},
		{`(approved or False) != (count > 1 and name == 'a')`, map[string]any{"approved": nil, "count": 3, "name": "a"}, true},
	} {
		got, err := Translate(c.gate, TestTypes)
		require.NoError(t, err, c.gate)
		p, err := mspec.CompileGuard(got, testEnv())
		require.NoError(t, err, "%s: %s", c.gate, got)
		vals := map[string]any{"name": nil, "target": nil, "count": nil, "score": nil, "approved": nil, "items": nil, "meta": nil}
		for k, v := range c.ctx {
			vals[k] = v
		}
		out, err := expr.Run(p, vals)
		require.NoError(t, err, "%s: %s", c.gate, got)
		assert.Equal(t, c.want, out, "%s: %s", c.gate, got)
	}
}
