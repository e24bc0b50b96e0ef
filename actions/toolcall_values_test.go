package actions

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TestToolsCallDeclaresTheStatusesItWrites: tools.call's status variable
// gets ok, error or blocked and nothing else (toolcall.go), and says so, so
// that lppctl check gives it these values only; its result is any text.
func TestToolsCallDeclaresTheStatusesItWrites(t *testing.T) {
	reg := machine.NewRegistry()
	require.NoError(t, Register(reg, &Deps{}))
	call := reg.Lookup("tools.call")
	require.Equal(t, []machine.VarSpec{
		{Name: "out", Type: mspec.TypeString, Doc: "the tool's result text"},
		{Name: "st", Type: mspec.TypeString, Doc: "ok, error or blocked", Values: []any{"ok", "error", "blocked"}},
	}, call.WritesFor(map[string]any{"tool": "safe_cli_executor", "command": "read_file", "result": "out", "status": "st"}))
}
