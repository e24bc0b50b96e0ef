package agent

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/lppctl/lppctl/actions"
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

// render loads the template file name (relative to the spec's folder, else
// the project root) and executes it.
func (d *Deps) render(name string, data *promptData) (string, error) {
	if name == "" {
		return "", fmt.Errorf("cannot render prompt: no template file given")
	}
	path, err := d.FindTemplate(name)
	if err != nil {
		return "", err
	}
	src, ok := d.Pinned[path]
	if !ok {
		if src, err = d.ReadTemplate(path); err != nil {
			return "", err
		}
	}
	t, err := template.New(filepath.Base(path)).Funcs(actions.TemplateFuncs).Option("missingkey=error").Parse(string(src))
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

// baseData fills what every prompt may use: L1, tools, scripts and the skill.
func (d *Deps) baseData() (*promptData, error) {
	gw, err := d.OpenGateway()
	if err != nil {
		return nil, err
	}
	data := &promptData{ToolDocs: gw.ToolDocs()}
	data.Scripts, _ = gw.Scripts()
	data.Global, err = d.globalContext()
	if err != nil {
		return nil, err
	}
	doc, err := d.OpenSkill()
	if err != nil {
		return nil, fmt.Errorf("cannot read the skill: %w", err)
	}
	data.Skill, data.SkillName, data.doc = doc.Text, doc.Name, doc
	data.SkillDir = d.RelToRoot(d.SkillFolder())
	return data, nil
}

// globalContext reads L1 (claude.md). A missing default file gives a short
// placeholder; a missing file named with --claude-md is an error.
func (d *Deps) globalContext() (string, error) {
	path := d.ClaudeMD
	explicit := path != ""
	if !explicit {
		path = filepath.Join(d.RootDir(), "claude.md")
	} else if !filepath.IsAbs(path) {
		if _, err := os.Stat(path); err != nil {
			path = d.RootPath(path)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		if !explicit && os.IsNotExist(err) {
			return "(no claude.md in the project root)", nil
		}
		return "", fmt.Errorf("cannot read the global context (L1): %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
