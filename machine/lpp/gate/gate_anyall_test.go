package gate

import (
	"testing"

	"github.com/expr-lang/expr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TestAGateReadsAnyAllAndEventSubscriptsAsLppDoes: `any([s == 'a', n > 5])`
// (a list of comparisons) was refused by a compile error (the truth test of
// its items compared a bool with 0), and `event['name']` was refused
// ("event is not a value"); lpp reads event as a dict. The answers are lpp's
// (round 2's model of its evaluator, /work/audit2/lpp/fuzz/lppref.py).
func TestAGateReadsAnyAllAndEventSubscriptsAsLppDoes(t *testing.T) {
	ev := func(name string, payload map[string]any) map[string]any {
		return map[string]any{"name": name, "payload": payload}
	}
	for _, c := range []struct {
		gate string
		ctx  map[string]any
		evt  map[string]any
		want bool
	}{
		{`any([name == 'a', count > 5])`, map[string]any{"name": "a"}, nil, true},
		{`any([name == 'a', count > 5])`, map[string]any{"name": "b", "count": 6}, nil, true},
		{`any([name == 'a', count > 5])`, map[string]any{"name": "b"}, nil, false},
		{`all([name == 'a', count > 5])`, map[string]any{"name": "a", "count": 6}, nil, true},
		{`all([name == 'a', count > 5])`, map[string]any{"name": "a", "count": 5}, nil, false},
		{`all([approved, count])`, map[string]any{"approved": true, "count": 0}, nil, false},
		{`all([approved, count, name])`, map[string]any{"approved": true, "count": 2, "name": "x"}, nil, true},
		{`any((approved, items))`, map[string]any{"approved": false, "items": []any{1}}, nil, true},
		{`any([True, False])`, nil, nil, true},
		{`all([])`, nil, nil, true},
		{`any([])`, nil, nil, false},
		{`not any([name is None, count is None])`, map[string]any{"name": "a", "count": 1}, nil, true},
		{`any([len(items) > 0, approved])`, map[string]any{"approved": true}, nil, false}, // len(None) fails: false
		{`all([meta, items])`, map[string]any{"meta": map[string]any{"k": 1}, "items": []any{}}, nil, false},
		{`event['name'] == 'GO'`, nil, ev("GO", map[string]any{}), true},
		{`event['name'] == 'GO'`, nil, ev("STOP", map[string]any{}), false},
		{`event["payload"]['k'] == 1`, nil, ev("GO", map[string]any{"k": 1}), true},
		{`event['payload'] is not None`, nil, ev("GO", map[string]any{}), true},
		{`'k' in event['payload']`, nil, ev("GO", map[string]any{"k": 1}), true},
		{`'k' in event['payload']`, nil, ev("GO", map[string]any{}), false},
	} {
		got, err := Translate(c.gate, TestTypes)
		require.NoError(t, err, c.gate)
		p, err := mspec.CompileGuard(got, testEnv())
		require.NoError(t, err, "%s: %s", c.gate, got)
		vals := map[string]any{"name": nil, "target": nil, "count": nil, "score": nil, "approved": nil, "items": nil, "meta": nil,
			"event": ev("", map[string]any{})}
		for k, v := range c.ctx {
			vals[k] = v
		}
		if c.evt != nil {
			vals["event"] = c.evt
		}
		out, err := expr.Run(p, vals)
		require.NoError(t, err, "%s: %s", c.gate, got)
		assert.Equal(t, c.want, out, "%s: %s", c.gate, got)
	}
}
