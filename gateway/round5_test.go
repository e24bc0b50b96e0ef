package gateway

import (
	"os"
	"path/filepath"
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
