package main

import (
	"path/filepath"

	"github.com/lppctl/lppctl/machine/runstore"
)

// agentPaths are cfg's paths.
func (cfg *agentConfig) agentPaths() []*string {
	return []*string{&cfg.Root, &cfg.Skill, &cfg.Policy, &cfg.ClaudeMD, &cfg.SkillsLibrary, &cfg.SpecDir}
}

// stored returns cfg as run.json records it for a run of store: its paths
// relative to the run's directory when they lie inside the project root, as
// the store does (runstore.Store.RelPath), so that a project copied or moved
// with its runs resumes on its own files. The root itself is then relative
// ("../../..").
func (cfg agentConfig) stored(store *runstore.Store) agentConfig {
	root, err := filepath.Abs(cfg.Root)
	if err != nil {
		return cfg
	}
	for _, p := range cfg.agentPaths() {
		if *p == "" {
			continue
		}
		if !filepath.IsAbs(*p) { // the root's own default (skills/hello_skill): under the root
			*p = filepath.Join(root, *p)
		}
		*p = store.RelPath(root, *p)
	}
	return cfg
}

// loaded returns cfg as run reads it back (stored): its relative paths
// joined to the run's directory where it is now. A run made before paths
// were stored relative has an absolute root, and its relative paths are
// relative to that root as they always were: they are left as they are.
func (cfg agentConfig) loaded(run *runstore.Run) agentConfig {
	if cfg.Root == "" || filepath.IsAbs(cfg.Root) {
		return cfg
	}
	for _, p := range cfg.agentPaths() {
		*p = run.AbsPath(*p)
	}
	return cfg
}
