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
	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/skills"
)

// agentConfig is what the agent flags of `lppctl run` configure (LLM
// provider, skill, approval...). It is saved with a run, as JSON, so that
// `lppctl resume` rebuilds the same actions.
type agentConfig struct {
	LLM           string `json:"llm,omitempty"`            // --llm provider[:model] | script:FILE ("" = LPPCTL_LLM or the environment)
	Skill         string `json:"skill,omitempty"`          // --skill DIR (the folder of the file --skill names)
	SkillFile     string `json:"skill_file,omitempty"`     // --skill FILE: a markdown file other than DIR/skills.md (absolute)
	Yes           bool   `json:"yes,omitempty"`            // --yes: approve the plan without asking
	Root          string `json:"root,omitempty"`           // --root DIR: the project root tools are confined to (absolute)
	Policy        string `json:"policy,omitempty"`         // --policy FILE
	ClaudeMD      string `json:"claude_md,omitempty"`      // --claude-md FILE (L1)
	SkillsLibrary string `json:"skills_library,omitempty"` // --skills-library FILE ($LPPCTL_SKILLS; "" = ROOT/.lppctl/skills.json)
	Embeddings    string `json:"embeddings,omitempty"`     // --embeddings PROVIDER ($LPPCTL_EMBEDDINGS; "" = BM25)
	Feedback      string `json:"feedback,omitempty"`       // --feedback TEXT: the final human feedback, given up front
	SpecDir       string `json:"spec_dir,omitempty"`       // folder of the spec: prompt templates are looked up there (absolute)
	Unconfined    bool   `json:"unconfined,omitempty"`     // --unconfined: run model-written code unconfined where the OS sandbox is unavailable

	rootSearched bool // no --root: Root is the folder found from the current directory up (or it)
}

// agentFlags are the run flags that configure the agent actions.
func agentFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "llm", Usage: "the model: `PROVIDER[:MODEL]` (PROVIDER: openai, anthropic or ollama) or script:FILE (default: $LPPCTL_LLM, else the first of OPENAI_API_KEY/OPENAI_API_BASE, ANTHROPIC_API_KEY, OLLAMA_HOST that is set; with none, the skill's demo.yaml is replayed)"},
		&cli.StringFlag{Name: "skill", Usage: "the skill: a `DIR` holding skills.md, or any markdown file (its skills.md, a task.md...), which the agent plans from and learns into", Value: filepath.Join("skills", "hello_skill")},
		&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "approve the plan without asking"},
		&cli.StringFlag{Name: "root", Usage: "the project root `DIR` the tools are confined to (default: the nearest folder holding config/tools_config.yaml, from the current directory upwards; else the current directory)"},
		&cli.StringFlag{Name: "policy", Usage: "the tool gateway policy `FILE` (default: ROOT/config/tools_config.yaml)"},
		&cli.StringFlag{Name: "claude-md", Usage: "the global context (L1) `FILE` (default: ROOT/claude.md)"},
		&cli.StringFlag{Name: "skills-library", EnvVars: []string{"LPPCTL_SKILLS"}, Usage: "the skill library `FILE` whose relevant skills go into the planner's and optimizer's prompts (spec: relevant_skills) and that skill.teacher updates (default: ROOT/" + skills.DefaultLibraryPath + "; a missing file is an empty library)"},
		&cli.StringFlag{Name: "embeddings", EnvVars: []string{"LPPCTL_EMBEDDINGS"}, Usage: "rank the library's skills for the prompts with `PROVIDER`: openai[:model], ollama[:model] or none (BM25), as lppctl skills search --embeddings does; a provider that fails only warns (BM25 then)"},
		&cli.StringFlag{Name: "feedback", Usage: "the final human feedback `TEXT`, recorded in skills.md without asking"},
		&cli.BoolFlag{Name: "unconfined", Usage: "where the kernel cannot confine model-written code (Landlock, user namespaces: docs/security.md), run it unconfined instead of refusing it; at your own risk"},
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
		Embeddings:    c.String("embeddings"),
		Feedback:      c.String("feedback"),
		Unconfined:    c.Bool("unconfined"),
	}
	if cfg.Root == "" {
		cfg.Root, cfg.rootSearched = findProjectRoot("."), true
	}
	cfg.Skill, cfg.SkillFile = skillFolder(cfg.Skill, cfg.Root)
	for _, p := range []*string{&cfg.Root, &cfg.Skill, &cfg.SkillFile, &cfg.Policy, &cfg.ClaudeMD, &cfg.SkillsLibrary} {
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

// skillFolder is the skill folder --skill names, and its markdown file
// when that is not the folder's skills.md: a folder is the skill itself; a
// file (skills.md, task.md, any markdown) is the skill's text, in its
// folder. Relative paths are as --skill takes them: from the current
// directory, else from the root. A path that names nothing is left as a
// folder, for checkSkillDir to report.
func skillFolder(skill, root string) (dir, file string) {
	for _, p := range []string{skill, filepath.Join(root, skill)} {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			return skill, ""
		}
		if filepath.Base(skill) == skills.DocFile {
			return filepath.Dir(skill), ""
		}
		return filepath.Dir(skill), skill
	}
	if ext := strings.ToLower(filepath.Ext(skill)); (ext == ".md" || ext == ".markdown") && filepath.Base(skill) != skills.DocFile {
		return filepath.Dir(skill), skill // a markdown file that is missing
	}
	return skill, ""
}

