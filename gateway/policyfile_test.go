package gateway

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The loaded policy file is protected as named and as its links resolve: a
// run saves --policy as named, and resume loads whatever is there then.
func TestAPolicyNamedThroughALinkIsProtectedAsNamed(t *testing.T) {
	const why = ", which no tool may change; use another path, e.g. under output/"
	tests := []struct {
		name   string
		target string // the link's target, relative to output/
		sub    string
		params map[string]any
		want   string
	}{
		{"a link leading out of the root, moved away", "../../outside/pol.yaml", "move_file",
			map[string]any{"src": "output/pol.yaml", "dst": "output/moved.yaml"},
			`[SECURITY BLOCKED] protected-path: move_file.src "output/pol.yaml" is inside the protected path "output/pol.yaml" (the tool policy)` + why},
		{"a link inside the root, replaced", "real.yaml", "copy_file",
			map[string]any{"src": "docs/readme.md", "dst": "output/pol.yaml"},
			`[SECURITY BLOCKED] protected-path: copy_file.dst "output/pol.yaml" is inside the protected path "output/real.yaml" (the tool policy)` + why},
		{"a link inside the root, moved away", "real.yaml", "move_file",
			map[string]any{"src": "output/pol.yaml", "dst": "output/moved.yaml"},
			`[SECURITY BLOCKED] protected-path: move_file.src "output/pol.yaml" is inside the protected path "output/pol.yaml" (the tool policy)` + why},
		{"the link's target inside the root, replaced", "real.yaml", "copy_file",
			map[string]any{"src": "docs/readme.md", "dst": "output/real.yaml"},
			`[SECURITY BLOCKED] protected-path: copy_file.dst "output/real.yaml" is inside the protected path "output/real.yaml" (the tool policy)` + why},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newSandbox(t)
			policy, err := os.ReadFile(policyFile)
			require.NoError(t, err)
			sb.write(t, "../outside/pol.yaml", string(policy))
			sb.write(t, "output/real.yaml", string(policy))
			sb.symlink(t, tt.target, "output/pol.yaml")
			p, err := LoadPolicy(filepath.Join(sb.root, "output", "pol.yaml"))
			require.NoError(t, err)
			g, err := New(sb.root, p)
			require.NoError(t, err)
			t.Cleanup(func() { g.Close() })

			res := g.Call(t.Context(), ToolCLI, map[string]any{"tool_name": tt.sub, "params": tt.params})
			require.Equal(t, tt.want, res.Text)
			target, err := os.Readlink(filepath.Join(sb.root, "output", "pol.yaml"))
			require.NoError(t, err, "the link is still there")
			require.Equal(t, tt.target, target)
		})
	}
}
