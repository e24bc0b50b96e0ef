package main

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestReadmeContractorDiagramMatchesTheSpec keeps the diagrams of the Skill
// Contractor in the README and in docs/contractor.md equal to what lppctl
// export draws from specs/skill_contractor.yaml (its notes left out).
func TestReadmeContractorDiagramMatchesTheSpec(t *testing.T) {
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
	for _, doc := range []struct{ file, section string }{
		{"../../README.md", "## The Skill Contractor\n"},
		{"../../docs/contractor.md", "## The machine\n"},
	} {
		b, err := os.ReadFile(doc.file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		sec := strings.Index(text, doc.section)
		if sec < 0 {
			t.Fatalf("%s has no section %q", doc.file, doc.section)
		}
		start := strings.Index(text[sec:], "```mermaid\n")
		if start < 0 {
			t.Fatalf("%s: the section has no mermaid block", doc.file)
		}
		block := text[sec+start+len("```mermaid\n"):]
		block = block[:strings.Index(block, "\n```")]
		if got := strings.Split(block, "\n"); !slices.Equal(got, want) {
			t.Errorf("the diagram of %s differs from lppctl export; paste this:\n%s", doc.file, strings.Join(want, "\n"))
		}
	}
}
