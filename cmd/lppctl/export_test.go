package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/internal/fsx"
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
		{"unknown format is a usage error", []string{"export", "--format", "svg", goodSpec}, 2, "", "lppctl: unknown format \"svg\" (formats: mermaid, mermaid-flowchart, dot, tla, lpp)\n"},
		{"tla module then its config", []string{"export", "--format", "tla", goodSpec}, 0, "---- MODULE review_loop ----\n", ""},
		{"tla-cfg needs the tla format", []string{"export", "--tla-cfg", "x.cfg", goodSpec}, 2, "", "lppctl: --tla-cfg applies to --format tla only\n"},
		{"tla draws no run", []string{"export", "--format", "tla", "--run", "r1", goodSpec}, 2, "", "lppctl: --run highlights a diagram; it does not apply to --format tla\n"},
		{"invalid spec exits 3 with diagnostics", []string{"export", broken}, 3, "", "error: transition to unknown state \"dne\""},
		{"missing spec exits 2", []string{"export", "nope.yaml"}, 2, "", "lppctl: cannot read spec: open nope.yaml: no such file or directory\n"},
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

// TestExportTLAEveryShippedSpec: every spec in specs/ exports as a TLA+
// module followed by its TLC configuration.
func TestExportTLAEveryShippedSpec(t *testing.T) {
	paths, err := expandSpecDirs([]string{"../../specs"}, fsx.DefaultMaxBytes)
	if err != nil || len(paths) < 3 {
		t.Fatalf("specs: %v (%d found)", err, len(paths))
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			code, out, errOut := runCLI(t, "export", "--format", "tla", path)
			if code != 0 {
				t.Fatalf("exit code %d\nstderr:\n%s", code, errOut)
			}
			if !strings.HasPrefix(out, "---- MODULE ") || !strings.Contains(out, "\n====") || !strings.Contains(out, "SPECIFICATION Spec\n") {
				t.Errorf("not a module and its config:\n%s", out)
			}
		})
	}
}

// TestExportTLAConfigToFile: --tla-cfg writes the config apart, and the
// module alone goes to -o.
func TestExportTLAConfigToFile(t *testing.T) {
	dir := t.TempDir()
	mod, cfg := filepath.Join(dir, "review_loop.tla"), filepath.Join(dir, "review_loop.cfg")
	if code, out, errOut := runCLI(t, "export", "-f", "tla", "--tla-cfg", cfg, "-o", mod, goodSpec); code != 0 || out != "" {
		t.Fatalf("exit code %d, stdout %q, stderr %q", code, out, errOut)
	}
	m, err := os.ReadFile(mod)
	if err != nil || !strings.HasSuffix(string(m), "\n"+strings.Repeat("=", 77)+"\n") {
		t.Errorf("module does not end at its ==== line (%v):\n%s", err, m)
	}
	c, err := os.ReadFile(cfg)
	if err != nil || !strings.HasPrefix(string(c), "\\* TLC configuration of review_loop.tla") || !strings.Contains(string(c), "CHECK_DEADLOCK TRUE\n") {
		t.Errorf("unexpected config (%v):\n%s", err, c)
	}
}
