package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"
)

// A Temporal run started with --llm script:FILE says, as a local run does,
// that the model's replies are replayed (the model is built in a worker,
// whose output the person does not see): on stdout, or on stderr when
// stdout carries JSON lines; nothing for another model.
func TestATemporalRunWithAScriptedModelSaysSo(t *testing.T) {
	const banner = "*** LLM replies are SCRIPTED: replaying replies.yaml (no model is called; tools run for real) ***\n"
	tests := []struct {
		name, llm      string
		args           []string
		stdout, stderr string
	}{
		{name: "text progress", llm: "script:replies.yaml", stdout: banner},
		{name: "json progress", llm: "script:replies.yaml", args: []string{"--json"}, stderr: banner},
		{name: "deltas progress", llm: "script:replies.yaml", args: []string{"--deltas"}, stderr: banner},
		{name: "a real model", llm: "openai:gpt-4o"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			app := &cli.App{Writer: &out, ErrWriter: &errb,
				Flags:  []cli.Flag{&cli.BoolFlag{Name: "json"}, &cli.BoolFlag{Name: "deltas"}},
				Action: func(c *cli.Context) error { scriptedBanner(c, tt.llm); return nil }}
			require.NoError(t, app.Run(append([]string{"lppctl"}, tt.args...)))
			assert.Equal(t, tt.stdout, out.String())
			assert.Equal(t, tt.stderr, errb.String())
		})
	}
}

// A Temporal run started without --llm, on a worker whose environment
// names no model, replays the skill's demo replies and says so, as a local
// run does: the worker's notice reaches the run as a note of the step that
// built the model, printed once by the follower (before, it went to the
// worker's output, which is discarded, and the person saw no sign that no
// model answered).
func TestATemporalRunOnTheDemoRepliesSaysSo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	bin := buildLppctl(t)
	root := newProject(t, "hello_skill")
	addr, _ := devServer(t, root)
	w := exec.Command(bin, "worker", "--temporal", addr, "--root", root)
	w.Env = childEnv("")
	startProcess(t, w)
	out, errOut, code := lppctlOut(t, bin, root, "run", "--engine", "temporal", "--temporal", addr,
		"--spec", "specs/skills_agent.yaml", "--skill", "skills/hello_skill", "--yes")
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	demo := filepath.Join(root, "skills", "hello_skill", "demo.yaml")
	assert.Equal(t, 1, strings.Count(out, "  plan: *** no LLM configured: replaying the scripted demo replies from "+demo+"; set OPENAI_API_KEY or --llm to use a real model ***\n"), out)
	assert.Equal(t, 1, strings.Count(out, "no LLM configured"), out)
}
