package actions

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/gateway"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TestBlueprintPolicyIsAValidPolicyForTheMappingsScripts: the default
// policy of a blueprint's run loads (the gateway refuses every call
// without a valid one) and lets the runner run the folders of the spec's
// scripts.
func TestBlueprintPolicyIsAValidPolicyForTheMappingsScripts(t *testing.T) {
	spec, diags := mspec.Parse("s.yaml", []byte(`lpp: 1
name: s
initial: a
states:
  a: {do: script.run, with: {script: units/calc.py}, next: b}
  b: {do: script.run, with: {script: 'tools\py\x.py'}, next: done}
  done: {final: true}
`))
	require.False(t, diags.HasErrors(), "%v", diags)
	dirs := ScriptDirs(spec)
	require.Equal(t, []string{"units", "tools/py"}, dirs)
	text := BlueprintPolicy(dirs)
	require.Contains(t, text, `script_dirs: ["units", "tools/py"]`)
	_, err := gateway.ParsePolicy(strings.NewReader(text), "default")
	require.NoError(t, err)
	_, err = gateway.ParsePolicy(strings.NewReader(BlueprintPolicy(nil)), "default")
	require.NoError(t, err)
}
