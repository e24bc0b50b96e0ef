package lpp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/lpp/mapfile"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// undeclaredBlueprint is a blueprint whose gate g (taken on GO) reads the
// declared property n and, maybe, the undeclared x.
func undeclaredBlueprint(gateText string) []byte {
	g, _ := json.Marshal(gateText)
	return []byte(`{"$schema": "lpp/v0.2.0", "id": "u", "name": "u", "version": "1.0.0",
 "context_schema": {"properties": {"n": {"type": "number"}}},
 "states": {"a": {}, "yes": {}, "no": {}}, "entry_state": "a", "terminal_states": {"yes": {}, "no": {}},
 "gates": {"g": {"type": "expression", "expression": ` + string(g) + `}},
 "actions": {"clear": {"type": "set", "target": "x", "value": null}},
 "transitions": [
  {"id": "t0", "from": "a", "to": "a", "on_event": "SET", "actions": ["clear"]},
  {"id": "t1", "from": "a", "to": "yes", "on_event": "GO", "gates": ["g"]},
  {"id": "t2", "from": "a", "to": "no", "on_event": "GO"}]}`)
}

// TestAGateReachingANameNothingWroteIsFalseAsInLpp: a name the blueprint
// does not declare is absent from lpp's context until something writes it,
// and a gate whose evaluation reaches it fails (false); lppctl read it as
// None (`x is None` true). Each context gives x absent (no key), None or a
// value; the answers are lpp's (round 2's model of its evaluator,
// /work/audit2/lpp/fuzz/lppref.py), short-circuit order included.
func TestAGateReachingANameNothingWroteIsFalseAsInLpp(t *testing.T) {
	for _, c := range []struct {
		gate string
		ctx  map[string]any // x: present (maybe None) when the key is there
		want bool
	}{
		{"x is None", map[string]any{}, false},
		{"x is None", map[string]any{"x": nil}, true},
		{"x is None", map[string]any{"x": "a"}, false},
		{"not x", map[string]any{}, false},
		{"not x", map[string]any{"x": nil}, true},
		{"not x", map[string]any{"x": "a"}, false},
		{"x == None", map[string]any{}, false},
		{"x == None", map[string]any{"x": nil}, true},
		{"x != 'a'", map[string]any{}, false},
		{"x != 'a'", map[string]any{"x": nil}, true},
		{"x != 'a'", map[string]any{"x": "a"}, false},
		{"n is None or x is None", map[string]any{"n": nil}, true}, // x is never reached
		{"n is None or x is None", map[string]any{"n": 1.0}, false},
		{"n is None or x is None", map[string]any{"n": 1.0, "x": nil}, true},
		{"n is not None and x is None", map[string]any{"n": nil}, false},
		{"n is not None and x is None", map[string]any{"n": 1.0}, false},
		{"n is not None and x is None", map[string]any{"n": 1.0, "x": nil}, true},
		{"x is None or n is None", map[string]any{"n": nil}, false}, // x is reached first
		{"x is None or n is None", map[string]any{"n": nil, "x": "a"}, true},
		{"x if n else True", map[string]any{"n": nil}, true}, // x is not reached
		{"x if n else True", map[string]any{"n": 1.0}, false},
		{"x if n else True", map[string]any{"n": 1.0, "x": "y"}, true},
		{"x if n else True", map[string]any{"n": 1.0, "x": nil}, false},
		{"(x if n else 'b') == 'b'", map[string]any{"n": nil}, true}, // x is not reached
		{"(x if n else 'b') == 'b'", map[string]any{"n": nil, "x": nil}, true},
		{"(x if n else 'b') == 'b'", map[string]any{"n": 1.0}, false},
		{"(x if n else 'b') == 'b'", map[string]any{"n": 1.0, "x": "b"}, true},
		{"any([n is None, x is None])", map[string]any{"n": nil}, false}, // every item is evaluated
		{"any([n is None, x is None])", map[string]any{"n": nil, "x": "a"}, true},
		{"len(x) > 0", map[string]any{}, false},
		{"len(x) > 0", map[string]any{"x": "ab"}, true},
		{"x is not None and x == 'a'", map[string]any{}, false},
		{"x is not None and x == 'a'", map[string]any{"x": "a"}, true},
		{"not (x is None)", map[string]any{}, false}, // the failure, not its negation
		{"not (x is None)", map[string]any{"x": nil}, false},
		{"not (x is None)", map[string]any{"x": "a"}, true},
		{"not x is None", map[string]any{}, false},
		{"not x is None", map[string]any{"x": "a"}, true},
		{"n > 1 and x", map[string]any{"n": 0.0}, false},
		{"n > 1 and x", map[string]any{"n": 2.0}, false},
		{"n > 1 and x", map[string]any{"n": 2.0, "x": "y"}, true},
		{"x in ('a', 'b') or n == 1", map[string]any{"n": 1.0}, false},
		{"x in ('a', 'b') or n == 1", map[string]any{"n": 1.0, "x": "c"}, true},
	} {
		t.Run(fmt.Sprintf("%s with %v", c.gate, c.ctx), func(t *testing.T) {
			bp, diags := Parse("u.json", undeclaredBlueprint(c.gate))
			require.NotNil(t, bp, "%v", diags)
			require.False(t, diags.HasErrors(), "%v", diags)
			x := bp.Gate("g").Expr
			typed := map[string]any{"lpp_defined_x": false}
			vals := map[string]any{"n": nil, "x": nil, "lpp_defined_x": false}
			for _, p := range bp.Context {
				typed[p.Name] = mspec.Type(specTypes[p.Type]).Zero()
			}
			for k, v := range c.ctx {
				vals[k] = v
				if k == "x" {
					vals["lpp_defined_x"] = true // written: lpp's context holds it
				}
			}
			p, err := mspec.CompileGuard(x, typed)
			require.NoError(t, err, x)
			out, err := expr.Run(p, vals)
			require.NoError(t, err, x)
			require.Equal(t, c.want, out, "%s translates to %s", c.gate, x)
		})
	}
}

