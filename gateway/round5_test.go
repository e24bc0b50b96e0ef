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
