package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/internal/testenv"
)

// toolRoot makes a project root holding this checkout's policy and scripts.
func toolRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	copyFile := func(src, dst string) {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("../../config/tools_config.yaml", filepath.Join(root, "config", "tools_config.yaml"))
	scripts, _ := filepath.Glob("../../scripts/*.py")
	for _, s := range scripts {
		copyFile(s, filepath.Join(root, "scripts", filepath.Base(s)))
	}
	copyFile("../../config/tools_config.yaml", filepath.Join(root, "skills", "demo", "notes.md"))
	return root
}

func TestToolCommand(t *testing.T) {
	root := toolRoot(t)
	os.WriteFile(filepath.Join(root, "in.md"), []byte("# Hi\n"), 0o644)
	os.WriteFile(filepath.Join(root, "bad.yaml"), []byte("version: 1\nbogus: true\n"), 0o644)
	tests := []struct {
		name    string
		args    []string
		stdin   string
		code    int
		stdout  string // exact, unless prefix is set
		prefix  bool
		stderr  string // substring
		needsPy bool
	}{
		{name: "list_files", args: []string{"safe_cli_executor", "list_files", "path=skills"}, stdout: "demo/\n"},
		{name: "read_file", args: []string{"safe_cli_executor", "read_file", "path=in.md"}, stdout: "# Hi\n"},
		{name: "a refusal still exits 0", args: []string{"safe_cli_executor", "read_file", "path=../../etc/passwd"},
			stdout: "[SECURITY BLOCKED] path-traversal: read_file.path \"../../etc/passwd\" contains \"..\"; paths must stay inside the project root\n"},
		{name: "a hidden file is refused", args: []string{"safe_cli_executor", "read_file", "path=.git/config"},
			stdout: "[SECURITY BLOCKED] path-hidden: read_file.path \".git/config\" matches the hidden path pattern \".git\" (hidden_paths in the policy); hidden paths are never shown to the model\n"},
		{name: "an unknown tool is refused by the gateway", args: []string{"shell"}, stdout: "[SECURITY BLOCKED] unknown-tool: \"shell\" is not an available tool (available: safe_cli_executor, safe_py_runner)\n"},
		{name: "the runner with flags after the script", args: []string{"safe_py_runner", "scripts/write_file.py", "--arg", "out/x.md", "--stdin-file", filepath.Join(root, "in.md")},
			stdout: "wrote 5 bytes (1 lines) to out/x.md\n", needsPy: true},
		{name: "the runner with --stdin and --env", args: []string{"safe_py_runner", "scripts/write_md.py", "--arg=out/y.md", "--stdin", "# T\n", "--env", "NAME=Ada"},
			stdout: "wrote 4 bytes (1 headings) to out/y.md\n  # T\n", needsPy: true},
		{name: "stdin from lppctl's stdin", args: []string{"safe_py_runner", "scripts/write_txt.py", "--arg", "out/z.txt", "--stdin-file", "-"}, stdin: "abc",
			stdout: "wrote 4 bytes (1 lines) to out/z.txt\n", needsPy: true},
		{name: "raw JSON arguments", args: []string{"safe_cli_executor", "--args-json", `{"tool_name":"read_file","params":"{\"path\":\"in.md\"}"}`}, stdout: "# Hi\n"},
		{name: "malformed raw JSON", args: []string{"safe_cli_executor", "--args-json", `{`}, stdout: `[ERROR] cannot parse the arguments as JSON: unexpected end of JSON input; the arguments sent were "{"; send one JSON object, e.g. {"tool_name": "list_files", "params": {"path": "."}}` + "\n"},
		{name: "--json prints the result", args: []string{"safe_cli_executor", "read_file", "path=in.md", "--json"}, stdout: "{\n  \"text\": \"# Hi\\n\",\n  \"decision\": \"allow\",\n", prefix: true},
		{name: "--docs", args: []string{"--docs"}, stdout: "## safe_cli_executor\n", prefix: true},
		{name: "--help", args: []string{"--help"}, stdout: "usage:\n", prefix: true},
		{name: "no tool is a usage error", args: nil, code: 2, stderr: "lppctl: tool: name a tool (safe_cli_executor or safe_py_runner)"},
		{name: "an unknown flag is a usage error", args: []string{"safe_cli_executor", "--bogus"}, code: 2, stderr: "lppctl: unknown flag --bogus\nusage: lppctl tool safe_cli_executor SUB_COMMAND"},
		{name: "a parameter without = is a usage error", args: []string{"safe_cli_executor", "read_file", "in.md"}, code: 2, stderr: `lppctl: tool: parameter "in.md" must be NAME=VALUE`},
		{name: "two scripts is a usage error", args: []string{"safe_py_runner", "a.py", "b.py"}, code: 2, stderr: "lppctl: tool: safe_py_runner needs exactly one script (pass script arguments with --arg)"},
		{name: "--env without = is a usage error", args: []string{"safe_py_runner", "a.py", "--env", "X"}, code: 2, stderr: `lppctl: tool: --env wants KEY=VALUE, got "X"`},
		{name: "an invalid policy exits 3", args: []string{"safe_cli_executor", "list_files", "--policy", filepath.Join(root, "bad.yaml")}, code: 3, stderr: "lppctl: cannot load policy " + filepath.Join(root, "bad.yaml") + ": invalid policy: "},
		{name: "a missing policy exits 3", args: []string{"safe_cli_executor", "list_files", "--policy", filepath.Join(root, "none.yaml")}, code: 3, stderr: "lppctl: cannot load policy: open "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needsPy {
				testenv.Python(t)
			}
			var out, errb bytes.Buffer
			args := append([]string{"lppctl", "tool", "--root", root}, tt.args...)
			code := run(args, strings.NewReader(tt.stdin), &out, &errb)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out.String(), errb.String())
			}
			if tt.prefix && !strings.HasPrefix(out.String(), tt.stdout) || !tt.prefix && tt.code == 0 && out.String() != tt.stdout {
				t.Errorf("stdout = %q\nwant %q", out.String(), tt.stdout)
			}
			if tt.stderr != "" && !strings.Contains(errb.String(), tt.stderr) {
				t.Errorf("stderr = %q\nwant it to contain %q", errb.String(), tt.stderr)
			}
		})
	}
}

func TestToolCommandJSONResultDecodes(t *testing.T) {
	root := toolRoot(t)
	var out, errb bytes.Buffer
	code := run([]string{"lppctl", "tool", "safe_cli_executor", "make_directory", "path=.git/x", "--json", "--root", root}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res struct {
		Text, Decision, Rule string
		ExitCode             int `json:"exit_code"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.Decision != "block" || res.Rule != "protected-path" || res.ExitCode != -1 {
		t.Errorf("res = %+v", res)
	}
}
