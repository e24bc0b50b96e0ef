package main

import (
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/actions/agent"
	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
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

// actionSets are the actions every spec may use: the general building
// blocks (actions.GeneralActions) and the Skills Agent's (agent.Actions).
// A child run (spec.run, spec.sandbox, spec.examples) gets the same sets.
var actionSets = []actions.ActionSet{actions.GeneralActions, agent.Actions}

// buildRegistry registers the built-in actions and the agent actions. A nil
// rt registers the same actions, with no run I/O (for commands that only
// inspect specs). The model and the tool gateway are built at their first use.
func buildRegistry(cfg agentConfig, rt *runtimeIO) (*machine.Registry, error) {
	reg, _, err := buildRegistryDeps(cfg, rt)
	return reg, err
}

// buildRegistryDeps is buildRegistry that also returns the actions'
// dependencies, for a run to complete them once its spec is known.
func buildRegistryDeps(cfg agentConfig, rt *runtimeIO) (*machine.Registry, *actions.Deps, error) {
	reg := machine.NewBuiltinRegistry()
	d := &actions.Deps{
		LLM:           cfg.LLM,
		LLMSource:     "--llm",
		Root:          cfg.Root,
		SkillDir:      cfg.Skill,
		SkillFile:     cfg.SkillFile,
		Policy:        cfg.Policy,
		ClaudeMD:      cfg.ClaudeMD,
		SkillsLibrary: cfg.SkillsLibrary,
		Embeddings:    cfg.Embeddings,
		SpecDir:       cfg.SpecDir,
		Yes:           cfg.Yes,
		Feedback:      cfg.Feedback,
		Unconfined:    cfg.Unconfined,
	}
	if rt != nil {
		d.RunID = rt.RunID
		d.RunDir = rt.RunDir
		d.Audit = rt.Audit
		d.LLMLog = rt.LLMLog
		d.Out = rt.Out
		d.In = rt.In
		d.Interactive = rt.In != nil && !rt.NoInput
		d.Quiet = rt.Quiet
		d.OutUnseen = rt.OutUnseen
	}
	if err := actions.Register(reg, d, actionSets...); err != nil {
		return nil, nil, err
	}
	return reg, d, nil
}

// runProtected returns what a run's tools may never write besides the
// policy's protected paths: the spec file, every path where a prompt
// template it uses is or would be looked up, and the run's directory. (The
// gateway ignores those outside the project root.)
func runProtected(spec *mspec.Spec, reg *machine.Registry, root, runDir string) []string {
	paths := append([]string{spec.File}, machine.FileParamCandidates(spec, reg, root)...)
	if runDir != "" {
		paths = append(paths, runDir)
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if abs, err := filepath.Abs(p); err == nil { // relative paths are from the current directory
			out = append(out, abs)
		}
	}
	return out
}