// TestEveryWriteOfAnUndeclaredNameAGateReadsMakesItExist: the translation
// sets the flag with the property on a set (on the transition and in a
// helper state), names it in a compute output's defines, and a gate that
// reads no such name is translated as before.
func TestEveryWriteOfAnUndeclaredNameAGateReadsMakesItExist(t *testing.T) {
	bp, diags := Parse("u.json", undeclaredBlueprint("x is None"))
	require.False(t, diags.HasErrors(), "%v", diags)
	spec, err := ToSpecYAML(bp, nil)
	require.NoError(t, err)
	require.Contains(t, string(spec), "  lpp_defined_x: {type: bool, default: false, doc: ")
	require.Contains(t, string(spec), "- {to: a, set: {x: 'nil', lpp_defined_x: 'true'}, note: 't0'}")
	require.Contains(t, string(spec), "when: '(x != nil || lpp_defined_x) && x == nil'")

	bp, diags = Parse("u.json", undeclaredBlueprint("n is None"))
	require.False(t, diags.HasErrors(), "%v", diags)
	require.Equal(t, "n == nil", bp.Gate("g").Expr)
	spec, err = ToSpecYAML(bp, nil)
	require.NoError(t, err)
	require.NotContains(t, string(spec), "lpp_defined_", "no gate reads x: no flag")

	src := []byte(`{"$schema": "lpp/v0.2.0", "id": "c", "name": "c", "version": "1.0.0",
 "context_schema": {"properties": {}},
 "states": {"a": {}, "b": {}, "yes": {}}, "entry_state": "a", "terminal_states": {"yes": {}},
 "gates": {"ok": {"type": "expression", "expression": "error is None"}},
 "actions": {"work": {"type": "compute", "compute_unit": "u:work", "output_map": {"error": "error", "r.k": "v"}},
             "mark": {"type": "set", "target": "r", "value": 1}, "copy": {"type": "set", "target": "error", "value_from": "r"}},
 "transitions": [
  {"id": "t1", "from": "a", "to": "b", "on_event": "GO", "actions": ["work", "mark", "copy"]},
  {"id": "t2", "from": "b", "to": "yes", "on_event": "GO", "gates": ["ok"]}]}`)
	bp, diags = Parse("c.json", src)
	require.False(t, diags.HasErrors(), "%v", diags)
	m := &mapfile.Mapping{Units: map[string]mapfile.Unit{"u:work": {Script: "scripts/u.py", Function: "work"}}}
	spec, err = ToSpecYAML(bp, m)
	require.NoError(t, err)
	require.Contains(t, string(spec), "output: {error: 'error', 'r.k': 'v'}\n      defines: {lpp_defined_error: 'error'}")
	require.Contains(t, string(spec), "set: {r: '1'}")
	require.Contains(t, string(spec), "set: {error: 'first([r])', lpp_defined_error: 'true'}")
}

// TestAGuardEditedAfterTheImportIsWrittenBackWithoutTheFlag: export of an
// imported spec whose guard no longer holds the import's translation
// printed the translation's hidden flag into the blueprint's gate.
func TestAGuardEditedAfterTheImportIsWrittenBackWithoutTheFlag(t *testing.T) {
	bp, diags := Parse("u.json", undeclaredBlueprint("x is None"))
	require.False(t, diags.HasErrors(), "%v", diags)
	src, err := ToSpecYAML(bp, nil)
	require.NoError(t, err)
	edited := strings.Replace(string(src), "when: '(x != nil || lpp_defined_x) && x == nil'", "when: '(x != nil || lpp_defined_x) && x == nil && n == nil'", 1)
	require.NotEqual(t, string(src), edited)
	spec, diags := mspec.Parse("u.yaml", []byte(edited))
	require.False(t, diags.HasErrors(), "%v", diags)
	out, err := FromSpec(spec)
	require.NoError(t, err)
	require.Contains(t, string(out), `"expression": "x is None and n is None"`)
	require.NotContains(t, string(out), "lpp_defined")
}
