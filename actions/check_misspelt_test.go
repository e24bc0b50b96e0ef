package actions

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAMisspeltWithKeyOfLlmGenerateIsOneError checks that `whit:` beside
// llm.generate is reported once, as an unknown key, and not also as a
// call whose reply goes nowhere and that lacks its prompt: fixing the key
// gives both.
func TestAMisspeltWithKeyOfLlmGenerateIsOneError(t *testing.T) {
	p := newProject(t, map[string]string{
		"a/prompt.md": "Say hi.",
		"a/spec.yaml": "lpp: 1\nname: g\ncontext:\n  reply: string\ninitial: ask\nstates:\n  ask:\n    do: llm.generate\n    whit: {prompt: prompt.md, output: reply}\n    next: done\n  done: {final: true}\n",
	})
	require.Equal(t, "a/spec.yaml:9:5: error: unknown key \"whit\" in state \"ask\"; did you mean \"with\"?\n", diagText(t, p, "a/spec.yaml"))
}
