package lpp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/lpp/mapfile"
	"github.com/lppctl/lppctl/machine/validate"
)

// bigBlueprint returns a blueprint of n states and m transitions: a chain
// of SUBMIT transitions with gates reading the payload and the context,
// DONE transitions with set actions, and a few "*" transitions.
func bigBlueprint(n, m int) []byte {
	states := map[string]any{}
	for i := range n {
		states[fmt.Sprintf("s%d", i)] = map[string]any{"description": fmt.Sprintf("state %d", i)}
	}
	gates := map[string]any{}
	actions := map[string]any{}
	var trans []any
	for i := range m {
		from, to := fmt.Sprintf("s%d", i%(n-1)), fmt.Sprintf("s%d", (i*7+1)%n)
		g, a := fmt.Sprintf("g%d", i), fmt.Sprintf("a%d", i)
		gates[g] = map[string]any{"type": "expression", "expression": fmt.Sprintf("count < %d and (name is not None or event.payload.get('force', False)) and len(items) >= %d", i, i%5)}
		actions[a] = map[string]any{"type": "set", "target": "count", "value_from": "event.payload.count"}
		ev := []string{"SUBMIT", "DONE", "RETRY"}[i%3]
		t := map[string]any{"id": fmt.Sprintf("t%d", i), "from": from, "to": to, "on_event": ev, "gates": []string{g}, "actions": []string{a}}
		if i%25 == 0 {
			t["from"] = "*"
		}
		trans = append(trans, t)
	}
	bp := map[string]any{"$schema": "lpp/v0.2.0", "id": "big", "entry_state": "s0",
		"context_schema": map[string]any{"properties": map[string]any{"count": map[string]any{"type": "integer", "default": 0},
			"name": map[string]any{"type": "string"}, "items": map[string]any{"type": "array"}}},
		"states": states, "terminal_states": map[string]any{fmt.Sprintf("s%d", n-1): map[string]any{}},
		"gates": gates, "actions": actions, "transitions": trans, "name": "x", "version": "1"}
	src, _ := json.Marshal(bp)
	return src
}

// BenchmarkImport60x150 measures reading and translating a blueprint of
// 60 states and 150 transitions (target: ≤ 50 ms).
func BenchmarkImport60x150(b *testing.B) {
	src := bigBlueprint(60, 150)
	for b.Loop() {
		bp, diags := Parse("big.json", src)
		if diags.HasErrors() {
			b.Fatal(diags)
		}
		if _, err := ToSpecYAML(bp, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMermaid60x150 measures drawing the same blueprint.
func BenchmarkMermaid60x150(b *testing.B) {
	bp, diags := Parse("big.json", bigBlueprint(60, 150))
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	for b.Loop() {
		_ = Mermaid(bp)
	}
}

// BenchmarkImportValidate60x150 measures what `lppctl validate big.json`
// does with a blueprint of 60 states and 150 transitions: read it,
// translate it, decode the spec and validate it (target: ≤ 50 ms).
func BenchmarkImportValidate60x150(b *testing.B) {
	src := bigBlueprint(60, 150)
	reg := machine.NewBuiltinRegistry()
	for b.Loop() {
		bp, diags := Parse("big.json", src)
		if diags.HasErrors() {
			b.Fatal(diags)
		}
		tr, err := Translate(bp, nil)
		if err != nil {
			b.Fatal(err)
		}
		spec, diags := tr.Spec()
		if diags.HasErrors() {
			b.Fatal(tr.Remap(diags).Err())
		}
		if diags := validate.Validate(spec, reg); diags.HasErrors() {
			b.Fatal(tr.Remap(diags).Err())
		}
	}
}

// BenchmarkCheck60x150 model-checks the translation of the 60-state,
// 150-transition blueprint, as lppctl check BLUEPRINT.json does after
// reading it (the report moved into the JSON).
func BenchmarkCheck60x150(b *testing.B) {
	bp, diags := Parse("big.json", bigBlueprint(60, 150))
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	tr, err := Translate(bp, nil)
	if err != nil {
		b.Fatal(err)
	}
	spec, _ := tr.Spec()
	reg := machine.NewBuiltinRegistry()
	m, err := machine.Compile(spec, reg)
	if err != nil {
		b.Fatal(err)
	}
	var r *check.CheckReport
	for b.Loop() {
		r = tr.RemapReport(check.ModelCheck(context.Background(), m, check.CheckOptions{}))
	}
	b.ReportMetric(float64(r.Stats.States), "states")
}

// BenchmarkImportValidateLargestReal measures what `lppctl validate` does
// with the largest real blueprint of ../shared/lpp-real (read it, translate
// it without a compute mapping, decode and validate the spec; target:
// ≤ 50 ms). Skipped when the folder is absent.
func BenchmarkImportValidateLargestReal(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(lppRealDir, "*.json"))
	var path string
	var size int64
	for _, f := range files {
		if _, refused := lppRefuses[filepath.Base(f)]; refused || filepath.Base(f) == "gate-semantics.json" {
			continue
		}
		if fi, err := os.Stat(f); err == nil && fi.Size() > size {
			path, size = f, fi.Size()
		}
	}
	if path == "" {
		b.Skipf("%s is absent", lppRealDir)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	reg := machine.NewBuiltinRegistry()
	for b.Loop() {
		bp, diags := Parse(path, src)
		if diags.HasErrors() {
			b.Fatal(diags)
		}
		m := mapfile.Default()
		m.Unmapped = true
		tr, err := Translate(bp, m)
		if err != nil {
			b.Fatal(err)
		}
		spec, diags := tr.Spec()
		if diags.HasErrors() {
			b.Fatal(tr.Remap(diags).Err())
		}
		if diags := tr.Remap(validate.Validate(spec, reg)); diags.HasErrors() {
			b.Fatal(diags.Err())
		}
	}
}
