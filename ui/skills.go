package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/lppctl/lppctl/machine/runstore"
)

// skillsDiff is what a run added to its skill's skills.md: the entries
// marked <!-- lppctl:entry RUN_ID/STEP --> with the run's ID, as added
// lines under their section (the file is append-only per section).
type skillsDiff struct {
	File  string
	Lines []diffLine
}

type diffLine struct {
	Added bool
	Text  string
}

// skillsEntries finds the run's entries in its skill's skills.md (the
// skill named in the run's agent configuration); nil for a run without one.
func skillsEntries(run *runstore.Run, row runRow) *skillsDiff {
	var cfg struct {
		Skill string `json:"skill"`
		Root  string `json:"root"`
	}
	if len(run.Meta.Agent) == 0 || json.Unmarshal(run.Meta.Agent, &cfg) != nil || cfg.Skill == "" {
		return nil
	}
	if !filepath.IsAbs(cfg.Root) { // paths relative to the run (runstore.Run.RelPath); else an older run's
		cfg.Skill = run.AbsPath(cfg.Skill)
	}
	return skillsIn(cfg.Skill, row.ID)
}

// skillsIn finds run id's entries in the skills.md of the skill folder dir.
func skillsIn(dir, id string) *skillsDiff {
	file := filepath.Join(dir, "skills.md")
	b, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	d := &skillsDiff{File: file}
	marker := "<!-- lppctl:entry " + id + "/"
	lines := strings.Split(string(b), "\n")
	section, shown := "", ""
	for i := 0; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "## ") {
			section = lines[i]
			continue
		}
		if !strings.HasPrefix(lines[i], "### ") || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], marker) {
			continue
		}
		if section != shown {
			d.Lines = append(d.Lines, diffLine{Text: section})
			shown = section
		}
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(lines[j], "### ") && !strings.HasPrefix(lines[j], "## ") {
			j++
		}
		for _, l := range lines[i:j] {
			d.Lines = append(d.Lines, diffLine{Added: true, Text: l})
		}
		i = j - 1
	}
	return d
}
