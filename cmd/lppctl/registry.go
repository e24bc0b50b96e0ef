package main

import (
	"os"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/lppctl/lppctl/actions"
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
	rt := &runtimeIO{Out: c.App.Writer}
	if f, ok := c.App.Reader.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		rt.In = f
	} else {
		rt.NoInput = true
	}
	return buildRegistry(cfg, rt)
}

// buildRegistry registers the built-in actions and the agent actions. A nil
// rt registers the same actions, with no run I/O (for commands that only
// inspect specs). The model and the tool gateway are built at their first use.
func buildRegistry(cfg agentConfig, rt *runtimeIO) (*machine.Registry, error) {
	reg := machine.NewBuiltinRegistry()
	d := &actions.Deps{
		LLM:           cfg.LLM,
		LLMSource:     "--llm",
		Root:          cfg.Root,
		SkillDir:      cfg.Skill,
		Policy:        cfg.Policy,
		ClaudeMD:      cfg.ClaudeMD,
		SkillsLibrary: cfg.SkillsLibrary,
		SpecDir:       cfg.SpecDir,
		Yes:           cfg.Yes,
		Feedback:      cfg.Feedback,
	}
	if rt != nil {
		d.RunID = rt.RunID
		d.Audit = rt.Audit
		d.LLMLog = rt.LLMLog
		d.Out = rt.Out
		d.In = rt.In
		d.Interactive = rt.In != nil && !rt.NoInput
	}
	if err := actions.Register(reg, d); err != nil {
		return nil, err
	}
	return reg, nil
}
