package actions

import (
	"strings"
	"testing"

	"github.com/lppctl/lppctl/internal/testenv"
)

func toolsCallSpec(with string) string {
	return `
lpp: 1
name: call
context:
  out_dir: {type: string, default: data}
  result:  {type: string, default: ""}
  status:  {type: string, default: ""}
initial: call
states:
  call:
    do: tools.call
    with: ` + with + `
    next: [{to: done}]
  done: {final: true}
`
}

func TestToolsCallWritesResultAndStatus(t *testing.T) {
	for _, c := range []struct {
		name, with     string
		status, result string
	}{
		{"an allowed read", `{tool: safe_cli_executor, command: read_file, args: {path: 'out_dir + "/a.txt"'}, result: result, status: status}`,
			"ok", "alpha\n"},
		{"a path outside the root is blocked", `{tool: safe_cli_executor, command: read_file, args: {path: '"../etc/passwd"'}, result: result, status: status}`,
			"blocked", "[SECURITY BLOCKED] path-"},
		{"a missing file is an error", `{tool: safe_cli_executor, command: read_file, args: {path: 'out_dir + "/none.txt"'}, result: result, status: status}`,
			"error", "[ERROR] read_file: "},
		{"a script through the runner", `{tool: safe_py_runner, args: {script_name: '"scripts/hi.py"', args: '["x"]'}, result: result, status: status}`,
			"ok", "hi x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if strings.Contains(c.with, "safe_py_runner") {
				testenv.Python(t)
			}
			p := newProject(t, map[string]string{
				"data/a.txt":    "alpha\n",
				"scripts/hi.py": "import sys\nprint('hi', sys.argv[1])\n",
				"a/spec.yaml":   toolsCallSpec(c.with),
			})
			r, err := p.run("a/spec.yaml", p.deps("a", ""), nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.Var("status") != c.status || !strings.HasPrefix(r.Var("result").(string), c.result) {
				t.Fatalf("status %q result %q; want %q, %q…", r.Var("status"), r.Var("result"), c.status, c.result)
			}
			if n := strings.Count(p.audit.String(), "\n"); n != 1 {
				t.Errorf("audit has %d lines", n)
			}
		})
	}
}

func TestToolsCallWithoutStatusFailsOnRefusal(t *testing.T) {
	p := newProject(t, map[string]string{
		"a/spec.yaml": toolsCallSpec(`{tool: safe_cli_executor, command: read_file, args: {path: '"../etc/passwd"'}, result: result}`),
	})
	_, err := p.run("a/spec.yaml", p.deps("a", ""), nil)
	want := `action failed: tools.call in state "call": safe_cli_executor read_file: [SECURITY BLOCKED] path-`
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "(give tools.call a status: variable to route on it instead)") {
		t.Fatalf("got %v\nwant %s…", err, want)
	}
}
