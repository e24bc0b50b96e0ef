package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// A run keeps the spec it started with: a paused run of the release before
// resumes on its copy, and a Temporal workflow replays on the spec in its
// history. So the flagship specs of the release before (5835c77) must still
// validate and compile against today's actions: an action that comes to
// write a new variable does so only when the spec asks for it (as
// llm.evaluator's eval_error with reask_prompt).
func TestTheFlagshipSpecsOfTheReleaseBeforeStillCompile(t *testing.T) {
	reg, err := buildRegistry(agentConfig{}, nil)
	require.NoError(t, err)
	for _, name := range []string{"skills_agent.yaml", "skill_contractor.yaml"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", "prevrelease", name)
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			spec, diags, _, err := checkInput(path, src, reg)
			require.NoError(t, err)
			require.False(t, diags.HasErrors(), "%s", diags.Errors().PrettyAll(src))
			_, err = machine.Compile(spec, reg)
			require.NoError(t, err)
		})
	}
}
