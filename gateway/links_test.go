package gateway

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A link target can name a missing component and climb back out of it
// ("nothere/../gitlink"). What follows must still be resolved: os.Root
// follows the later links, so the checks must see where they lead.
func TestLinksThroughAMissingComponent(t *testing.T) {
	sb := newSandbox(t)
	sb.write(t, "docs/evil.py", "print(1)\n")
	sb.symlink(t, "scripts", "slink")
	sb.symlink(t, ".git", "gitlink")
	sb.symlink(t, "nothere/../slink", "a")
	sb.symlink(t, "nothere/../gitlink", "b")
	sb.symlink(t, "x/y/../../nothere/../gitlink", "c")
	tests := []struct {
		sub    string
		params map[string]any
		rule   string
	}{
		{"copy_file", map[string]any{"src": "docs/evil.py", "dst": "a/x.py"}, ruleProtected},
		{"make_directory", map[string]any{"path": "a/sub"}, ruleProtected},
		{"move_file", map[string]any{"src": "docs/evil.py", "dst": "a/evil.py"}, ruleProtected},
		{"read_file", map[string]any{"path": "b/config"}, ruleHidden},
		{"read_file", map[string]any{"path": "c/config"}, ruleHidden},
		{"list_files", map[string]any{"path": "b"}, ruleHidden},
		{"copy_file", map[string]any{"src": "b/config", "dst": "out/config"}, ruleHidden},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.sub, tt.params), func(t *testing.T) {
			res := sb.cli(tt.sub, tt.params)
			checkInvariant(t, res)
			if res.Rule != tt.rule {
				t.Fatalf("res = %+v, want rule %s", res, tt.rule)
			}
		})
	}
	for _, p := range []string{"scripts/x.py", "scripts/sub", "scripts/evil.py", "out"} {
		if _, err := os.Lstat(filepath.Join(sb.root, p)); err == nil {
			t.Errorf("%s was created", p)
		}
	}
}
