package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lppctl/lppctl/actions/llm"
	"github.com/lppctl/lppctl/machine"
)

// Run memory slots the agent uses (all journaled with the run).
const (
	MemPlan         = "plan"          // value: the approved SkillPlan
	MemPlanChat     = "plan_chat"     // list: the planner's conversation while it re-prompts
	MemPlanFeedback = "plan_feedback" // value: the person's feedback on a rejected plan
	MemL2           = "l2"            // list: "KEY=VALUE" skill memory, the only bridge between steps
	MemL3           = "l3"            // list: the optimizer's chat of the current step
	MemL3Eval       = "l3_eval"       // list: the evaluator's chat of the current evaluation
	MemStepTools    = "step_tools"    // list: tool calls of the current step (for the Success Case)
	MemEval         = "eval"          // value: the last EvaluationOutput
	MemGuidance     = "guidance"      // list: {step, text} guidance given by the person
)

type stepTool struct {
	Tool    string `json:"tool"`
	Args    string `json:"args"`
	Outcome string `json:"outcome,omitempty"` // "" when the gateway allowed and ran the call
}

type guidance struct {
	Step int    `json:"step"`
	Text string `json:"text"`
}

func messages(tx machine.MemoryTx, key string) ([]llm.Message, error) {
	items := tx.Items(key)
	out := make([]llm.Message, 0, len(items))
	for i, raw := range items {
		var m llm.Message
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("cannot read memory %s[%d]: %w", key, i, err)
		}
		out = append(out, m)
	}
	return out, nil
}

func appendMessages(tx machine.MemoryTx, key string, msgs ...llm.Message) error {
	for _, m := range msgs {
		if err := tx.Append(key, m); err != nil {
			return err
		}
	}
	return nil
}

func l2Lines(tx machine.MemoryTx) []string {
	var out []string
	for _, raw := range tx.Items(MemL2) {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			out = append(out, s)
		}
	}
	return out
}

func skillMemory(tx machine.MemoryTx) string {
	lines := l2Lines(tx)
	if len(lines) == 0 {
		return "(empty: no step has committed outputs yet)"
	}
	return strings.Join(lines, "\n")
}

func loadPlan(tx machine.MemoryTx) (*SkillPlan, error) {
	var p SkillPlan
	ok, err := tx.Get(MemPlan, &p)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no plan in run memory: the spec must run llm.planner first")
	}
	return &p, nil
}

// currentStep returns the plan step at step_index (0-based).
func currentStep(c *machine.Call) (*SkillPlan, *PlanStep, error) {
	p, err := loadPlan(c.Memory())
	if err != nil {
		return nil, nil, err
	}
	i := intVar(c, "step_index")
	if i < 0 || i >= len(p.Steps) {
		return nil, nil, fmt.Errorf("step_index %d is outside the plan's %d steps", i, len(p.Steps))
	}
	return p, p.Steps[i], nil
}

func intVar(c *machine.Call, name string) int {
	n, _ := c.Var(name).(int)
	return n
}

func stringVar(c *machine.Call, name string) string {
	s, _ := c.Var(name).(string)
	return s
}

func guidanceFor(tx machine.MemoryTx, step int) string {
	var parts []string
	for _, raw := range tx.Items(MemGuidance) {
		var g guidance
		if json.Unmarshal(raw, &g) == nil && g.Step == step && strings.TrimSpace(g.Text) != "" {
			parts = append(parts, strings.TrimSpace(g.Text))
		}
	}
	return strings.Join(parts, "\n")
}
