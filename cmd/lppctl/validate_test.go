package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs lppctl with args and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	inProcess.Lock() // see lppctlCLI
	defer inProcess.Unlock()
	code := run(append([]string{"lppctl"}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

const goodSpec = "../../machine/testdata/specs/agent.yaml"

func writeSpec(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestValidateCommand(t *testing.T) {
	broken := writeSpec(t, "lpp: 1\nname: b\ninitial: a\nstates:\n  a:\n    next: dne\n  done: {final: true}\n")
	warn := writeSpec(t, "lpp: 1\nname: w\ninitial: a\nstates:\n  a:\n    next: [{to: done, when: state == \"b\"}, b]\n  b: {next: a}\n  done: {final: true}\n")
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string // substrings
		stderr   string   // exact
		noStdout bool
	}{
		{"valid spec prints ok", []string{"validate", goodSpec}, 0, []string{goodSpec + ": ok\n"}, "", false},
		{"broken spec prints carets and exits 3", []string{"validate", broken}, 3, []string{
			broken + ":6:11: error: transition to unknown state \"dne\"\n 6 |     next: dne\n   |           ^^^\n   = did you mean \"done\"?",
			"1 error, 0 warnings",
		}, "lppctl: " + broken + " is invalid: 1 error\n", false},
		{"warnings only exit 0", []string{"validate", warn}, 0, []string{"warning: cycle a → b → a is not bounded", warn + ": ok\n"}, "", false},
		{"a file that does not exist exits 2", []string{"validate", "nope.yaml"}, 2, nil, "lppctl: cannot read spec: open nope.yaml: no such file or directory\n", true},
		{"no arguments is a usage error", []string{"validate"}, 2, nil, "lppctl: validate needs at least one spec file: lppctl validate SPEC...\n", true},
		{"several specs report each", []string{"validate", goodSpec, broken}, 3, []string{goodSpec + ": ok\n", "transition to unknown state"}, "lppctl: " + broken + " is invalid: 1 error\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if tt.noStdout && out != "" {
				t.Errorf("want no stdout, got:\n%s", out)
			}
			if errOut != tt.stderr {
				t.Errorf("stderr = %q, want %q", errOut, tt.stderr)
			}
		})
	}
}

func TestValidateCommandJSON(t *testing.T) {
	broken := writeSpec(t, "lpp: 1\nname: b\ninitial: a\nstates:\n  a:\n    next: dne\n  done: {final: true}\n")
	code, out, _ := runCLI(t, "validate", "--json", goodSpec, broken)
	if code != exitInvalidSpec {
		t.Fatalf("exit code %d, want %d", code, exitInvalidSpec)
	}
	reports := decodeJSONLines[jsonSpecReport](t, out)
	if len(reports) != 2 || !reports[0].OK || reports[1].OK {
		t.Fatalf("unexpected reports: %+v", reports)
	}
	want := jsonDiagnostic{Severity: "error", File: broken, Line: 6, Col: 11, Span: 3, Message: `transition to unknown state "dne"`, Hint: `did you mean "done"?`}
	if len(reports[1].Diagnostics) != 1 || reports[1].Diagnostics[0] != want {
		t.Errorf("got %+v, want %+v", reports[1].Diagnostics, want)
	}
}
