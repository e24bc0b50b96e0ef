package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/actions/llm"
	"github.com/lppctl/lppctl/gateway"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/lpp"
	"github.com/lppctl/lppctl/skills"
)

// agentConfig is what the agent flags of `lppctl run` configure (LLM
// provider, skill, approval...). It is saved with a run, as JSON, so that
// `lppctl resume` rebuilds the same actions.
type agentConfig struct {
	LLM           string `json:"llm,omitempty"`            // --llm provider[:model] | script:FILE ("" = LPPCTL_LLM or the environment)
	Skill         string `json:"skill,omitempty"`          // --skill DIR
	Yes           bool   `json:"yes,omitempty"`            // --yes: approve the plan without asking
	Root          string `json:"root,omitempty"`           // --root DIR: the project root tools are confined to (absolute)
	Policy        string `json:"policy,omitempty"`         // --policy FILE
	ClaudeMD      string `json:"claude_md,omitempty"`      // --claude-md FILE (L1)
	SkillsLibrary string `json:"skills_library,omitempty"` // --skills-library FILE ($LPPCTL_SKILLS; "" = ROOT/.lppctl/skills.json)
	Feedback      string `json:"feedback,omitempty"`       // --feedback TEXT: the final human feedback, given up front
	SpecDir       string `json:"spec_dir,omitempty"`       // folder of the spec: prompt templates are looked up there (absolute)
}

// agentFlags are the run flags that configure the agent actions.
func agentFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "llm", Usage: "the model: `PROVIDER[:MODEL]` (PROVIDER: openai, anthropic or ollama) or script:FILE (default: $LPPCTL_LLM, else the first of OPENAI_API_KEY/OPENAI_API_BASE, ANTHROPIC_API_KEY, OLLAMA_HOST that is set; with none, the skill's demo.yaml is replayed)"},
		&cli.StringFlag{Name: "skill", Usage: "the skill's `DIR` (holding skills.md), or its skills.md", Value: filepath.Join("skills", "hello_skill")},
		&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "approve the plan without asking"},
		&cli.StringFlag{Name: "root", Usage: "the project root `DIR` the tools are confined to (default: the current directory)"},
		&cli.StringFlag{Name: "policy", Usage: "the tool gateway policy `FILE` (default: ROOT/config/tools_config.yaml)"},
		&cli.StringFlag{Name: "claude-md", Usage: "the global context (L1) `FILE` (default: ROOT/claude.md)"},
		&cli.StringFlag{Name: "skills-library", EnvVars: []string{"LPPCTL_SKILLS"}, Usage: "the skill library `FILE` whose relevant skills go into the planner's and optimizer's prompts (spec: relevant_skills) and that skill.teacher updates (default: ROOT/" + skills.DefaultLibraryPath + "; a missing file is an empty library)"},
		&cli.StringFlag{Name: "feedback", Usage: "the final human feedback `TEXT`, recorded in skills.md without asking"},
	}
}

// agentConfigFrom reads the agent flags (absent flags give zero values, so
// commands without them, like validate, get the defaults).
func agentConfigFrom(c *cli.Context) (agentConfig, error) {
	cfg := agentConfig{
		LLM:           c.String("llm"),
		Skill:         c.String("skill"),
		Yes:           c.Bool("yes"),
		Root:          c.String("root"),
		Policy:        c.String("policy"),
		ClaudeMD:      c.String("claude-md"),
		SkillsLibrary: c.String("skills-library"),
		Feedback:      c.String("feedback"),
	}
	if cfg.Root == "" {
		cfg.Root = "."
	}
	cfg.Skill = skillFolder(cfg.Skill, cfg.Root)
	for _, p := range []*string{&cfg.Root, &cfg.Skill, &cfg.Policy, &cfg.ClaudeMD, &cfg.SkillsLibrary} {
		if *p == "" {
			continue
		}
		if p != &cfg.Root && !filepath.IsAbs(*p) {
			if _, err := os.Stat(*p); err != nil { // not found here: relative to the root
				continue
			}
		}
		if abs, err := filepath.Abs(*p); err == nil {
			*p = abs
		}
	}
	spec := c.String("spec")
	if spec == "" && c.NArg() > 0 {
		spec = c.Args().First()
	}
	if spec != "" {
		if abs, err := filepath.Abs(spec); err == nil {
			cfg.SpecDir = filepath.Dir(abs)
		}
	}
	return cfg, nil
}

