package gateway

import (
	"testing"

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
