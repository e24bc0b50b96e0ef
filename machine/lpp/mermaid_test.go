package lpp

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine/export"
)

func TestMermaidGolden(t *testing.T) {
	for _, f := range blueprints(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			bp, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, strings.TrimSuffix(f, ".json")+".mmd.golden", []byte(Mermaid(bp)))
		})
	}
}

// TestMermaidDrawsEveryTransitionInFull: one label line per transition,
// each with every gate's whole expression, "*" drawn once, entry and
// terminals marked.
func TestMermaidDrawsEveryTransitionInFull(t *testing.T) {
	for _, f := range blueprints(t) {
		bp, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		d := Mermaid(bp)
		for _, tr := range bp.Transitions {
			if !strings.Contains(d, export.MermaidText(edgeLabel(bp, tr))) {
				t.Errorf("%s: transition %s is not drawn with its full label %q", f, tr.ID, edgeLabel(bp, tr))
			}
			for _, id := range tr.Gates {
				if g := bp.Gate(id); g.Type == GateExpression && !strings.Contains(d, export.MermaidText(g.Expression)) {
					t.Errorf("%s: gate %s is not drawn in full", f, id)
				}
			}
		}
		anyCount := strings.Count(d, "state \"* (any state)\" as lpp_any")
		hasAny := false
		for _, tr := range bp.Transitions {
			hasAny = hasAny || tr.From == Any
		}
		if hasAny != (anyCount == 1) {
			t.Errorf("%s: the any-state node is drawn %d times", f, anyCount)
		}
		if !strings.Contains(d, "[*] --> ") {
			t.Errorf("%s: no entry edge", f)
		}
		if got, want := strings.Count(d, " --> [*]"), len(bp.Terminals); got != want {
			t.Errorf("%s: %d terminal edges, want %d", f, got, want)
		}
	}
}

func TestMermaidLongGateIsNotShortened(t *testing.T) {
	long := "target is not None and len(target) > 10 and meta.get('owner') is not None and count >= 3"
	src := `{"$schema":"lpp/v0.2.0","context_schema":{"properties":{"target":{"type":"string"},"meta":{"type":"object"},"count":{"type":"integer"}}},
"states":{"a":{},"end":{}},"entry_state":"a","terminal_states":["end"],
"gates":{"g":{"type":"expression","expression":"` + long + `"}},
"transitions":[{"id":"t","from":"a","to":"end","on_event":"GO","gates":["g"]}], "id": "x", "name": "x", "version": "1"}`
	bp, diags := Parse("long.json", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := "    a --> s1 : t: GO [" + long + "]\n"
	if d := Mermaid(bp); !strings.Contains(d, want) {
		t.Fatalf("want the whole gate on the edge:\n%s\ngot:\n%s", want, d)
	}
}

// TestMermaidParsesWithRealMermaid runs the real Mermaid parser over every
// blueprint's diagram (cd machine/testdata/mermaid && npm ci).
func TestMermaidParsesWithRealMermaid(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		skipRenderer(t, "node is not installed")
	}
	if _, err := os.Stat("../testdata/mermaid/node_modules/mermaid"); err != nil {
		skipRenderer(t, "mermaid is not installed: cd machine/testdata/mermaid && npm ci")
	}
	dir := t.TempDir()
	var files []string
	for _, f := range blueprints(t) {
		bp, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(f), ".json")+".mmd")
		if err := os.WriteFile(out, []byte(Mermaid(bp)), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, out)
	}
	out, err := exec.Command(node, append([]string{"../testdata/mermaid/check.mjs"}, files...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("Mermaid rejects a blueprint diagram: %v\n%s", err, out)
	}
	if n := bytes.Count(out, []byte("ok ")); n != len(files) {
		t.Fatalf("want %d ok lines, got:\n%s", len(files), out)
	}
}

func skipRenderer(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("LPPCTL_REQUIRE_RENDERERS") != "" {
		t.Fatalf("%s (LPPCTL_REQUIRE_RENDERERS is set)", why)
	}
	t.Skip(why)
}