// skillFolder is the skill folder --skill names: the folder itself, or the
// folder of the skills.md it names (relative paths as --skill takes them:
// from the current directory, else from the root).
func skillFolder(skill, root string) string {
	if filepath.Base(skill) != skills.DocFile {
		return skill
	}
	for _, p := range []string{skill, filepath.Join(root, skill)} {
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return skill // a folder that happens to be called skills.md
			}
			return filepath.Dir(skill)
		}
	}
	return skill
}

// preflightAgent checks, before a run directory is created, what would
// otherwise fail at the agent's first model or tool call: a malformed
// --llm (or $LPPCTL_LLM), or one whose key, base URL or script file is
// missing or wrong, is a usage error, an invalid or missing gateway
// policy an invalid-input error. Specs that use only built-in actions skip it.
func preflightAgent(cfg agentConfig, spec *machine.Spec) error {
	builtins := machine.NewBuiltinRegistry()
	agent, needSkill := false, false
	for _, st := range spec.States {
		if st.Do != "" && builtins.Lookup(st.Do) == nil {
			agent = true
			needSkill = needSkill || (st.Do != "tools.execute" && st.Do != "agent.abort" && !actions.IsGeneral(st.Do))
		}
	}
	if !agent {
		return nil
	}
	if needSkill {
		if err := checkSkillDir(cfg); err != nil {
			return withCode(exitUsage, err)
		}
	}
	if cfg.LLM != "" || os.Getenv("LPPCTL_LLM") != "" {
		ch, err := llm.Choose(cfg.LLM, "--llm", os.Getenv)
		if err != nil && !errors.Is(err, llm.ErrNoProvider) {
			return withCode(exitUsage, err)
		}
		if err == nil {
			// Building the client calls nothing: it checks the key, the base
			// URL or the script file the choice needs.
			if _, err := llm.New(ch, llm.Options{Getenv: os.Getenv}); err != nil {
				return withCode(exitUsage, err)
			}
		}
	}
	policy := cfg.Policy
	if policy == "" {
		policy = filepath.Join(cfg.Root, "config", "tools_config.yaml")
		if _, err := os.Stat(policy); errors.Is(err, fs.ErrNotExist) && lpp.IsBlueprint(spec.Source) {
			return nil // a blueprint's run has a default policy (actions.BlueprintPolicy)
		}
	}
	if _, err := gateway.LoadPolicy(policy); err != nil {
		return withCode(exitInvalidSpec, fmt.Errorf("%w; give one with --policy FILE", err))
	}
	return nil
}

// checkSkillDir reports a --skill that names no skill (a folder with a
// skills.md), listing the skills the project has.
func checkSkillDir(cfg agentConfig) error {
	dir := cfg.Skill
	if dir == "" {
		dir = filepath.Join("skills", "hello_skill")
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(cfg.Root, dir)
	}
	_, err := skills.OpenSkill(dir)
	if err == nil || !errors.Is(err, skills.ErrNotFound) {
		return nil // unreadable: the run says why
	}
	var have []string
	if m, _ := filepath.Glob(filepath.Join(cfg.Root, "skills", "*", skills.DocFile)); len(m) > 0 {
		for _, f := range m {
			rel, _ := filepath.Rel(cfg.Root, filepath.Dir(f))
			have = append(have, filepath.ToSlash(rel))
		}
	}
	hint := "give --skill DIR, a folder holding a skills.md"
	if len(have) > 0 {
		hint += " (this project has: " + strings.Join(have, ", ") + ")"
	}
	return fmt.Errorf("cannot use --skill %s: %w; %s", cfg.Skill, err, hint)
}
