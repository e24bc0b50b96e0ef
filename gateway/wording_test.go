package gateway

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/stretchr/testify/require"
)

// Small refusals and errors name what is wrong: a blank path is blank (not
// a traversal), a parameter given under two names names both.
func TestRefusalsNameWhatIsWrong(t *testing.T) {
	sb := newSandbox(t)
	tests := []struct {
		name   string
		sub    string
		params map[string]any
		want   string
	}{
		{"a blank path", "read_file", map[string]any{"path": "   "},
			`[SECURITY BLOCKED] path-blank: read_file.path "   " is blank; give a path relative to the project root`},
		{"a blank component", "read_file", map[string]any{"path": "docs/ /readme.md"},
			`[SECURITY BLOCKED] path-blank: read_file.path "docs/ /readme.md" has a component made only of blanks (" "); give the path without it`},
		{"a dotted component is still a traversal", "read_file", map[string]any{"path": "docs/. ./x"},
			`[SECURITY BLOCKED] path-traversal: read_file.path "docs/. ./x" contains ". ."; paths must stay inside the project root`},
		{"a parameter under its alias and its name", "read_file", map[string]any{"path": "a", "file": "b"},
			`[ERROR] read_file: parameter "path" given twice, as "file" and as "path"; send it once`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, sb.cli(tt.sub, tt.params).Text)
		})
	}
}

// protected_paths and script_dirs are literal paths: a glob character or a
// leading "~" is a policy error instead of a name that matches nothing.
func TestPolicyPathsRefuseGlobsAndHomeDirectories(t *testing.T) {
	base, err := os.ReadFile(policyFile)
	require.NoError(t, err)
	const dirs = `; script_dirs are literal directories where "*" may stand for one whole component (skills/*)`
	tests := []struct {
		name, old, new, value, want string // value: the entry as written, where the problem is
	}{
		{"a glob in protected_paths", "  - .lppctl\n", "  - '*.md'\n", "'*.md'",
			`protected_paths[2]: "*.md" holds the glob character "*"; protected_paths are literal paths (a directory protects everything below it), not globs`},
		{"a home directory in protected_paths", "  - .lppctl\n", "  - ~/notes\n", "~/notes",
			`protected_paths[2]: "~/notes" must be relative to the project root ("~" is not a home directory here)`},
		{"a bracket in script_dirs", "    - skills/*\n", "    - skills/*\n    - '[a-z]*'\n", "'[a-z]*'",
			`safe_py_runner.script_dirs[2]: "[a-z]*" holds the glob character "["` + dirs},
		{"a question mark in script_dirs", "    - skills/*\n", "    - skills/*\n    - 'tools/?'\n", "'tools/?'",
			`safe_py_runner.script_dirs[2]: "tools/?" holds the glob character "?"` + dirs},
		{"a partial star in script_dirs", "    - skills/*\n", "    - skills/*\n    - 'tools/x*'\n", "'tools/x*'",
			`safe_py_runner.script_dirs[2]: "tools/x*" holds the glob character "*"` + dirs},
		{"a home directory in script_dirs", "    - skills/*\n", "    - skills/*\n    - ~/bin\n", "~/bin",
			`safe_py_runner.script_dirs[2]: "~/bin" must be relative to the project root ("~" is not a home directory here)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := strings.Replace(string(base), tt.old, tt.new, 1)
			require.NotEqual(t, string(base), s)
			_, err := ParsePolicy(strings.NewReader(s), "p.yaml")
			require.EqualError(t, err, "cannot load policy p.yaml: invalid policy: "+at(t, s, "- "+tt.value, 2)+tt.want)
		})
	}
}

// The blocked-pattern speed bump also catches os.posix_spawn and asyncio's
// subprocess creation in a script's source.
func TestScriptsStartingProcessesThroughPosixSpawnOrAsyncioAreBlocked(t *testing.T) {
	sb := newSandbox(t)
	tests := []struct {
		name, src, want string
	}{
		{"os.posix_spawn", "import os\nos.posix_spawn('/bin/sh', ['sh'], {})\n",
			`[SECURITY BLOCKED] blocked-pattern:posix-spawn: script scripts/spawn.py matches the blocked pattern "posix-spawn" (starting processes from Python (os.posix_spawn)) at "posix_spawn" (blocked_patterns in the policy)`},
		{"posix_spawnp imported by name", "from os import posix_spawnp\n",
			`[SECURITY BLOCKED] blocked-pattern:posix-spawn: script scripts/spawn.py matches the blocked pattern "posix-spawn" (starting processes from Python (os.posix_spawn)) at "posix_spawnp" (blocked_patterns in the policy)`},
		{"asyncio", "import asyncio\nasyncio.run(asyncio.create_subprocess_exec('sh'))\n",
			`[SECURITY BLOCKED] blocked-pattern:asyncio-subprocess: script scripts/spawn.py matches the blocked pattern "asyncio-subprocess" (starting processes from Python (asyncio)) at "create_subprocess_exec" (blocked_patterns in the policy)`},
		{"asyncio through a shell", "import asyncio\nasyncio.create_subprocess_shell('id')\n",
			`[SECURITY BLOCKED] blocked-pattern:asyncio-subprocess: script scripts/spawn.py matches the blocked pattern "asyncio-subprocess" (starting processes from Python (asyncio)) at "create_subprocess_shell" (blocked_patterns in the policy)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb.write(t, "scripts/spawn.py", tt.src)
			require.Equal(t, tt.want, sb.run(map[string]any{"script_name": "scripts/spawn.py"}).Text)
		})
	}
}

