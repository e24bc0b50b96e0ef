package gateway

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// withoutKeys returns the YAML document src with the keys at the given dotted
// paths removed (e.g. "safe_py_runner.env.allow_keys").
func withoutKeys(t *testing.T, src string, paths ...string) string {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		n := doc.Content[0]
		parts := strings.Split(p, ".")
		for i, part := range parts {
			found := false
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value != part {
					continue
				}
				found = true
				if i == len(parts)-1 {
					n.Content = append(n.Content[:j], n.Content[j+2:]...)
				} else {
					n = n.Content[j+1]
				}
				break
			}
			if !found {
				t.Fatalf("no key %s in the policy", p)
			}
		}
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// defaultedKeys are the policy keys with documented defaults.
var defaultedKeys = []string{
	"protected_paths", "hidden_paths", "blocked_patterns",
	"safe_py_runner.timeout",
	"safe_py_runner.env.inherit", "safe_py_runner.env.set",
	"safe_py_runner.env.allow_keys", "safe_py_runner.env.deny_keys",
}

// The project's policy spells out exactly the defaults: a policy that omits
// every key with a default is the same policy.
func TestOmittedKeysGetTheDocumentedDefaults(t *testing.T) {
	base, err := os.ReadFile(policyFile)
	if err != nil {
		t.Fatal(err)
	}
	full, err := ParsePolicy(bytes.NewReader(base), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bare, err := ParsePolicy(strings.NewReader(withoutKeys(t, string(base), defaultedKeys...)), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := full.Effective()
	got, _ := bare.Effective()
	if string(got) != string(want) {
		t.Errorf("a policy without %s is not the project's policy:\n--- got\n%s\n--- want\n%s", strings.Join(defaultedKeys, ", "), got, want)
	}
}

// Before the defaults, a policy without these keys loaded with empty lists:
// .env readable, claude.md writable, PYTHONPATH settable by the model.
func TestAPolicyWithoutListsStillProtects(t *testing.T) {
	needPython(t)
	sb := newSandbox(t)
	base, _ := os.ReadFile(policyFile)
	bare := withoutKeys(t, string(base), defaultedKeys...)
	sb.write(t, "config/tools_config.yaml", bare)
	sb.write(t, ".env", "OPENAI_API_KEY=sk-secret\n")
	sb.write(t, "output/json.py", "print('model code ran')\n")
	p, err := LoadPolicy(filepath.Join(sb.root, "config", "tools_config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(sb.root, p)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ctx := t.Context()
	tests := []struct {
		name string
		tool string
		args map[string]any
		rule string
	}{
		{".env is hidden", ToolCLI, map[string]any{"tool_name": "read_file", "params": map[string]any{"path": ".env"}}, ruleHidden},
		{"claude.md is protected", ToolCLI, map[string]any{"tool_name": "copy_file", "params": map[string]any{"src": "docs/readme.md", "dst": "claude.md"}}, ruleProtected},
		{".git/config is protected", ToolCLI, map[string]any{"tool_name": "copy_file", "params": map[string]any{"src": "docs/readme.md", "dst": ".git/config"}}, ruleProtected},
		{"PYTHONPATH is refused", ToolRunner, map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"PYTHONPATH": "output"}}, ruleEnvKey},
		{"subprocess is blocked", ToolRunner, map[string]any{"script_name": "scripts/echo.py", "args": []any{"subprocess"}}, "blocked-pattern:subprocess"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := g.Call(ctx, tt.tool, tt.args)
			if res.Rule != tt.rule {
				t.Fatalf("rule = %q, want %q (%s)", res.Rule, tt.rule, res.Text)
			}
		})
	}
}

// Only an explicit [] empties a list.
func TestAnExplicitEmptyListEmptiesIt(t *testing.T) {
	base, _ := os.ReadFile(policyFile)
	s := withoutKeys(t, string(base), "protected_paths", "hidden_paths", "safe_py_runner.env.allow_keys")
	s = strings.Replace(s, "version: 1\n", "version: 1\nprotected_paths: []\nhidden_paths: []\n", 1)
	s = strings.Replace(s, "    env:\n", "    env:\n        allow_keys: []\n", 1)
	p, err := ParsePolicy(strings.NewReader(s), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Protected) != 0 || len(p.Hidden) != 0 || len(p.Runner.Env.AllowKeys) != 0 {
		t.Fatalf("protected %v, hidden %v, allow_keys %v: want all empty", p.Protected, p.Hidden, p.Runner.Env.AllowKeys)
	}
	sb := newSandbox(t)
	g, err := New(sb.root, p)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	res := g.Call(t.Context(), ToolRunner, map[string]any{"script_name": "scripts/echo.py", "env_vars": map[string]any{"NAME": "Ada"}})
	want := `[SECURITY BLOCKED] env-key: env_vars key "NAME" is not allowed; the model may set no env_vars (safe_py_runner.env.allow_keys is empty); pass values as script args`
	if res.Text != want {
		t.Errorf("got  %s\nwant %s", res.Text, want)
	}
}

// The effective policy is itself a valid policy file, and reading it back
// gives the same policy.
func TestEffectivePolicyRoundTrips(t *testing.T) {
	p := testPolicy(t)
	first, err := p.Effective()
	if err != nil {
		t.Fatal(err)
	}
	q, err := ParsePolicy(bytes.NewReader(first), "p.yaml")
	if err != nil {
		t.Fatalf("the effective policy does not load: %v\n%s", err, first)
	}
	q.Name = p.Name
	second, _ := q.Effective()
	if string(first) != string(second) {
		t.Errorf("round trip changed the policy:\n--- first\n%s\n--- second\n%s", first, second)
	}
	for _, s := range []string{"allow_keys:\n      - NAME\n      - VERBOSE\n", "timeout: 2m0s\n", "  - claude.md\n", "    pattern: \\bsudo\\s\n"} {
		if !strings.Contains(string(first), s) {
			t.Errorf("effective policy lacks %q:\n%s", s, first)
		}
	}
}