// preflightAgent checks, before a run directory is created, what would
// otherwise fail at the agent's first model or tool call: a malformed
// --llm (or $LPPCTL_LLM), or one whose key, base URL or script file is
// missing or wrong, is a usage error, an invalid or missing gateway
// policy an invalid-input error. Specs that use only built-in actions skip all but the model's check.
func preflightAgent(cfg agentConfig, spec *mspec.Spec) error {
	builtins := machine.NewBuiltinRegistry()
	agent, needSkill := false, false
	for _, st := range spec.States {
		if st.Do != "" && builtins.Lookup(st.Do) == nil {
			agent = true
			needSkill = needSkill || (st.Do != "tools.execute" && st.Do != "agent.abort" && !actions.IsGeneral(st.Do))
		}
	}
	// Retry bounds that cannot be read would be dropped without a word.
	if _, err := actions.ReadRetryEnv(os.Getenv); err != nil {
		return withCode(exitUsage, err)
	}
	if _, _, err := actions.ReadNowEnv(os.Getenv); err != nil {
		return withCode(exitUsage, err)
	}
	// A model named that cannot work is refused whatever the spec does
	// (README: before a run is created), not only when it calls one; so is
	// the llm key of config/lppctl.yaml, which the run takes next, and a
	// config file that cannot be read (else every model call failed with
	// it, an action error that the spec's on_error routes took).
	named, source := cfg.LLM, "--llm"
	if named == "" && os.Getenv("LPPCTL_LLM") == "" {
		var err error
		if named, source, err = actions.ConfigLLM(cfg.Root); err != nil {
			return withCode(exitUsage, err)
		}
	}
	if named != "" || os.Getenv("LPPCTL_LLM") != "" {
		ch, err := llm.Choose(named, source, os.Getenv)
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
	if !agent {
		return nil
	}
	if needSkill {
		if err := checkSkillDir(cfg); err != nil {
			return withCode(exitUsage, err)
		}
	}
	if _, _, err := skills.NewEmbedder(cfg.Embeddings, os.Getenv); errors.Is(err, skills.ErrInvalid) {
		return withCode(exitUsage, fmt.Errorf("%w; give --embeddings openai[:model], ollama[:model] or none", err))
	}
	if _, _, err := actions.SpecPolicy(spec, cfg.Root, cfg.Policy); err != nil { // as validate checks it (policyDiagnostic)
		if cfg.Policy == "" && cfg.rootSearched && errors.Is(err, fs.ErrNotExist) {
			// No project here: say what lppctl looked for, not only the file.
			return withCode(exitInvalidSpec, fmt.Errorf("%w; no project was found (a folder holding %s, here or above): run lppctl in one, give --root DIR, or a policy with --policy FILE", err, projectMarker))
		}
		return withCode(exitInvalidSpec, fmt.Errorf("%w; give one with --policy FILE", err))
	}
	return nil
}

// checkSkillDir reports a --skill that names no skill (a folder with a
// skills.md), listing the skills the project has.
func checkSkillDir(cfg agentConfig) error {
	var err error
	named := cfg.Skill
	if cfg.SkillFile != "" {
		named = cfg.SkillFile
		file := cfg.SkillFile
		if !filepath.IsAbs(file) {
			file = filepath.Join(cfg.Root, file)
		}
		_, err = skills.OpenSkillFile(file)
	} else {
		dir := cfg.Skill
		if dir == "" {
			dir = filepath.Join("skills", "hello_skill")
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cfg.Root, dir)
		}
		_, err = skills.OpenSkill(dir)
	}
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
	hint := "give --skill DIR, a folder holding a skills.md, or --skill FILE, a markdown file"
	if len(have) > 0 {
		hint += " (this project has: " + strings.Join(have, ", ") + ")"
	}
	return fmt.Errorf("cannot use --skill %s: %w; %s", named, err, hint)
}
