package actions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TestCheckingWithoutFilesDoesNotReadWhichSubCommandsThePolicyEnables:
// lppctl check (CheckOptions.NoFiles) leaves what only a run needs to
// validate, so a spec checks the same wherever it is: a project whose
// policy leaves read_file out made `lppctl check` exit 3 there and pass
// elsewhere. Validate still refuses it in that project; the policy's
// parameter aliases (args: {file: ...}) are the policy's too, so an
// argument name is not refused; a sub-command the gateway does not have, a
// list given to a string parameter and a runner argument that does not
// exist are still errors.
func TestCheckingWithoutFilesDoesNotReadWhichSubCommandsThePolicyEnables(t *testing.T) {
	p := newProject(t, map[string]string{
		"a/spec.yaml": toolsCallSpec(`{tool: safe_cli_executor, command: read_file, args: {file: out_dir}}`),
		"b/spec.yaml": toolsCallSpec(`{tool: safe_cli_executor, command: rm_rf, args: {path: out_dir}}`),
		"c/spec.yaml": toolsCallSpec(`{tool: safe_cli_executor, command: read_file, args: {path: '[out_dir]'}}`),
		"d/spec.yaml": toolsCallSpec(`{tool: safe_py_runner, args: {script_name: '"scripts/x.py"', stdin_txt: '"x"'}}`),
	})
	policy, err := os.ReadFile(filepath.Join(p.root, "config", "tools_config.yaml"))
	require.NoError(t, err)
	var kept []string
	skip := false
	for _, l := range strings.Split(string(policy), "\n") {
		if strings.HasPrefix(l, "    read_file:") {
			skip = true
			continue
		}
		if skip && strings.HasPrefix(l, "    ") && !strings.HasPrefix(l, "      ") {
			skip = false
		}
		if !skip {
			kept = append(kept, l)
		}
	}
	p.write("config/tools_config.yaml", strings.Join(kept, "\n"))

	check := func(name string, noFiles bool) string {
		reg := machine.NewBuiltinRegistry()
		require.NoError(t, Register(reg, p.deps("a", "")))
		path := filepath.Join(p.root, name)
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		spec, diags := mspec.Parse(path, src)
		require.Empty(t, diags.Errors())
		var b strings.Builder
		for _, d := range CheckSpec(spec, reg, CheckOptions{Root: p.root, NoFiles: noFiles}).Errors() {
			b.WriteString(strings.TrimPrefix(d.String(), p.root+string(filepath.Separator)) + "\n")
		}
		return b.String()
	}
	require.Equal(t, "", check("a/spec.yaml", true))
	require.Contains(t, check("a/spec.yaml", false), `sub-command "read_file" is not enabled in the policy config/tools_config.yaml`)
	require.Contains(t, check("b/spec.yaml", true), `"rm_rf" is not a sub-command of the gateway`)
	require.Contains(t, check("c/spec.yaml", true), `read_file's parameter "path" takes a string, but the expression gives a list`)
	require.Contains(t, check("d/spec.yaml", true), `safe_py_runner has no parameter "stdin_txt"`)
}
