package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Temporal run approved with --yes shows the plan it approved, as a local
// run does (before, the approval printed it to the worker's output, which no
// person sees, and the follower showed only "approved by --yes").
func TestATemporalRunApprovedWithYesShowsThePlan(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	bin := buildLppctl(t)
	root := newProject(t, "hello_skill")
	args := []string{"--spec", "specs/skills_agent.yaml", "--skill", "skills/hello_skill", "--yes"}
	local, errOut, code := lppctlOut(t, bin, root, append([]string{"run"}, args...)...)
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", local, errOut)
	plan := planBlock(t, local)

	addr, _ := devServer(t, root)
	w := exec.Command(bin, "worker", "--temporal", addr, "--root", root)
	w.Env = childEnv("")
	startProcess(t, w)
	out, errOut, code := lppctlOut(t, bin, root, append([]string{"run", "--engine", "temporal", "--temporal", addr}, args...)...)
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	assert.Contains(t, out, "  approve_plan: approved by --yes\n"+plan, out)
	assert.Equal(t, 1, strings.Count(out, "Proposed plan ("), out)
}

// planBlock is the plan a run's output shows, from "\nProposed plan" to the
// blank line after its table (the goal, the table of its steps).
func planBlock(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, "\nProposed plan (3 steps):\n")
	require.GreaterOrEqual(t, i, 0, out)
	table := strings.Index(out[i:], "\n#  OPTIMIZER INSTRUCTION")
	require.GreaterOrEqual(t, table, 0, out)
	j := strings.Index(out[i+table:], "\n\n")
	require.GreaterOrEqual(t, j, 0, out)
	return out[i : i+table+j+2]
}
