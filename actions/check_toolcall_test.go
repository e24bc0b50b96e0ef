package actions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckSpecChecksToolsCall(t *testing.T) {
	for _, c := range []struct {
		name, with, want string
	}{
		{"a misspelt sub-command", `{tool: safe_cli_executor, command: read_fiel, args: {path: out_dir}}`,
			`a/spec.yaml:12:46: error: parameter "command" of action "tools.call": "read_fiel" is not a sub-command of the policy config/tools_config.yaml; did you mean "read_file"? the policy config/tools_config.yaml has: copy_file, list_files, make_directory, move_file, python_run, read_file, tree`},
		{"a sub-command the gateway does not have", `{tool: safe_cli_executor, command: rm_rf, args: {path: out_dir}}`,
			`a/spec.yaml:12:46: error: parameter "command" of action "tools.call": "rm_rf" is not a sub-command of the policy config/tools_config.yaml; the policy config/tools_config.yaml has: copy_file, list_files, make_directory, move_file, python_run, read_file, tree`},
		{"an unknown argument", `{tool: safe_cli_executor, command: read_file, args: {path: out_dir, extra: '"x"'}}`,
			`a/spec.yaml:12:79: error: args.extra of action "tools.call": read_file has no parameter "extra"; read_file takes: path (also file, filename, file_path)`},
		{"a misspelt argument", `{tool: safe_cli_executor, command: read_file, args: {pth: out_dir}}`,
			`a/spec.yaml:12:64: error: args.pth of action "tools.call": read_file has no parameter "pth"; did you mean "path"? read_file takes: path (also file, filename, file_path)`},
		{"a list argument", `{tool: safe_cli_executor, command: read_file, args: {path: '[out_dir]'}}`,
			`a/spec.yaml:12:71: error: args.path of action "tools.call": read_file's parameter "path" takes a string, but the expression gives a list`},
		{"a map argument", `{tool: safe_cli_executor, command: tree, args: {path: '{"a": out_dir}'}}`,
			`args.path of action "tools.call": tree's parameter "path" takes a string, but the expression gives an object`},
		{"a missing required argument", `{tool: safe_cli_executor, command: copy_file, args: {src: out_dir}}`,
			`a/spec.yaml:12:63: error: parameter "args" of action "tools.call": copy_file needs parameter "dst"`},
		{"a parameter given twice", `{tool: safe_cli_executor, command: read_file, args: {path: out_dir, file: out_dir}}`,
			`args.file of action "tools.call": file gives parameter "path" of read_file again (args.path gives it already)`},
		{"an unknown runner argument", `{tool: safe_py_runner, args: {script_name: '"scripts/x.py"', stdin_txt: '"x"'}}`,
			`args.stdin_txt of action "tools.call": safe_py_runner has no parameter "stdin_txt"; did you mean "stdin_text"? safe_py_runner takes: script_name (also script, script_path), args? (also arguments, argv), env_vars? (also env, environment), stdin_text? (also input, stdin)`},
		{"a runner call without its script", `{tool: safe_py_runner, args: {args: '["a"]'}}`,
			`parameter "args" of action "tools.call": safe_py_runner needs parameter "script_name"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t, map[string]string{"a/spec.yaml": toolsCallSpec(c.with)})
			if got := diagText(t, p, "a/spec.yaml"); !strings.Contains(got, c.want) {
				t.Fatalf("errors:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

func TestCheckSpecAcceptsValidToolsCalls(t *testing.T) {
	for _, with := range []string{
		`{tool: safe_cli_executor, command: read_file, args: {path: 'out_dir + "/a.txt"'}}`,
		`{tool: safe_cli_executor, command: read_file, args: {file: out_dir}}`,
		`{tool: safe_cli_executor, command: tree, args: {path: out_dir, depth: 2}}`,
		`{tool: safe_cli_executor, command: list_files}`,
		`{tool: safe_py_runner, args: {script_name: '"scripts/x.py"', args: '["a", out_dir]', env_vars: '{}'}}`,
		`{tool: safe_cli_executor, command: python_run, args: {script: '"scripts/x.py"', stdin: out_dir}}`,
	} {
		t.Run(with, func(t *testing.T) {
			p := newProject(t, map[string]string{"a/spec.yaml": toolsCallSpec(with)})
			if got := diagText(t, p, "a/spec.yaml"); got != "" {
				t.Fatalf("errors:\n%s", got)
			}
		})
	}
}

// The policy decides: a sub-command it leaves out is refused, and without a
// loadable policy the gateway's built-in sub-commands are the list.
func TestCheckSpecChecksToolsCallAgainstThePolicy(t *testing.T) {
	with := `{tool: safe_cli_executor, command: copy_file, args: {src: out_dir, dst: out_dir}}`
	t.Run("a sub-command the policy disables", func(t *testing.T) {
		p := newProject(t, map[string]string{"a/spec.yaml": toolsCallSpec(with)})
		policy, err := os.ReadFile(filepath.Join(p.root, "config", "tools_config.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		text := string(policy)
		start := strings.Index(text, "    copy_file:\n")
		end := strings.Index(text, "    move_file:\n")
		if start < 0 || end < start {
			t.Fatal("the project policy has no copy_file section before move_file")
		}
		p.write("config/tools_config.yaml", text[:start]+text[end:])
		want := `parameter "command" of action "tools.call": sub-command "copy_file" is not enabled in the policy config/tools_config.yaml; enable it under safe_cli_executor.sub_commands there, or use one of: list_files, make_directory, move_file, python_run, read_file, tree`
		if got := diagText(t, p, "a/spec.yaml"); !strings.Contains(got, want) {
			t.Fatalf("errors:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("no policy: the built-in sub-commands", func(t *testing.T) {
		p := newProject(t, map[string]string{"a/spec.yaml": toolsCallSpec(with)})
		if err := os.Remove(filepath.Join(p.root, "config", "tools_config.yaml")); err != nil {
			t.Fatal(err)
		}
		if got := diagText(t, p, "a/spec.yaml"); got != "" {
			t.Fatalf("copy_file is built in, yet:\n%s", got)
		}
		p.write("a/spec.yaml", toolsCallSpec(`{tool: safe_cli_executor, command: copy_fil, args: {src: out_dir, dst: out_dir}}`))
		want := `"copy_fil" is not a sub-command of the gateway; did you mean "copy_file"? the gateway has: copy_file, list_files, make_directory, move_file, python_run, read_file, tree`
		if got := diagText(t, p, "a/spec.yaml"); !strings.Contains(got, want) {
			t.Fatalf("errors:\n%s\nwant:\n%s", got, want)
		}
	})
}
