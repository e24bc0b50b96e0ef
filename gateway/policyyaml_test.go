package gateway

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A policy that is not YAML, or not a mapping, is refused with where it goes
// wrong and without Go type names; a problem with a field names its place.
func TestPolicyErrorsSayWhereInTheFile(t *testing.T) {
	base, err := os.ReadFile(policyFile)
	require.NoError(t, err)
	const prefix = "cannot load policy p.yaml: invalid policy: "
	withStar := strings.Replace(string(base), "    - skills/*\n", "    - skills/*\n    - '*'\n", 1)
	version2 := strings.Replace(string(base), "version: 1", "version: 2", 1)
	tests := []struct {
		name, src, want string
	}{
		{"a tab in the indentation", "\t version: 1\n",
			"p.yaml:1:1: a tab in the indentation; YAML indents with spaces only (found character that cannot start any token)"},
		{"a tab under a key", "version: 1\nlimits:\n  \tmax_args: 2\n",
			"p.yaml:3:3: a tab in the indentation; YAML indents with spaces only (found character that cannot start any token)"},
		{"comments only", "# only a comment\n\n# another\n", "the file is empty (it holds only comments)"},
		{"a list at the top", "- a\n- b\n",
			"p.yaml:1:1: the policy must be a mapping of keys (version: 1, safe_cli_executor: ..., safe_py_runner: ...), not a list"},
		{"a string at the top", "\n  hello\n",
			"p.yaml:2:3: the policy must be a mapping of keys (version: 1, safe_cli_executor: ..., safe_py_runner: ...), not a string"},
		{"a list for a section", "version: 1\nlimits: [1, 2]\n", "p.yaml:2: limits must be a mapping of keys, not a list"},
		{"a quoted number", "version: 1\nlimits:\n  max_output_bytes: '32768'\n", "p.yaml:3: 32768 is a string, where a whole number belongs"},
		{"a list for a number", "version: 1\nlimits:\n  max_output_bytes: [1]\n", "p.yaml:3: the value is a list, where a whole number belongs"},
		{"a fraction for a count", "version: 1\nlimits:\n  max_output_bytes: 1e99\n", "p.yaml:3: 1e99 is a number, where a whole number belongs"},
		{"a whole number too large for an int", "version: 1\nlimits:\n  max_output_bytes: 99999999999999999999\n", "p.yaml:3: 9999999... is too large a number for this key; give a smaller whole number"},
		{"a whole number too large for a version", "version: 99999999999999999999999999\n", "p.yaml:1: 9999999... is too large a number for this key; give a smaller whole number"},
		{"a duplicate key", "version: 1\nversion: 1\n", `p.yaml:2: mapping key "version" already defined at line 1`},
		{"a field's problem", withStar,
			at(t, withStar, "    - '*'", 6) + `safe_py_runner.script_dirs[2]: "*" must start with a fixed directory such as scripts (script directories are write-protected)`},
		{"a NUL byte", "version: 1\nprotected_paths: [.git, \"sp\x00ecs\"]\n",
			"p.yaml:2:28: the control character U+0000 is not allowed in YAML; remove it"},
		{"an escape character after a multi-byte name", "version: 1\nprotected_paths: [données\x1b]\n",
			"p.yaml:2:26: the control character U+001B is not allowed in YAML; remove it"},
		{"an empty entry of protected_paths", "version: 1\nprotected_paths:\n  - .git\n  -\n  - specs\n",
			`p.yaml:4:4: protected_paths[1]: an empty list entry (null: a "-" with nothing after it, or "~"); write the value, or remove the entry`},
		{"a ~ entry of hidden_paths", "version: 1\nhidden_paths: [.env, ~]\n",
			`p.yaml:2:22: hidden_paths[1]: an empty list entry (null: a "-" with nothing after it, or "~"); write the value, or remove the entry`},
		{"a null entry deeper down", "version: 1\nsafe_py_runner:\n  env:\n    allow_keys: [NAME, null]\n",
			`p.yaml:4:24: safe_py_runner.env.allow_keys[1]: an empty list entry (null: a "-" with nothing after it, or "~"); write the value, or remove the entry`},
		{"a key's own problem", version2, at(t, version2, "\nversion: 2", 1) + "version: must be 1, got 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePolicy(strings.NewReader(tt.src), "p.yaml")
			require.EqualError(t, err, prefix+tt.want)
			require.ErrorIs(t, err, ErrInvalidPolicy)
		})
	}
}

// at returns "p.yaml:L:C: " for the first occurrence of needle in src,
// moved right by skip bytes (to step over a "[" or a quote given for context).
func at(t *testing.T, src, needle string, skip int) string {
	t.Helper()
	i := strings.Index(src, needle)
	require.GreaterOrEqual(t, i, 0, "%q is not in the policy", needle)
	i += skip
	line := strings.Count(src[:i], "\n") + 1
	col := i - strings.LastIndex(src[:i], "\n")
	return fmt.Sprintf("p.yaml:%d:%d: ", line, col)
}
