package main

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestReadmeContractorDiagramMatchesTheSpec keeps the README's diagram of
// the Skill Contractor equal to what lppctl export draws from
// specs/skill_contractor.yaml (its notes left out).
func TestReadmeContractorDiagramMatchesTheSpec(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	sec := strings.Index(text, "## The Skill Contractor\n")
	if sec < 0 {
		t.Fatal("the README has no Skill Contractor section")
	}
	start := strings.Index(text[sec:], "```mermaid\n")
	if start < 0 {
		t.Fatal("the Skill Contractor section has no mermaid block")
	}
	block := text[sec+start+len("```mermaid\n"):]
	block = block[:strings.Index(block, "\n```")]

	var out, errb bytes.Buffer
	if code := run([]string{"lppctl", "export", "../../specs/skill_contractor.yaml"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errb.String())
	}
	var want []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.Contains(line, "%%") || strings.HasPrefix(strings.TrimSpace(line), "note ") {
			continue
		}
		want = append(want, line)
	}
	if got := strings.Split(block, "\n"); !slices.Equal(got, want) {
		t.Errorf("the README's diagram differs from lppctl export; paste this:\n%s", strings.Join(want, "\n"))
	}
}
