package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/actions/llm"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// humanSpec plans (scripted), asks for approval, then for an intervention
// and for feedback, all on a "terminal".
const humanSpec = `
lpp: 1
name: human_paths
context:
  step_count: {type: int, default: 0}
  step_index: {type: int, default: 0}
  plan_error: {type: string, default: ""}
  approval:   {type: string, enum: ["", approved, rejected, replan], default: ""}
  decision:   {type: string, enum: ["", guidance, skip, abort], default: ""}
  feedback:   {type: string, default: ""}
  retries:    {type: int, default: 0}
  max_retries: {type: int, default: 3}
  replans:    {type: int, default: 0}
  max_replans: {type: int, default: 2}
initial: plan
states:
  plan:
    do: llm.planner
    with: {system_prompt: prompts/planner_system.md, user_prompt: prompts/planner_user.md, retry_prompt: prompts/planner_retry.md}
    next: [{to: approve}]
  approve:
    do: human.approve
    next: [{to: intervene}]
  intervene:
    do: human.intervene
    next: [{to: feedback}]
  feedback:
    do: human.feedback
    next: [{to: done}]
  done: {final: true}
`

func newHumanRun(t *testing.T, in string, opts ...machine.RunOption) (*machine.Run, *Deps, *strings.Builder, string) {
	t.Helper()
	repo, _ := filepath.Abs(filepath.Join("..", ".."))
	root := t.TempDir()
	skill := filepath.Join(root, "skills", "demo")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skill, "skills.md"), []byte("# demo\n\nSay hi.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := llm.ParseScript("s.yaml", []byte(`replies:
  - role: planner
    text: '{"goal": "say hi", "steps": [{"optimizer_instruction": "say hi", "evaluator_instruction": "check hi"}]}'
`))
	if err != nil {
		t.Fatal(err)
	}
	editor := filepath.Join(root, "editor.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nsed -i 's/say hi\", \"evaluator/say hello\", \"evaluator/; s/\"say hi\"/\"say hello\"/' \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	d := &Deps{Deps: &actions.Deps{Root: root, SkillDir: skill, Policy: filepath.Join(repo, "config", "tools_config.yaml"), SpecDir: filepath.Join(repo, "specs"),
		Model: script, Interactive: in != "", In: strings.NewReader(in), Out: &out, Editor: editor, RunID: "run1",
		Now: fixedNow}}
	reg := machine.NewBuiltinRegistry()
	if err := actions.Register(reg, d.Deps, actions.GeneralActions, Actions); err != nil {
		t.Fatal(err)
	}
	spec, diags := spec.Parse(filepath.Join(d.SpecDir, "human.yaml"), []byte(humanSpec)) // its templates are in specs/prompts
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if d := validate.Validate(spec, reg); d.HasErrors() {
		t.Fatal(d.PrettyAll(spec.Source))
	}
	m, err := machine.Compile(spec, reg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.NewRun(nil, append([]machine.RunOption{machine.WithRunID("run1")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return r, d, &out, filepath.Join(skill, "skills.md")
}

func TestHumanOnATerminal(t *testing.T) {
	r, _, out, md := newHumanRun(t, "?\ne\na\nhelp\ng\nuse a friendlier tone\nnice work\n")
	if err := r.Run(context.Background()); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var p SkillPlan
	if ok, _ := r.Memory().Get(MemPlan, &p); !ok || p.Steps[0].OptimizerInstruction != "say hello" {
		t.Fatalf("the edited plan was not kept: %+v\n%s", p.Steps, out)
	}
	if r.Var("approval") != "approved" || r.Var("decision") != "guidance" {
		t.Fatalf("approval %v, decision %v", r.Var("approval"), r.Var("decision"))
	}
	if got := r.Memory().Items(MemGuidance); len(got) != 1 || !strings.Contains(string(got[0]), "use a friendlier tone") {
		t.Fatalf("guidance: %s", got)
	}
	b, _ := os.ReadFile(md)
	if !strings.HasSuffix(string(b), "## Human Feedback\n\n### [2025-01-02 03:04 UTC]\n<!-- lppctl:entry run1/4 -->\n- nice work\n") {
		t.Fatalf("skills.md:\n%s", b)
	}
	for _, want := range []string{"Proposed plan (1 step)", "Edited plan (1 step)", "say hello", "[g]ive guidance",
		"anything else is sent to the planner as feedback", "Anything else you type is taken as guidance"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestHumanWithoutTerminalPausesAndResumes(t *testing.T) {
	r, _, out, _ := newHumanRun(t, "")
	err := r.Run(context.Background())
	p, ok := machine.AsPause(err)
	if !ok || p.State != "approve" || p.Kind != "approval" || !strings.Contains(p.Prompt, "lppctl resume run1 --approve") {
		t.Fatalf("err = %v\n%s", err, out)
	}
	// the answer re-runs the action: feedback asks for a new plan
	r2, _, _, _ := newHumanRun(t, "", machine.WithInput(&machine.Input{Kind: "answer", Text: "fewer steps please"}))
	if err := r2.Replay(&machine.Record{Seq: 1, From: "plan", To: "approve", Memory: planOps(t, r)}); err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	var fb string
	if r2.Var("approval") != "replan" {
		t.Fatalf("approval = %v", r2.Var("approval"))
	}
	if ok, _ := r2.Memory().Get(MemPlanFeedback, &fb); !ok || fb != "fewer steps please" {
		t.Fatalf("feedback = %q", fb)
	}
	// intervention answers
	for _, tc := range []struct {
		in   machine.Input
		want string
	}{
		{machine.Input{Kind: "approve"}, "skip"},
		{machine.Input{Kind: "reject"}, "abort"},
		{machine.Input{Kind: "answer", Text: "skip"}, "skip"},
		{machine.Input{Kind: "answer", Text: "try the other script"}, "guidance"},
	} {
		r3, _, _, _ := newHumanRun(t, "", machine.WithInput(&tc.in))
		if err := r3.Replay(&machine.Record{Seq: 1, From: "plan", To: "intervene", Memory: planOps(t, r)}); err != nil {
			t.Fatal(err)
		}
		if _, err := r3.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
		if r3.Var("decision") != tc.want {
			t.Errorf("%+v: decision = %v, want %s", tc.in, r3.Var("decision"), tc.want)
		}
	}
}

// planOps returns memory ops that put r's plan.
func planOps(t *testing.T, r *machine.Run) []machine.MemOp {
	t.Helper()
	b, err := r.Memory().MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var p SkillPlan
	if ok, _ := r.Memory().Get(MemPlan, &p); !ok {
		t.Fatalf("no plan in %s", b)
	}
	raw, _ := actions.JSONMarshal(p)
	return []machine.MemOp{{Op: machine.OpPut, Key: MemPlan, Value: raw}}
}

// A blank $VISUAL (or Editor) is no editor: the next one is used, no panic.
func TestEditPlanSkipsBlankEditors(t *testing.T) {
	d := &Deps{Deps: &actions.Deps{Editor: "  ", Getenv: func(k string) string {
		return map[string]string{"VISUAL": " \t", "EDITOR": "true"}[k]
	}}}
	p := &SkillPlan{Goal: "g", Steps: []*PlanStep{{Index: 1, OptimizerInstruction: "o", EvaluatorInstruction: "e"}}}
	got, err := d.editPlan(p)
	if err != nil || got.Goal != "g" || len(got.Steps) != 1 {
		t.Fatalf("editPlan = %+v, %v", got, err)
	}
}
