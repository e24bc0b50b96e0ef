package gateway

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAnInheritedVariableHoldingAPasswordStopsEveryScript: a name that
// looks harmless (DATABASE_URL) passes env.inherit at load, but its value
// carries a password; no script gets it, the refusal names the variable and
// never the value, and the same variable without a password passes.
func TestAnInheritedVariableHoldingAPasswordStopsEveryScript(t *testing.T) {
	needPython(t)
	sb := newSandbox(t)
	p := *sb.g.policy
	p.Runner.Env.Inherit = append([]string{"DATABASE_URL", "HTTPS_PROXY"}, p.Runner.Env.Inherit...)
	g, err := New(sb.root, &p)
	require.NoError(t, err)
	defer g.Close()
	call := func() Result {
		return g.Call(context.Background(), ToolRunner, map[string]any{"script_name": "scripts/echo.py"})
	}
	for _, tc := range []struct{ name, value, what string }{
		{"DATABASE_URL", "postgres://u:pw-SECRET@h/db", "a URL with a user name or password (scheme://user:password@host)"},
		{"HTTPS_PROXY", "http://a:pw-SECRET@proxy:8080", "a URL with a user name or password (scheme://user:password@host)"},
		{"DATABASE_URL", "host=h user=u password=pw-SECRET", "a password= setting"},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			t.Setenv("DATABASE_URL", "")
			t.Setenv("HTTPS_PROXY", "")
			t.Setenv(tc.name, tc.value)
			res := call()
			require.Equal(t, "[SECURITY BLOCKED] env-credential: "+tc.name+", which safe_py_runner.env.inherit passes to every script, holds "+tc.what+" in lppctl's environment; no script runs until it is fixed: give it to the scripts that need it with env.inherit_for, or take the password out of the value", res.Text)
			require.Equal(t, "env-credential", res.Rule)
			require.NotContains(t, res.Text, "SECRET")
		})
	}
	t.Setenv("DATABASE_URL", "postgres://h:5432/db?sslmode=require")
	t.Setenv("HTTPS_PROXY", "http://proxy:8080")
	res := call()
	require.Equal(t, "args []", strings.TrimSpace(res.Text))
}

func TestAPolicySettingAPasswordInEnvSetIsRefused(t *testing.T) {
	base, err := os.ReadFile(policyFile)
	require.NoError(t, err)
	src := strings.Replace(string(base), "    set:\n", "    set:\n      DATABASE_URL: postgres://u:pw@h/db\n", 1)
	_, err = ParsePolicy(strings.NewReader(src), "p.yaml")
	require.ErrorContains(t, err, "safe_py_runner.env.set.DATABASE_URL: the value holds a URL with a user name or password (scheme://user:password@host); env.set goes to every script and the policy file is readable by the model: give credentials with env.inherit_for")
}
