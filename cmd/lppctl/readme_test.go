package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// mermaidEdge matches "A --> B" or "A --> B : label" in a stateDiagram-v2.
var mermaidEdge = regexp.MustCompile(`^\s*(\S+) --> (\S+)(?: : (.*))?$`)

// TestReadmeDiagramMatchesTheSpec keeps the README's (abridged) diagram of
// the Skills Agent from drifting away from specs/skills_agent.yaml: the same
// state-to-state edges as `lppctl export`, leaving out only the events a
// person fires (SKIP_STEP) and the on_error duplicate of an edge.
func TestReadmeDiagramMatchesTheSpec(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "```mermaid\nstateDiagram-v2\n")
	if start < 0 {
		t.Fatal("the README has no stateDiagram-v2 block")
	}
	end := strings.Index(text[start:], "\n```")
	block := text[start : start+end]

	var out, errb bytes.Buffer
	if code := run([]string{"lppctl", "export", "../../specs/skills_agent.yaml"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errb.String())
	}
	edges := func(diagram string, skipEvents bool) map[string]bool {
		set := map[string]bool{}
		for _, line := range strings.Split(diagram, "\n") {
			m := mermaidEdge.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			if skipEvents && m[3] != "" && !strings.HasPrefix(m[3], "[") && m[3] != "on_error" {
				continue // an event edge (SKIP_STEP ...)
			}
			set[m[1]+" --> "+m[2]] = true
		}
		return set
	}
	inReadme, inSpec := edges(block, false), edges(out.String(), true)
	for e := range inReadme {
		if !inSpec[e] {
			t.Errorf("the README draws %s, which the spec does not have", e)
		}
	}
	for e := range inSpec {
		if !inReadme[e] {
			t.Errorf("the README lacks the spec's edge %s", e)
		}
	}
}
