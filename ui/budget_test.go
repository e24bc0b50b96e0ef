package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpecPageDoesNotDrawThousandsOfStates: a spec too big to lay out gets
// a note instead of a diagram (Graphviz or the browser's Mermaid would take
// longer than a page may), and its diagnostics still show.
func TestSpecPageDoesNotDrawThousandsOfStates(t *testing.T) {
	f := newFixture(t, Options{})
	var b strings.Builder
	b.WriteString("lpp: 1\nname: big\ninitial: s0\nstates:\n")
	for i := 0; i < 600; i++ {
		fmt.Fprintf(&b, "  s%d: {do: noop, next: [{to: s%d}]}\n", i, i+1)
	}
	b.WriteString("  s600: {final: true}\n  lost: {do: noop, next: [{to: nowhere}]}\n")
	if err := os.MkdirAll(filepath.Join(f.root, "specs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.root, "specs", "big.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	body := f.do("GET", "/spec?path=specs/big.yaml", "").Body.String()
	for _, want := range []string{
		"big.yaml has 602 states, more than the 500 this page draws; lppctl export --format dot (or mermaid) writes its diagram.",
		"transition to unknown state &#34;nowhere&#34;",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, not := range []string{"digraph", "stateDiagram-v2"} {
		if strings.Contains(body, not) {
			t.Errorf("the page draws the spec (%q)", not)
		}
	}
}
