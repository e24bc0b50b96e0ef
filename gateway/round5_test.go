package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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

// move_file compares the destination with the source as the file system
// does: on a case-sensitive one, another case is another name, not the
// source itself.
func TestAMoveToAnotherCaseIsNotAMoveIntoItself(t *testing.T) {
	sb := newSandbox(t)
	sb.write(t, "output/d/f.txt", "hi\n")
	caseSensitive := true
	if _, err := os.Stat(filepath.Join(sb.root, "output", "D", "F.TXT")); err == nil {
		caseSensitive = false
	}
	res := sb.cli("move_file", map[string]any{"src": "output/d/f.txt", "dst": "output/d/F.TXT"})
	checkInvariant(t, res)
	if caseSensitive {
		assert.Equal(t, "moved output/d/f.txt to output/d/F.TXT", res.Text)
		res = sb.cli("move_file", map[string]any{"src": "output/d", "dst": "output/D/sub"})
		assert.Equal(t, "moved output/d to output/D/sub", res.Text)
	} else {
		assert.Equal(t, `[ERROR] move_file: destination "output/d/F.TXT" already exists`, res.Text)
	}
	res = sb.cli("move_file", map[string]any{"src": "output/D", "dst": "output/D/x"})
	assert.Equal(t, `[ERROR] move_file: cannot move "output/D" into itself`, res.Text)
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

// A file whose names all lie inside the root, none hidden, is an ordinary
// file: read, copied and handed to scripts (a project restored with cp -al,
// a pnpm store). The names may be in a protected directory: reading is fine.
func TestAFileWhoseNamesAreAllInsideTheRootIsRead(t *testing.T) {
	needPython(t)
	sb := newSandbox(t)
	sb.write(t, "docs/a.txt", "shared text\n")
	require.NoError(t, os.MkdirAll(filepath.Join(sb.root, "output"), 0o755))
	for old, name := range map[string]string{"docs/a.txt": "output/b.txt", "scripts/echo.py": "docs/echo_copy.py"} {
		if err := os.Link(filepath.Join(sb.root, filepath.FromSlash(old)), filepath.Join(sb.root, filepath.FromSlash(name))); err != nil {
			t.Skipf("link: %v", err)
		}
	}
	res := sb.cli("read_file", map[string]any{"path": "output/b.txt"})
	assert.Equal(t, "shared text\n", res.Text)
	res = sb.cli("read_file", map[string]any{"path": "docs/echo_copy.py"})
	assert.Equal(t, DecisionAllow, res.Decision, res.Text)
	res = sb.cli("copy_file", map[string]any{"src": "docs/a.txt", "dst": "output/c.txt"})
	assert.Equal(t, "copied docs/a.txt to output/c.txt (12 bytes)", res.Text)
	res = sb.run(map[string]any{"script_name": "scripts/echo.py", "args": []any{"--in=output/b.txt"}})
	assert.Equal(t, "args ['--in=output/b.txt']", res.Text)
}

// Past maxHardLinkScan entries the search for a file's other names stops,
// and a file whose names were not all found is refused.
func TestAFileWhoseNamesAreNotFoundWithinTheScanIsRefused(t *testing.T) {
	sb := newSandbox(t)
	sb.write(t, "docs/a.txt", "shared text\n")
	sb.write(t, "zz/b.txt", "")
	require.NoError(t, os.Remove(filepath.Join(sb.root, "zz", "b.txt")))
	if err := os.Link(filepath.Join(sb.root, "docs", "a.txt"), filepath.Join(sb.root, "zz", "b.txt")); err != nil {
		t.Skipf("link: %v", err)
	}
	old := maxHardLinkScan
	maxHardLinkScan = 3 // ".", ".git", ".git/config": the walk stops before docs and zz
	t.Cleanup(func() { maxHardLinkScan = old })
	res := sb.cli("read_file", map[string]any{"path": "docs/a.txt"})
	assert.Equal(t, `[SECURITY BLOCKED] hard-link: read_file.path "docs/a.txt" names a file with 2 names (hard links), of which 0 were found inside the project; another may lie outside it, so it is not read; a person can replace it with a copy (cp --remove-destination)`, res.Text)
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

// A parameter alias is a plain name that a call can use: one with a blank,
// an empty one, or one spelled like a key that names the sub-command or
// holds the parameters (which the call reads first) is a policy error.
func TestAPolicyAliasMustBeAPlainNameACallCanUse(t *testing.T) {
	base, err := os.ReadFile(policyFile)
	require.NoError(t, err)
	for _, tt := range []struct{ name, alias, want string }{
		{"a blank inside", "'fr om'", `p.yaml:167:11: safe_cli_executor.sub_commands.copy_file.params.src.aliases: "fr om" is not a parameter name (letters, digits and _, not starting with a digit)`},
		{"empty", "''", `p.yaml:167:11: safe_cli_executor.sub_commands.copy_file.params.src.aliases: "" is not a parameter name (letters, digits and _, not starting with a digit)`},
		{"a leading digit", "9x", `p.yaml:167:11: safe_cli_executor.sub_commands.copy_file.params.src.aliases: "9x" is not a parameter name (letters, digits and _, not starting with a digit)`},
		{"the parameters object", "params", `p.yaml:167:11: safe_cli_executor.sub_commands.copy_file.params.src.aliases: "params" names the sub-command or the parameters object in a call, not a parameter`},
		{"the sub-command", "tool_name", `p.yaml:167:11: safe_cli_executor.sub_commands.copy_file.params.src.aliases: "tool_name" names the sub-command or the parameters object in a call, not a parameter`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := strings.Replace(string(base), "aliases: [source, from]", "aliases: [source, "+tt.alias+"]", 1)
			_, err := ParsePolicy(strings.NewReader(s), "p.yaml")
			require.Error(t, err)
			assert.Equal(t, "cannot load policy p.yaml: invalid policy: "+tt.want, err.Error())
		})
	}
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
