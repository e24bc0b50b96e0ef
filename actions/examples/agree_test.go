package examples

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAgreeProbesKeepsOnlyWhatBothDerivationsGive(t *testing.T) {
	examples := []any{
		map[string]any{"name": "12 ft in m", "kind": "typical", "vars": map[string]any{"value": 12, "from_unit": "ft", "to_unit": "m"}, "expect": map[string]any{"result": 3.6576}},
		map[string]any{"name": "unknown", "kind": "error", "vars": map[string]any{"value": 1, "from_unit": "parsec", "to_unit": "m"}, "expect": map[string]any{}},
	}
	probe := func(name string, value float64, from, to string, result any) map[string]any {
		return map[string]any{"name": name, "vars": map[string]any{"value": value, "from_unit": from, "to_unit": to}, "expect": map[string]any{"result": result}}
	}
	derived := func(name string, fails bool, expect map[string]any) map[string]any {
		return map[string]any{"name": name, "fails": fails, "expect": expect}
	}
	tests := []struct {
		name            string
		probes, derived []any
		max             int
		kept            []string
		dropped         []string
	}{
		{
			name:    "values equal within the last written digit of either side agree",
			probes:  []any{probe("cm in in", 100, "cm", "in", 39.3701), probe("yd in ft", 3, "yd", "ft", 9)},
			derived: []any{derived("cm in in", false, map[string]any{"result": 39.37007874}), derived("yd in ft", false, map[string]any{"result": "9"})},
			kept:    []string{"cm in in", "yd in ft"},
		},
		{
			name:    "a value the second derivation gives differently drops the probe, never refuses the skill",
			probes:  []any{probe("cm in in", 100, "cm", "in", 3.937), probe("yd in ft", 3, "yd", "ft", 9)},
			derived: []any{derived("cm in in", false, map[string]any{"result": 39.37}), derived("yd in ft", false, map[string]any{"result": 9})},
			kept:    []string{"yd in ft"},
			dropped: []string{"probe 1: the two derivations differ on result"},
		},
		{
			name:    "whole numbers must be equal",
			probes:  []any{probe("yd in ft", 3, "yd", "ft", 9)},
			derived: []any{derived("yd in ft", false, map[string]any{"result": 10})},
			dropped: []string{"probe 1: the two derivations differ on result"},
		},
		{
			name:    "answers in another order are matched by name",
			probes:  []any{probe("a", 1, "m", "cm", 100), probe("b", 1, "km", "m", 1000)},
			derived: []any{derived("b", false, map[string]any{"result": 1000}), derived("a", false, map[string]any{"result": 100})},
			kept:    []string{"a", "b"},
		},
		{
			name: "an example's inputs, a repeated probe, an unknown variable, a failing run and a missing item are dropped",
			probes: []any{
				probe("ft again", 12, "ft", "m", 3.6576),
				probe("a", 1, "m", "cm", 100), probe("a twice", 1, "m", "cm", 100),
				map[string]any{"name": "precision", "vars": map[string]any{"value": 1, "from_unit": "m", "to_unit": "mm", "digits": 2}, "expect": map[string]any{"result": 1000}},
				map[string]any{"name": "report", "vars": map[string]any{"value": 2, "from_unit": "m", "to_unit": "mm"}, "expect": map[string]any{"report": "2 m = 2000 mm"}},
				probe("fails", 2, "mi", "ft", 10560),
				probe("unanswered", 5, "in", "cm", 12.7),
			},
			derived: []any{
				derived("ft again", false, map[string]any{"result": 3.6576}),
				derived("a", false, map[string]any{"result": 100}), derived("a twice", false, map[string]any{"result": 100}),
				derived("precision", false, map[string]any{"result": 1000}),
				derived("report", false, map[string]any{"report": "2 m = 2000 mm"}),
				derived("fails", true, map[string]any{}),
			},
			kept: []string{"a"},
			dropped: []string{
				"probe 1: an example or an earlier probe gives its inputs",
				"probe 3: an example or an earlier probe gives its inputs",
				"probe 4: it gives digits, which no example gives",
				"probe 5: it checks report, which no example checks",
				"probe 6: the second derivation says its run must fail",
				"probe 7: the second derivation gives no item for it",
			},
		},
		{
			name:    "a probe that expects nothing, or writes a file over the skill's own, is dropped",
			probes:  []any{probe("a", 1, "m", "cm", 100), map[string]any{"name": "nothing", "vars": map[string]any{"value": 3}, "expect": map[string]any{}}, map[string]any{"name": "shadow", "vars": map[string]any{"value": 4}, "files": map[string]any{"scripts/convert.py": "x"}, "expect": map[string]any{"result": 1}}},
			derived: []any{derived("a", false, map[string]any{"result": 100}), derived("nothing", false, map[string]any{}), derived("shadow", false, map[string]any{"result": 1})},
			kept:    []string{"a"},
			dropped: []string{"probe 2: it is not {name, vars, files, expect} with values to check", "probe 3: it is not {name, vars, files, expect} with values to check"},
		},
		{
			name:    "at most max are kept",
			probes:  []any{probe("a", 1, "m", "cm", 100), probe("b", 1, "km", "m", 1000)},
			derived: []any{derived("a", false, map[string]any{"result": 100}), derived("b", false, map[string]any{"result": 1000})},
			max:     1,
			kept:    []string{"a"},
			dropped: []string{"probe 2: more than 1 probes"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			max := tt.max
			if max == 0 {
				max = 6
			}
			agreed, held, dropped := AgreeProbes(tt.probes, tt.derived, examples, max)
			var kept []string
			for i, raw := range agreed {
				p := raw.(map[string]any)
				kept = append(kept, p["name"].(string))
				assert.Equal(t, "probe", p["kind"])
				assert.Equal(t, i+1, held[i])
			}
			assert.Equal(t, tt.kept, kept)
			assert.Equal(t, tt.dropped, dropped)
		})
	}
}
