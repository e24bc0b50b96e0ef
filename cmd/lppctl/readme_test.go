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

// TestReadmeCLITableListsEveryCommand: each of the app's commands has a row
// in the README's CLI table.
func TestReadmeCLITableListsEveryCommand(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "\n## CLI\n")
	if start < 0 {
		t.Fatal("the README has no CLI section")
	}
	section := text[start+1:]
	if end := strings.Index(section[1:], "\n## "); end >= 0 {
		section = section[:end+1]
	}
	for _, cmd := range newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}).Commands {
		if cmd.Hidden || cmd.Name == "help" {
			continue
		}
		if !strings.Contains(section, "\n| `lppctl "+cmd.Name) && !strings.Contains(section, ", `lppctl "+cmd.Name) {
			t.Errorf("the README's CLI table has no row for lppctl %s", cmd.Name)
		}
	}
}

// TestReadmeGivesTwoCommands: the README's first code block holds exactly
// one build-and-run command and one test command.
func TestReadmeGivesTwoCommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "## The two commands\n")
	if start < 0 {
		t.Fatal("the README has no \"The two commands\" section")
	}
	block := text[start:]
	block = block[strings.Index(block, "```sh\n")+len("```sh\n"):]
	block = block[:strings.Index(block, "```")]
	var cmds []string
	for _, line := range strings.Split(block, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			cmds = append(cmds, line)
		}
	}
	want := []string{
		"go generate ./ui && CGO_ENABLED=0 go build -o lppctl ./cmd/lppctl && ./lppctl run --spec specs/skills_agent.yaml --skill skills/hello_skill --yes",
		"go test ./...",
	}
	if strings.Join(cmds, "\n") != strings.Join(want, "\n") {
		t.Errorf("the two commands are\n%s\nwant\n%s", strings.Join(cmds, "\n"), strings.Join(want, "\n"))
	}
}
