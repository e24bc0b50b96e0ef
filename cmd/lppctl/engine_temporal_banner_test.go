package main

import (
	"bytes"
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