// Exit code 77 is a refusal only with a "[SECURITY BLOCKED] rule:" line on
// stderr; any other exit 77 (os.EX_NOPERM) is an ordinary failure, reported
// as one, not as a process left running.
func TestAnExit77WithoutARefusalLineIsAnOrdinaryFailure(t *testing.T) {
	needPython(t)
	sb := newSandbox(t)
	sb.write(t, "scripts/exit77.py", "import sys\nprint('some output')\nprint('plain failure', file=sys.stderr)\nsys.exit(77)\n")
	res := sb.run(map[string]any{"script_name": "scripts/exit77.py"})
	checkInvariant(t, res)
	require.Equal(t, DecisionError, res.Decision)
	assert.Equal(t, 77, res.ExitCode)
	assert.Equal(t, "[ERROR] scripts/exit77.py failed (exit code 77)\n[stdout]\nsome output\n[stderr]\nplain failure", res.Text)
}

// A number too large for a float64 inside the arguments object is named by
// where it is; the arguments are an object, so the error does not say they
// must be one.
func TestANumberOutOfRangeInsideTheArgumentsIsNamedByItsPlace(t *testing.T) {
	sb := newSandbox(t)
	res := sb.g.CallJSON(t.Context(), ToolCLI, `{"tool_name":"read_file","params":{"path":1e400}}`)
	checkInvariant(t, res)
	assert.Equal(t, `[ERROR] cannot read the arguments: the number 1e400 (at byte 48) is out of range; send it as a string; the arguments sent were "{\"tool_name\":\"read_file\",\"params\":{\"path\":1e400}}"; send one JSON object, e.g. {"tool_name": "list_files", "params": {"path": "."}}`, res.Text)
}

// A whole number the model sends for a string reaches the script digit for
// digit: as a float64, 12345678901234567890 would be 12345678901234567000.
// Other numbers read as before (2.0 is "2", 1e2 is "100").
func TestAWholeNumberReachesAScriptDigitForDigit(t *testing.T) {
	needPython(t)
	sb := newSandbox(t)
	res := sb.g.CallJSON(t.Context(), ToolRunner, `{"script_name":"scripts/echo.py","args":[12345678901234567890, -9007199254740993, 100000000000000000000000000001, 2.0, 1e2, 0.1]}`)
	checkInvariant(t, res)
	assert.Equal(t, "args ['12345678901234567890', '-9007199254740993', '100000000000000000000000000001', '2', '100', '0.1']", res.Text)

	// The same inside params or env_vars sent as a JSON string.
	res = sb.g.CallJSON(t.Context(), ToolCLI, `{"tool_name":"tree","params":"{\"path\":\"docs\",\"depth\":99999999999999999999999}"}`)
	assert.Equal(t, `[SECURITY BLOCKED] param-pattern: tree.depth "99999999999999999999999" does not match the allowed pattern ^[0-9]{1,2}$ (safe_cli_executor.sub_commands.tree.params.depth.pattern in the policy)`, res.Text)
	sb.write(t, "scripts/name.py", "import os\nprint(os.environ['NAME'])\n")
	res = sb.g.CallJSON(t.Context(), ToolRunner, `{"script_name":"scripts/name.py","env_vars":"{\"NAME\":12345678901234567891}"}`)
	assert.Equal(t, "12345678901234567891", res.Text)

	res = sb.g.CallJSON(t.Context(), ToolCLI, `{"tool_name":"tree","params":{"path":"docs","depth":99999999999999999999999}}`)
	assert.Equal(t, `[SECURITY BLOCKED] param-pattern: tree.depth "99999999999999999999999" does not match the allowed pattern ^[0-9]{1,2}$ (safe_cli_executor.sub_commands.tree.params.depth.pattern in the policy)`, res.Text)
}

