package main

import "github.com/urfave/cli/v2"

// agentConfig is what the agent flags of `lppctl run` configure (LLM
// provider, skill, approval...). It is saved with a run, as JSON, so that
// `lppctl resume` rebuilds the same actions.
type agentConfig struct{}

// agentFlags are the run flags that configure the agent actions.
func agentFlags() []cli.Flag { return nil }

// agentConfigFrom reads the agent flags (absent flags give zero values, so
// commands without them, like validate, get the defaults).
func agentConfigFrom(c *cli.Context) (agentConfig, error) { return agentConfig{}, nil }
