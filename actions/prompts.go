package actions

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/skills"
)

// promptData is what prompt templates can use.
type promptData struct {
	Global    string   // L1: the text of claude.md
	ToolDocs  string   // the gateway's description of the tools
	Scripts   []string // the scripts safe_py_runner accepts
	SkillName string
	SkillDir  string
	Skill     string // skills.md (with its Success/Failure Cases and Human Feedback; for the planner the max_cases most recent of each)
	doc       *skills.SkillDoc
	// RelevantSkills is the "Relevant Skills" section from the skill library
	// (see relevant_skills); "" when none, so templates render it with {{if}}.
	RelevantSkills string
	SkillMemory    string // L2: KEY=VALUE lines
	Goal           string
	Step           int
	StepCount      int
	Instruction    string // the step's optimizer instruction
	EvalInstr      string // the step's evaluator instruction
	ToolsHint      []string
	DependsOn      []int
	Guidance       string // the person's guidance for this step
	Feedback       string // evaluator feedback, or the person's feedback on a plan
	Error          string // why the last plan or verdict was refused
	Transcript     string // what the optimizer did in this step (for the evaluator)
	Rounds         int
	MaxRounds      int
	Plan           string // the current plan as JSON (planner re-prompts)
	MaxSteps       int    // the most steps a plan may have (the planner's max_steps)
	Replans        int    // stuck-loop restarts of this step so far (context variable replans)
	MaxLoopCount   int    // tool-call rounds after which a step counts as stuck (max_loop_count)
	SuccessCases   string // the teacher's Success Cases entries
	FailureCases   string // the teacher's Failure Cases entries
	ExistingSkills string // the teacher's list of library skills, "(none)" when empty
	SkillStats     string // the teacher's statistics of the library skills (skills.StatsSummary), "" when none
	CompleteMark   string // the optimizer's completion prefix
}

// CompleteMark starts the optimizer's final reply of a step.
const CompleteMark = "[ATTEMPTS_COMPLETE]"

var tmplFuncs = template.FuncMap{
	"join":  strings.Join,
	"trim":  strings.TrimSpace,
	"inc":   func(i int) int { return i + 1 },
	"lines": func(s []string) string { return strings.Join(s, "\n") },
}

// render loads the template file name (relative to the spec's folder, else
// the project root) and executes it.
func (d *Deps) render(name string, data *promptData) (string, error) {
	if name == "" {
		return "", fmt.Errorf("cannot render prompt: no template file given")
	}
	path, err := d.findTemplate(name)
	if err != nil {
		return "", err
	}
	src, ok := d.Pinned[path]
	if !ok {
		if src, err = d.readTemplate(path); err != nil {
			return "", err
		}
	}
	t, err := template.New(filepath.Base(path)).Funcs(tmplFuncs).Option("missingkey=error").Parse(string(src))
	if err != nil {
		return "", fmt.Errorf("cannot parse prompt template %s: %w", path, err)
	}
	if data.CompleteMark == "" {
		data.CompleteMark = CompleteMark
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("cannot render prompt template %s: %w", path, err)
	}
	return strings.TrimSpace(b.String()) + "\n", nil
}

func (d *Deps) findTemplate(name string) (string, error) {
	if len(d.Pinned) > 0 && filepath.IsLocal(filepath.FromSlash(name)) {
		// A run's pinned templates (the Temporal engine's) were read inside
		// the root when the run started.
		for _, dir := range []string{d.SpecDir, d.root(), filepath.Join(d.root(), "specs")} {
			if dir == "" {
				continue
			}
			if p := filepath.Join(dir, name); hasKey(d.Pinned, p) {
				return p, nil
			}
		}
	}
	found, tried, err := machine.LocateFile(name, d.SpecDir, d.root())
	if err != nil {
		return "", fmt.Errorf("cannot use prompt template: %w", err)
	}
	if found == "" {
		return "", fmt.Errorf("cannot find prompt template %q (looked in %s)", name, strings.Join(tried, ", "))
	}
	return found, nil
}

// readTemplate reads a template findTemplate found, as machine.ReadNamedFile
// reads files a spec names (inside the root, a regular file, capped).
func (d *Deps) readTemplate(path string) ([]byte, error) {
	src, err := machine.ReadNamedFile(path, d.SpecDir, d.root())
	if err != nil {
		return nil, fmt.Errorf("cannot read prompt template %s: %w", path, err)
	}
	return src, nil
}

func hasKey(m map[string][]byte, k string) bool {
	_, ok := m[k]
	return ok
}