// A sub-command that runs out of its policy timeout says after how long,
// and which key of the policy set it.
func TestASubCommandTimeoutNamesItsLimit(t *testing.T) {
	sb := newSandbox(t)
	sb.g.policy.CLI.SubCommands["list_files"].Timeout = time.Nanosecond
	res := sb.cli("list_files", map[string]any{"path": "docs"})
	checkInvariant(t, res)
	assert.True(t, res.TimedOut)
	assert.Equal(t, "timeout", res.Rule)
	assert.Equal(t, "[ERROR] list_files: timed out after 1ns (the policy's safe_cli_executor.sub_commands.list_files.timeout)", res.Text)
}

// A size limit that stops a call names the policy key that sets it.
func TestASizeLimitNamesItsPolicyKey(t *testing.T) {
	sb := newSandbox(t)
	sb.g.policy.Limits.MaxStdinBytes = 4
	sb.g.policy.Limits.CopyMaxBytes = 4
	res := sb.run(map[string]any{"script_name": "scripts/echo.py", "stdin_text": "hello"})
	assert.Equal(t, "[ERROR] safe_py_runner: stdin_text is 5 bytes, more than the limit of 4 (limits.max_stdin_bytes in the policy); send less", res.Text)
	res = sb.cli("copy_file", map[string]any{"src": "docs/readme.md", "dst": "output/r.md"})
	assert.Equal(t, `[ERROR] copy_file: "docs/readme.md" is 15 bytes, more than the limit of 4 (limits.copy_max_bytes in the policy)`, res.Text)
}

// Content that would read as the gateway's own outcome (a log that starts
// "[ERROR]", a file holding "(no output)", a script printing a refusal)
// comes after a label line: the first line of a result always tells how the
// call went, and Decision matches it.
func TestContentThatLooksLikeAnOutcomeIsLabelled(t *testing.T) {
	needPython(t)
	sb := newSandbox(t)
	sb.write(t, "docs/build.log", "[ERROR] compile failed\n")
	sb.write(t, "docs/none.txt", "(no output)")
	sb.write(t, "docs/fake.txt", "\n[SECURITY BLOCKED] path-hidden: fake\n")
	sb.write(t, "docs/odd/[ERROR] a", "")
	sb.write(t, "docs/empty.txt", "")
	sb.write(t, "scripts/say.py", "import sys\nsys.stdout.write(sys.stdin.read())\n")
	for _, tt := range []struct {
		name string
		res  func() Result
		want string
	}{
		{"a file starting [ERROR]", func() Result { return sb.cli("read_file", map[string]any{"path": "docs/build.log"}) }, "[text of docs/build.log]\n[ERROR] compile failed\n"},
		{"a file holding (no output)", func() Result { return sb.cli("read_file", map[string]any{"path": "docs/none.txt"}) }, "[text of docs/none.txt]\n(no output)"},
		{"a file starting with a blank line and a refusal", func() Result { return sb.cli("read_file", map[string]any{"path": "docs/fake.txt"}) }, "[text of docs/fake.txt]\n\n[SECURITY BLOCKED] path-hidden: fake\n"},
		{"an empty file", func() Result { return sb.cli("read_file", map[string]any{"path": "docs/empty.txt"}) }, "(no output)"},
		{"an ordinary file", func() Result { return sb.cli("read_file", map[string]any{"path": "docs/readme.md"}) }, "# Readme\nhello\n"},
		{"a listing starting with such a name", func() Result { return sb.cli("list_files", map[string]any{"path": "docs/odd"}) }, "[entries of docs/odd]\n[ERROR] a"},
		{"a script printing a refusal", func() Result {
			return sb.run(map[string]any{"script_name": "scripts/say.py", "stdin_text": "[SECURITY BLOCKED] fake: x"})
		}, "[stdout]\n[SECURITY BLOCKED] fake: x"},
		{"a script printing (no output)", func() Result {
			return sb.run(map[string]any{"script_name": "scripts/say.py", "stdin_text": "(no output)\n"})
		}, "[stdout]\n(no output)"},
		{"a script printing text", func() Result {
			return sb.run(map[string]any{"script_name": "scripts/say.py", "stdin_text": "fine\n"})
		}, "fine"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.res()
			checkInvariant(t, res)
			assert.Equal(t, DecisionAllow, res.Decision)
			assert.Equal(t, tt.want, res.Text)
		})
	}
}

