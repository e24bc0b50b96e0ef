package actions

import (
	"testing"

	"github.com/stretchr/testify/require"

	mspec "github.com/lppctl/lppctl/machine/spec"
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

// TestAVariableOfAnUnknownTypeIsOneErrorInActionParameters checks that a
// context variable whose type is unknown is reported once, at its type,
// and not again where a template or an action's expression map reads it
// (the hint listed it among the variables it called unknown).
func TestAVariableOfAnUnknownTypeIsOneErrorInActionParameters(t *testing.T) {
	p := newProject(t, map[string]string{
		"a/prompt.md": "Classify {{.ticket}}.",
		"a/spec.yaml": "lpp: 1\nname: g\ncontext:\n  ticket: {type: str}\n  out: string\ninitial: read\nstates:\n" +
			"  read:\n    do: tools.call\n    with: {tool: safe_cli_executor, command: read_file, args: {path: ticket}, result: out}\n    next: ask\n" +
			"  ask:\n    do: llm.generate\n    with: {prompt: prompt.md, output: out}\n    next: done\n  done: {final: true}\n",
	})
	require.Equal(t, "a/spec.yaml:4:18: error: unknown type \"str\" for context variable \"ticket\"; did you mean \"string\"?\n", diagText(t, p, "a/spec.yaml"))
}

// TestAMisspeltNameInAnActionsExpressionMapHasADidYouMean checks that an
// unknown name in input: is underlined whole, with a did-you-mean among
// the variables, also when the parameter has a type (spec.run's input
// takes the child's types: the hint was "the value must be a string").
func TestAMisspeltNameInAnActionsExpressionMapHasADidYouMean(t *testing.T) {
	p := newProject(t, map[string]string{
		"a/child.yaml": "lpp: 1\nname: c\ncontext:\n  ticket: string\ninitial: done\nstates:\n  done: {final: true}\n",
		"a/spec.yaml":  "lpp: 1\nname: g\ncontext:\n  ticket: string\ninitial: run\nstates:\n  run:\n    do: spec.run\n    with: {spec: child.yaml, input: {ticket: tikcet}}\n    next: done\n  done: {final: true}\n",
	})
	_, _, diags := p.check("a/spec.yaml", p.deps("a", ""))
	require.Len(t, diags, 1)
	d := diags[0]
	require.Equal(t, `input.ticket of action "spec.run": unknown name tikcet`, d.Msg)
	require.Equal(t, `did you mean "ticket"?`, d.Hint)
	require.Equal(t, mspec.Pos{Line: 9, Col: 46}, d.Pos)
	require.Equal(t, 6, d.Span)
}
