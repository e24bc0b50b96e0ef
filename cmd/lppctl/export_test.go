package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExportCommand(t *testing.T) {
	broken := writeSpec(t, "lpp: 1\nname: b\ninitial: a\nstates:\n  a:\n    next: dne\n  done: {final: true}\n")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // prefix
		stderr string // substring
	}{
		{"mermaid by default", []string{"export", goodSpec}, 0, "stateDiagram-v2\n    %% spec review_loop\n    [*] --> draft\n", ""},
		{"flowchart", []string{"export", "--format", "mermaid-flowchart", goodSpec}, 0, "flowchart TD\n", ""},
		{"dot with set", []string{"export", "--format", "dot", "--set", goodSpec}, 0, "digraph \"review_loop\" {\n", ""},
		{"unknown format is a usage error", []string{"export", "--format", "svg", goodSpec}, 2, "", "lppctl: unknown format \"svg\" (formats: mermaid, mermaid-flowchart, dot)\n"},
		{"invalid spec exits 3 with diagnostics", []string{"export", broken}, 3, "", "error: transition to unknown state \"dne\""},
		{"missing spec exits 3", []string{"export", "nope.yaml"}, 3, "", "lppctl: cannot read spec: open nope.yaml: no such file or directory\n"},
		{"no spec is a usage error", []string{"export"}, 2, "", "lppctl: export needs exactly one spec file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d\nstderr:\n%s", code, tt.code, errOut)
			}
			if !strings.HasPrefix(out, tt.stdout) {
				t.Errorf("stdout does not start with %q:\n%s", tt.stdout, out)
			}
			if !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, errOut)
			}
		})
	}
}

func TestExportCommandWritesFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "agent.dot")
	if code, out, errOut := runCLI(t, "export", "-f", "dot", "-o", file, goodSpec); code != 0 || out != "" {
		t.Fatalf("exit code %d, stdout %q, stderr %q", code, out, errOut)
	}
	b, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(b), `"review" -> "draft" [label="[retries < max_retries]"];`) {
		t.Fatalf("unexpected file (%v):\n%s", err, b)
	}
}