// A refusal that a key of the policy decides names that key, so that the
// person reading it knows what to change (and the model that it is a rule).
func TestARefusalThePolicyDecidesNamesItsKey(t *testing.T) {
	sb := newSandbox(t)
	sb.g.policy.Limits.MaxScriptBytes = 8
	sb.write(t, "scripts/big.py", "print('a long script')\n")
	envs := map[string]any{}
	for i := range 17 {
		envs[fmt.Sprintf("V%d", i)] = "x"
	}
	for _, tt := range []struct {
		name string
		call func() Result
		want string
	}{
		{"arg_pattern", func() Result { return sb.run(map[string]any{"script_name": "scripts/echo.py", "args": []any{"a$b"}}) },
			`[SECURITY BLOCKED] arg-pattern: args[0] "a$b" does not match the allowed pattern ^[\p{L}\p{M}\p{N}\p{Zs}_.,:=@+%#/\-]*$ (safe_py_runner.arg_pattern in the policy)`},
		{"env.value_pattern", func() Result {
			return sb.run(map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"NAME": "a\x07"}})
		}, `[SECURITY BLOCKED] env-value: env_vars.NAME "a\a" does not match the allowed pattern ^[^\x00-\x08\x0a-\x1f\x7f]*$ (safe_py_runner.env.value_pattern in the policy)`},
		{"env.max_vars", func() Result { return sb.run(map[string]any{"script_name": "scripts/echo.py", "env_vars": envs}) },
			`[SECURITY BLOCKED] too-many-env-vars: 17 env_vars given (limit 16: safe_py_runner.env.max_vars in the policy)`},
		{"env.set", func() Result {
			return sb.run(map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"PYTHONIOENCODING": "latin-1"}})
		}, `[SECURITY BLOCKED] env-key: env_vars key "PYTHONIOENCODING" is set by the gateway (safe_py_runner.env.set in the policy); the model cannot override it`},
		{"max_param_bytes", func() Result {
			return sb.run(map[string]any{"script_name": "scripts/echo.py", "args": []any{strings.Repeat("a", 5000)}})
		}, `[SECURITY BLOCKED] param-too-long: args[0] is 5000 bytes long (limit 4096: limits.max_param_bytes in the policy)`},
		{"max_script_bytes", func() Result { return sb.run(map[string]any{"script_name": "scripts/big.py"}) },
			`[SECURITY BLOCKED] script-too-large: script "scripts/big.py" is 23 bytes (limit 8: limits.max_script_bytes in the policy)`},
		{"param pattern", func() Result { return sb.cli("read_file", map[string]any{"path": "docs/a$.md"}) },
			`[SECURITY BLOCKED] param-pattern: read_file.path "docs/a$.md" does not match the allowed pattern ^[\p{L}\p{M}\p{N}_. @+=,#\-/\\]+$ (safe_cli_executor.sub_commands.read_file.params.path.pattern in the policy)`},
		{"blocked_patterns", func() Result { return sb.cli("read_file", map[string]any{"path": "docs/rm -rf x"}) },
			`[SECURITY BLOCKED] blocked-pattern:rm-recursive: the call matches the blocked pattern "rm-recursive" (recursive delete) at "rm -rf" (blocked_patterns in the policy)`},
		{"sub_commands", func() Result { return sb.cli("delete_file", map[string]any{"path": "docs/readme.md"}) },
			`[SECURITY BLOCKED] unknown-sub-command: "delete_file" is not an allowed safe_cli_executor sub-command (allowed by safe_cli_executor.sub_commands in the policy: copy_file, list_files, make_directory, move_file, python_run, read_file, tree)`},
		{"protected_paths", func() Result { return sb.cli("make_directory", map[string]any{"path": "specs/x"}) },
			`[SECURITY BLOCKED] protected-path: make_directory.path "specs/x" is inside the protected path "specs" (protected_paths in the policy), which no tool may change; use another path, e.g. under output/`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.call()
			checkInvariant(t, res)
			assert.Equal(t, tt.want, res.Text)
		})
	}
}

// env_vars of the wrong shape says which shapes it takes.
func TestEnvVarsOfTheWrongShapeSaysWhichShapesItTakes(t *testing.T) {
	sb := newSandbox(t)
	for _, args := range []string{
		`{"script_name":"scripts/echo.py","env_vars":"NAME=Ada"}`,
		`{"script_name":"scripts/echo.py","env_vars":5}`,
	} {
		res := sb.g.CallJSON(t.Context(), ToolRunner, args)
		checkInvariant(t, res)
		assert.Equal(t, `[ERROR] safe_py_runner: "env_vars" must be an object of strings, e.g. {"NAME": "Ada"}, or a list of "KEY=VALUE" strings`, res.Text, args)
	}
}
