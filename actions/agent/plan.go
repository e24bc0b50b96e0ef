package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/lppctl/lppctl/actions/replyjson"
	"reflect"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/internal/textx"
	"github.com/lppctl/lppctl/skills"
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
	// Global marks a step whose key outputs every later step sees in full
	// (a setting, a path all of them use); the others see a step's outputs
	// only when they depend on it, directly or not. Optional: false.
	Global bool `json:"global,omitempty"`
}

// UnmarshalJSON reads a step the way models write it: index as a number or
// a numeric string, tools_hint as a list or one string, depends_on as a
// list or one number (numbers may be numeric strings). Anything else is an
// error naming the field.
func (s *PlanStep) UnmarshalJSON(b []byte) error {
	var raw struct {
		Index                json.RawMessage `json:"index"`
		OptimizerInstruction string          `json:"optimizer_instruction"`
		EvaluatorInstruction string          `json:"evaluator_instruction"`
		ToolsHint            json.RawMessage `json:"tools_hint"`
		DependsOn            json.RawMessage `json:"depends_on"`
		Global               json.RawMessage `json:"global"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*s = PlanStep{OptimizerInstruction: raw.OptimizerInstruction, EvaluatorInstruction: raw.EvaluatorInstruction}
	var err error
	if s.Index, err = lenientInt(raw.Index); err != nil {
		return fmt.Errorf(`"index" must be an integer, not %s`, actions.Clip(string(raw.Index), 40))
	}
	if len(raw.ToolsHint) > 0 && string(raw.ToolsHint) != "null" {
		var one string
		if json.Unmarshal(raw.ToolsHint, &one) == nil {
			if strings.TrimSpace(one) != "" {
				s.ToolsHint = []string{one}
			}
		} else if err := json.Unmarshal(raw.ToolsHint, &s.ToolsHint); err != nil {
			return fmt.Errorf(`"tools_hint" must be a list of strings`)
		}
	}
	if len(raw.DependsOn) > 0 && string(raw.DependsOn) != "null" {
		var list []json.RawMessage
		if json.Unmarshal(raw.DependsOn, &list) != nil {
			list = []json.RawMessage{raw.DependsOn}
		}
		for _, e := range list {
			n, err := lenientInt(e)
			if err != nil {
				return fmt.Errorf(`"depends_on" must be a list of step numbers, not %s`, actions.Clip(string(raw.DependsOn), 40))
			}
			s.DependsOn = append(s.DependsOn, n)
		}
	}
	if len(raw.Global) > 0 && string(raw.Global) != "null" {
		var str string
		switch {
		case json.Unmarshal(raw.Global, &s.Global) == nil:
		case json.Unmarshal(raw.Global, &str) == nil && (strings.EqualFold(str, "true") || strings.EqualFold(str, "false")):
			s.Global = strings.EqualFold(str, "true")
		default:
			return fmt.Errorf(`"global" must be true or false, not %s`, actions.Clip(string(raw.Global), 40))
		}
	}
	return nil
}

// lenientInt reads an integer written as a number or a numeric string.
func lenientInt(b json.RawMessage) (int, error) {
	if len(b) == 0 || string(b) == "null" {
		return 0, nil
	}
	var n int
	if json.Unmarshal(b, &n) == nil {
		return n, nil
	}
	var str string
	if json.Unmarshal(b, &str) == nil {
		if _, err := fmt.Sscanf(strings.TrimSpace(str), "%d", &n); err == nil && fmt.Sprint(n) == strings.TrimSpace(str) {
			return n, nil
		}
	}
	return 0, errors.New("not an integer")
}

// EvaluationOutput is the evaluator's structured verdict.
type EvaluationOutput struct {
	Verdict    string            `json:"verdict"`
	Feedback   string            `json:"feedback"`
	KeyOutputs map[string]string `json:"key_outputs"`
	// KeyNames maps a key of KeyOutputs to the name the evaluator gave it,
	// for the keys that L2Key changed.
	KeyNames map[string]string `json:"key_names,omitempty"`
}

// ParsePlan extracts and validates a plan from a model reply: the JSON
// object in it that has "steps" (see reply.Objects: a trailing comma
// or a raw line break in a string is forgiven). A reply holding several such
// objects is read when only one of them is a valid plan, or when they are
// the same; several valid plans that differ (a quoted format example with
// "..." in every field, then the plan; a draft, then the final one) are a
// format error, never the first taken silently. When none is valid, the
// first one's problems are given.
func ParsePlan(reply string, maxSteps int) (*SkillPlan, error) {
	objs, err := replyjson.Objects(reply, "steps")
	if err != nil {
		return nil, err
	}
	var first error
	var valid []*SkillPlan
	var texts []string
	for _, obj := range objs {
		p, err := parsePlanObject(obj, maxSteps)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		if len(texts) > 0 && replyjson.Same(texts[len(texts)-1], obj) {
			valid[len(valid)-1] = p
			continue
		}
		valid, texts = append(valid, p), append(texts, obj)
	}
	switch {
	case len(valid) == 1:
		return valid[0], nil
	case len(valid) > 1:
		return nil, replyjson.SeveralObjects(reply, "steps")
	}
	return nil, first
}

// parsePlanObject reads and validates one JSON object as a SkillPlan.
func parsePlanObject(obj string, maxSteps int) (*SkillPlan, error) {
	var p SkillPlan
	dec := json.NewDecoder(strings.NewReader(obj))
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("the plan is not valid JSON for the SkillPlan schema: %s", jsonProblem(err))
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
	fromZero := numberedFromZero(p.Steps)
	if fromZero {
		probs = append(probs, `the steps are numbered from 0 (0, 1, 2...); number them from 1 (1, 2, 3...), and their depends_on with them`)
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
		if s.Index != i+1 && !fromZero {
			probs = append(probs, fmt.Sprintf("%s.index is %d; steps are numbered 1, 2, 3... in order, so it must be %d", at, s.Index, i+1))
		}
		if strings.TrimSpace(s.OptimizerInstruction) == "" {
			probs = append(probs, at+`.optimizer_instruction is missing or empty`)
		}
		if strings.TrimSpace(s.EvaluatorInstruction) == "" {
			probs = append(probs, at+`.evaluator_instruction is missing or empty`)
		}
		for _, d := range s.DependsOn {
			switch {
			case d >= 1 && d < i+1:
			case i == 0:
				probs = append(probs, fmt.Sprintf("%s.depends_on has %d; the first step cannot depend on any step", at, d))
			case d == i+1:
				probs = append(probs, fmt.Sprintf("%s.depends_on has %d, the step itself; a step may depend only on earlier steps (1..%d)", at, d, i))
			default:
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

// ParseEvaluation extracts the evaluator's verdict from its reply: the JSON
// object in it that has a "verdict" (see reply.Objects: a trailing
// comma or a raw line break in a string is forgiven). A reply holding
// several such objects is read only when they all give the same valid
// verdict (the last is taken: a draft, then the answer); verdicts that
// disagree (a quoted format example with PASS, then the real FAIL) are a
// format error, so that no PASS wins by accident. The verdict is matched
// case-insensitively, and PASSED or FAILED (with a trailing "." or "!") are
// taken as PASS or FAIL. key_outputs values that are not strings are kept
// as their JSON text (numbers exactly); keys are normalised as L2 keys (see
// L2Key), a clash getting a _2, _3... suffix.
func ParseEvaluation(reply string) (*EvaluationOutput, error) {
	objs, err := replyjson.Objects(reply, "verdict")
	if err != nil {
		return nil, err
	}
	if len(objs) == 1 {
		return parseVerdict(objs[0])
	}
	var outs []*EvaluationOutput
	var said []string
	agree := true
	for _, obj := range objs {
		ev, err := parseVerdict(obj)
		if err != nil {
			var v struct {
				Verdict any `json:"verdict"`
			}
			_ = json.Unmarshal([]byte(obj), &v)
			b, _ := json.Marshal(v.Verdict)
			said = append(said, actions.Clip(string(b), 40))
			agree = false
			continue
		}
		said = append(said, ev.Verdict)
		if len(outs) > 0 && outs[0].Verdict != ev.Verdict {
			agree = false
		}
		outs = append(outs, ev)
	}
	if !agree {
		return nil, fmt.Errorf("the reply holds %d JSON objects with a \"verdict\" (%s) that disagree; answer with one JSON object, your verdict, and nothing else (no example of the format)", len(objs), strings.Join(said, ", then "))
	}
	return outs[len(outs)-1], nil
}

// parseVerdict reads one JSON object as an EvaluationOutput.
func parseVerdict(obj string) (*EvaluationOutput, error) {
	var raw struct {
		Verdict    any             `json:"verdict"`
		Feedback   any             `json:"feedback"`
		KeyOutputs json.RawMessage `json:"key_outputs"`
	}
	dec := json.NewDecoder(strings.NewReader(obj))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("the verdict is not valid JSON for the EvaluationOutput schema: %s", jsonProblem(err))
	}
	verdict, _ := raw.Verdict.(string)
	v := strings.ToUpper(strings.TrimRight(strings.TrimSpace(verdict), ".! "))
	switch v {
	case "PASSED":
		v = "PASS"
	case "FAILED":
		v = "FAIL"
	}
	if v != "PASS" && v != "FAIL" {
		if raw.Verdict == nil {
			return nil, errors.New(`"verdict" is missing; it must be "PASS" or "FAIL"`)
		}
		b, _ := json.Marshal(raw.Verdict)
		return nil, fmt.Errorf(`"verdict" is %s; it must be "PASS" or "FAIL"`, actions.Clip(string(b), 60))
	}
	out := &EvaluationOutput{Verdict: v, Feedback: strings.TrimSpace(actions.JSONText(raw.Feedback)), KeyOutputs: map[string]string{}}
	if v == "FAIL" && out.Feedback == "" {
		// The feedback is all the optimizer's retry and the Failure Case
		// have to go on: a FAIL without it says nothing that can be fixed.
		return nil, errors.New(`a "FAIL" verdict needs "feedback" saying what is wrong, so that the step can be fixed`)
	}
	kv := map[string]any{}
	if ko := bytes.TrimSpace(raw.KeyOutputs); len(ko) > 0 && string(ko) != "null" {
		d := json.NewDecoder(bytes.NewReader(ko))
		d.UseNumber()
		if err := d.Decode(&kv); err != nil {
			return nil, fmt.Errorf(`"key_outputs" must be an object of NAME: value, not %s`, skills.JSONKind(ko[0]))
		}
	}
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := L2Key(k)
		for n := 2; ; n++ {
			if _, taken := out.KeyOutputs[name]; !taken {
				break
			}
			name = fmt.Sprintf("%s_%d", L2Key(k), n)
		}
		out.KeyOutputs[name] = actions.JSONText(kv[k])
		if name != k {
			if out.KeyNames == nil {
				out.KeyNames = map[string]string{}
			}
			out.KeyNames[name] = k
		}
	}
	return out, nil
}

// L2Key turns a key_outputs name into an L2 key: an upper-case identifier
// (letters, digits, _; anything else becomes _; a leading digit gets a _
// before it; an empty name is OUTPUT).
func L2Key(k string) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(k) {
		switch {
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
	}
	key := b.String()
	switch {
	case key == "":
		return "OUTPUT"
	case key[0] >= '0' && key[0] <= '9':
		return "_" + key
	}
	return key
}

// jsonProblem says what is wrong with a JSON value in the model's terms.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "the reply"
		}
		want := "an object"
		switch te.Type.Kind() {
		case reflect.Slice, reflect.Array:
			want = "an array"
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			want = "an integer"
		case reflect.String:
			want = "a string"
		case reflect.Bool:
			want = "true or false"
		}
		return fmt.Sprintf("%q is %s; it must be %s", field, article(te.Value), want)
	}
	return err.Error()
}

func article(kind string) string {
	switch kind {
	case "array", "object":
		return "an " + kind
	case "number", "string", "bool":
		return "a " + kind
	}
	return kind
}

// Table renders the plan for a person.
func (p *SkillPlan) Table() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Goal: %s\n\n", textx.OneLine(p.Goal))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tOPTIMIZER INSTRUCTION\tEVALUATOR INSTRUCTION\tTOOLS\tAFTER")
	for _, s := range p.Steps {
		after := "-"
		if len(s.DependsOn) > 0 {
			after = strings.Trim(strings.Join(strings.Fields(fmt.Sprint(s.DependsOn)), ","), "[]")
		}
		if s.Global {
			after += " (global)"
		}
		tools := "-"
		if len(s.ToolsHint) > 0 {
			tools = strings.Join(s.ToolsHint, ", ")
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", s.Index, actions.Clip(textx.OneLine(s.OptimizerInstruction), 60), actions.Clip(textx.OneLine(s.EvaluatorInstruction), 50), actions.Clip(tools, 40), after)
	}
	tw.Flush()
	return b.String()
}

// numberedFromZero reports whether a plan of two steps or more numbers
// them 0, 1, 2...: one problem to say, not one per step.
func numberedFromZero(steps []*PlanStep) bool {
	if len(steps) < 2 {
		return false
	}
	for i, s := range steps {
		if s == nil || s.Index != i {
			return false
		}
	}
	return true
}
