package gateway

import (
	"os"
	"path/filepath"
	"regexp"
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

// A policy loaded from outside the project that protects nothing still
// cannot let a tool write what lppctl itself loads: the run directory (the
// journals a resume replays), the project's default policy and its
// configuration, which the next run loads.
func TestWhatLppctlLoadsIsProtectedUnderAPolicyThatProtectsNothing(t *testing.T) {
	const why = ", which no tool may change; use another path, e.g. under output/"
	sb := newSandbox(t)
	base, err := os.ReadFile(policyFile)
	require.NoError(t, err)
	src := regexp.MustCompile(`(?m)^protected_paths:\n(  - .*\n)+`).ReplaceAllString(string(base), "protected_paths: []\n")
	src = regexp.MustCompile(`(?m)^hidden_paths:\n(  - .*\n)+`).ReplaceAllString(src, "hidden_paths: []\n")
	sb.write(t, "../outside/open.yaml", src)
	sb.write(t, ".lppctl/runs/r1/journal.jsonl", "{}\n")
	p, err := LoadPolicy(filepath.Join(sb.outside, "open.yaml"))
	require.NoError(t, err)
	require.Empty(t, p.Protected)
	g, err := New(sb.root, p)
	require.NoError(t, err)
	t.Cleanup(func() { g.Close() })
	for _, tc := range []struct {
		sub    string
		params map[string]any
		want   string
	}{
		{"copy_file", map[string]any{"src": "docs/readme.md", "dst": ".lppctl/runs/r1/journal.jsonl"},
			`[SECURITY BLOCKED] protected-path: copy_file.dst ".lppctl/runs/r1/journal.jsonl" is inside the protected path ".lppctl" (the run directory: journals, LLM logs, the skill library)` + why},
		{"move_file", map[string]any{"src": ".lppctl", "dst": "output/runs"},
			`[SECURITY BLOCKED] protected-path: move_file.src ".lppctl" is inside the protected path ".lppctl" (the run directory: journals, LLM logs, the skill library)` + why},
		{"copy_file", map[string]any{"src": "docs/readme.md", "dst": "config/tools_config.yaml"},
			`[SECURITY BLOCKED] protected-path: copy_file.dst "config/tools_config.yaml" is inside the protected path "config/tools_config.yaml" (the project's default tool policy, which the next run loads)` + why},
		{"make_directory", map[string]any{"path": "Config/lppctl.yaml"},
			`[SECURITY BLOCKED] protected-path: make_directory.path "Config/lppctl.yaml" is inside the protected path "config/lppctl.yaml" (the project's configuration, which picks the next run's model)` + why},
	} {
		t.Run(tc.sub+" "+tc.want[40:80], func(t *testing.T) {
			res := g.Call(t.Context(), ToolCLI, map[string]any{"tool_name": tc.sub, "params": tc.params})
			require.Equal(t, tc.want, res.Text)
		})
	}
	got, err := os.ReadFile(filepath.Join(sb.root, ".lppctl", "runs", "r1", "journal.jsonl"))
	require.NoError(t, err)
	require.Equal(t, "{}\n", string(got))
}
