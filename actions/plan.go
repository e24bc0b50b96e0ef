package actions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
)

// SkillPlan is the planner's output, approved by a person before it runs.
type SkillPlan struct {
	Goal  string      `json:"goal"`
	Steps []*PlanStep `json:"steps"`
}

// PlanStep is one step of a plan.
type PlanStep struct {
	Index                int      `json:"index"`
	OptimizerInstruction string   `json:"optimizer_instruction"`
	EvaluatorInstruction string   `json:"evaluator_instruction"`
	ToolsHint            []string `json:"tools_hint"`
	DependsOn            []int    `json:"depends_on"`
}

// EvaluationOutput is the evaluator's structured verdict.
type EvaluationOutput struct {
	Verdict    string            `json:"verdict"`
	Feedback   string            `json:"feedback"`
	KeyOutputs map[string]string `json:"key_outputs"`
}

// ParsePlan extracts and validates a plan from a model reply: the reply
// itself, or the first fenced block, or the outermost {...} in it.
func ParsePlan(reply string, maxSteps int) (*SkillPlan, error) {
	obj, err := extractObject(reply)
	if err != nil {
		return nil, err
	}
	var p SkillPlan
	dec := json.NewDecoder(strings.NewReader(obj))
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("the plan is not valid JSON for the SkillPlan schema: %v", err)
	}
	if err := p.Validate(maxSteps); err != nil {
		return nil, err
	}
	return &p, nil
}

// Validate checks the plan's fields; the error lists every problem.
func (p *SkillPlan) Validate(maxSteps int) error {
	var probs []string
	if strings.TrimSpace(p.Goal) == "" {
		probs = append(probs, `"goal" is missing or empty`)
	}
	switch {
	case len(p.Steps) == 0:
		probs = append(probs, `"steps" is missing or empty: give at least one step`)
	case maxSteps > 0 && len(p.Steps) > maxSteps:
		probs = append(probs, fmt.Sprintf(`"steps" has %d steps; the limit is %d`, len(p.Steps), maxSteps))
	}
	for i, s := range p.Steps {
		at := fmt.Sprintf("steps[%d]", i)
		if s == nil {
			probs = append(probs, at+" is null")
			continue
		}
		if s.Index == 0 {
			s.Index = i + 1
		}
		if s.Index != i+1 {
			probs = append(probs, fmt.Sprintf("%s.index is %d; steps are numbered 1, 2, 3... in order, so it must be %d", at, s.Index, i+1))
		}
		if strings.TrimSpace(s.OptimizerInstruction) == "" {
			probs = append(probs, at+`.optimizer_instruction is missing or empty`)
		}
		if strings.TrimSpace(s.EvaluatorInstruction) == "" {
			probs = append(probs, at+`.evaluator_instruction is missing or empty`)
		}
		for _, d := range s.DependsOn {
			if d < 1 || d >= i+1 {
				probs = append(probs, fmt.Sprintf("%s.depends_on has %d; a step may depend only on earlier steps (1..%d)", at, d, i))
			}
		}
		if s.ToolsHint == nil {
			s.ToolsHint = []string{}
		}
		if s.DependsOn == nil {
			s.DependsOn = []int{}
		}
	}
	if len(probs) > 0 {
		return errors.New("the plan is invalid: " + strings.Join(probs, "; "))
	}
	return nil
}

// ParseEvaluation extracts the evaluator's verdict from its reply.
func ParseEvaluation(reply string) (*EvaluationOutput, error) {
	obj, err := extractObject(reply)
	if err != nil {
		return nil, err
	}
	var raw struct {
		Verdict    string         `json:"verdict"`
		Feedback   string         `json:"feedback"`
		KeyOutputs map[string]any `json:"key_outputs"`
	}
	if err := json.Unmarshal([]byte(obj), &raw); err != nil {
		return nil, fmt.Errorf("the verdict is not valid JSON for the EvaluationOutput schema: %v", err)
	}
	v := strings.ToUpper(strings.TrimSpace(raw.Verdict))
	if v != "PASS" && v != "FAIL" {
		return nil, fmt.Errorf(`"verdict" is %q; it must be "PASS" or "FAIL"`, raw.Verdict)
	}
	out := &EvaluationOutput{Verdict: v, Feedback: strings.TrimSpace(raw.Feedback), KeyOutputs: map[string]string{}}
	for k, val := range raw.KeyOutputs {
		switch x := val.(type) {
		case string:
			out.KeyOutputs[k] = x
		case nil:
			out.KeyOutputs[k] = ""
		default:
			b, _ := json.Marshal(x)
			out.KeyOutputs[k] = string(b)
		}
	}
	return out, nil
}

// extractObject finds the JSON object in a reply.
func extractObject(reply string) (string, error) {
	s := strings.TrimSpace(reply)
	if s == "" {
		return "", errors.New("the reply is empty; answer with one JSON object")
	}
	if strings.HasPrefix(s, "{") && json.Valid([]byte(s)) {
		return s, nil
	}
	if i := strings.Index(s, "```"); i >= 0 {
		rest := s[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		}
		if j := strings.Index(rest, "```"); j >= 0 {
			block := strings.TrimSpace(rest[:j])
			if strings.HasPrefix(block, "{") {
				return block, nil
			}
		}
	}
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j < i {
		return "", errors.New("the reply holds no JSON object; answer with one JSON object and nothing else")
	}
	return s[i : j+1], nil
}

// Table renders the plan for a person.
func (p *SkillPlan) Table() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Goal: %s\n\n", oneLine(p.Goal))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tOPTIMIZER INSTRUCTION\tEVALUATOR INSTRUCTION\tTOOLS\tAFTER")
	for _, s := range p.Steps {
		after := "-"
		if len(s.DependsOn) > 0 {
			after = strings.Trim(strings.Join(strings.Fields(fmt.Sprint(s.DependsOn)), ","), "[]")
		}
		tools := "-"
		if len(s.ToolsHint) > 0 {
			tools = strings.Join(s.ToolsHint, ", ")
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", s.Index, clip(oneLine(s.OptimizerInstruction), 60), clip(oneLine(s.EvaluatorInstruction), 50), clip(tools, 40), after)
	}
	tw.Flush()
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
