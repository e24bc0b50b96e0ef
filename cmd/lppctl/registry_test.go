package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TestRunProtectedCoversTheSpecItsTemplatesAndTheRunDir: what a run hands the
// gateway to keep the model from rewriting the agent that runs it.
func TestRunProtectedCoversTheSpecItsTemplatesAndTheRunDir(t *testing.T) {
	root, _ := filepath.Abs("../..")
	reg, err := buildRegistry(agentConfig{Root: root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "specs", "skills_agent.yaml")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	spec, diags := mspec.Parse(file, src)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	got := runProtected(spec, reg, root, filepath.Join(root, "runs", "r1"))
	for _, want := range []string{
		file,
		filepath.Join(root, "specs", "prompts", "optimizer_system.md"),
		filepath.Join(root, "specs", "prompts", "evaluator_user.md"),
		filepath.Join(root, "runs", "r1"),
	} {
		if !slices.Contains(got, want) {
			t.Errorf("runProtected lacks %s; got %q", want, got)
		}
	}
}
