package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/actions/llm"
	"github.com/lppctl/lppctl/gateway"
	"github.com/lppctl/lppctl/internal/textx"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/skills"
)

// defaultMaxSteps bounds a plan when llm.planner gets no max_steps.
const defaultMaxSteps = 12

func (d *Deps) planner(ctx context.Context, c *machine.Call) error {
	tx := c.Memory()
	chat, err := messages(tx, MemPlanChat)
	if err != nil {
		return err
	}
	maxSteps, err := exprInt(c, "max_steps")
	if err != nil {
		return err
	}
	if maxSteps <= 0 {
		maxSteps = defaultMaxSteps
	}
	maxCases, err := exprInt(c, "max_cases")
	if err != nil {
		return err
	}
	if len(chat) == 0 {
		data, err := d.baseData()
		if err != nil {
			return err
		}
		data.MaxSteps = maxSteps
		data.Skill = data.doc.Recent(maxCases)
		var fb string
		if _, err := tx.Get(MemPlanFeedback, &fb); err != nil {
			return err
		}
		data.Feedback = fb
		if fb != "" {
			if p, err := loadPlan(tx); err == nil {
				b, _ := json.MarshalIndent(p, "", "  ")
				data.Plan = string(b)
			}
		}
		if data.RelevantSkills, _, err = d.relevantSkills(ctx, c, skillQuery(data.Skill)); err != nil {
			return err
		}
		sys, err := d.render(c.String("system_prompt"), data)
		if err != nil {
			return err
		}
		user, err := d.render(c.String("user_prompt"), data)
		if err != nil {
			return err
		}
		chat = []llm.Message{{Role: llm.RoleSystem, Text: sys}, {Role: llm.RoleUser, Text: user}}
		if err := appendMessages(tx, MemPlanChat, chat...); err != nil {
			return err
		}
	}
	reply, err := d.Generate(ctx, c, "planner", 0, chat, nil)
	if err != nil {
		return err
	}
	plan, perr := ParsePlan(reply.Text, maxSteps)
	if perr != nil {
		perr = errors.New(actions.ReplyProblem(reply, false, perr.Error()))
	}
	if perr != nil {
		retry, err := d.render(c.String("retry_prompt"), &promptData{Error: perr.Error()})
		if err != nil {
			return err
		}
		if err := appendMessages(tx, MemPlanChat, llm.Message{Role: llm.RoleAssistant, Text: reply.Text}, llm.Message{Role: llm.RoleUser, Text: retry}); err != nil {
			return err
		}
		c.Notef("the plan was refused: %s", perr)
		if err := c.SetVar("plan_error", perr.Error()); err != nil {
			return err
		}
		return nil
	}
	if err := tx.Put(MemPlan, plan); err != nil {
		return err
	}
	if tx.Len(MemL2Origin) > 0 {
		// A new plan (after RESET) cannot depend on the L2 lines before it:
		// they become of unknown origin, shown in full (see scopedSkillMemory).
		tx.Clear(MemL2Origin)
	}
	tx.Delete(MemPlanChat)
	tx.Delete(MemPlanFeedback)
	c.Notef("plan: %s for %q", countSteps(len(plan.Steps)), actions.Clip(textx.OneLine(plan.Goal), 80))
	if err := c.SetVar("step_count", len(plan.Steps)); err != nil {
		return err
	}
	return c.SetVar("plan_error", "")
}

func (d *Deps) prepareStep(ctx context.Context, c *machine.Call) error {
	plan, step, err := currentStep(c)
	if err != nil {
		return err
	}
	tx := c.Memory()
	tx.Clear(MemL3)
	tx.Clear(MemL3Eval)
	tx.Clear(MemStepTools)
	data, err := d.baseData()
	if err != nil {
		return err
	}
	data.SkillMemory = scopedSkillMemory(tx, plan, step)
	data.Goal, data.Step, data.StepCount = plan.Goal, step.Index, len(plan.Steps)
	data.Instruction, data.EvalInstr = step.OptimizerInstruction, step.EvaluatorInstruction
	data.ToolsHint, data.DependsOn = step.ToolsHint, step.DependsOn
	data.Guidance = guidanceFor(tx, step.Index)
	data.Replans, data.MaxLoopCount = intVar(c, "replans"), intVar(c, "max_loop_count")
	var hits []skills.Hit
	if data.RelevantSkills, hits, err = d.relevantSkills(ctx, c, plan.Goal+"\n"+step.OptimizerInstruction); err != nil {
		return err
	}
	if err := d.beginStep(c, step.Index, hits); err != nil {
		return err
	}
	sys, err := d.render(c.String("system_prompt"), data)
	if err != nil {
		return err
	}
	user, err := d.render(c.String("user_prompt"), data)
	if err != nil {
		return err
	}
	if err := appendMessages(tx, MemL3, llm.Message{Role: llm.RoleSystem, Text: sys}, llm.Message{Role: llm.RoleUser, Text: user}); err != nil {
		return err
	}
	c.Notef("step %d/%d: %s", step.Index, len(plan.Steps), actions.Clip(textx.OneLine(step.OptimizerInstruction), 90))
	return nil
}

func (d *Deps) optimizer(ctx context.Context, c *machine.Call) error {
	_, step, err := currentStep(c)
	if err != nil {
		return err
	}
	tx := c.Memory()
	msgs, err := messages(tx, MemL3)
	if err != nil {
		return err
	}
	if len(msgs) == 0 {
		return fmt.Errorf("cannot run the optimizer: L3 is empty (the spec must enter memory.prepare_step first)")
	}
	tools, err := d.ToolDefs(false)
	if err != nil {
		return err
	}
	reply, err := d.Generate(ctx, c, "optimizer", step.Index, msgs, tools)
	if err != nil {
		return err
	}
	if strings.TrimSpace(reply.Text) == "" && len(reply.ToolCalls) == 0 {
		c.Notef("the optimizer's reply was empty")
	}
	if len(reply.ToolCalls) > 0 && strings.HasPrefix(strings.TrimSpace(reply.Text), CompleteMark) {
		c.Notef("the optimizer's reply starts with %s but also has %d tool call(s): the tools run first, and the step is complete only when a reply without tool calls says so", CompleteMark, len(reply.ToolCalls))
	}
	if len(reply.ToolCalls) == 0 {
		if name := toolCallInText(reply.Text, tools); name != "" {
			c.Notef("the optimizer wrote a call of %s as text instead of calling the tool (does the server support tool calling for this model?); it is taken as a plain reply", name)
		}
	}
	if err := appendMessages(tx, MemL3, llm.Message{Role: llm.RoleAssistant, Text: reply.Text, ToolCalls: reply.ToolCalls}); err != nil {
		return err
	}
	text := strings.TrimSpace(reply.Text)
	if bare, n := strings.TrimLeft(text, "*_`> \t\n"), len(CompleteMark); len(bare) >= n && strings.EqualFold(bare[:n], CompleteMark) {
		switch {
		case bare[:n] != CompleteMark:
			c.Notef("the reply's marker is written %q; taken as the prefix %s", bare[:n], CompleteMark)
		case bare != text:
			c.Notef("the reply's %s is wrapped in Markdown (%q); taken as the prefix", CompleteMark, actions.Clip(textx.OneLine(text), 30))
		}
		text = CompleteMark + bare[n:]
	} else {
		text = trailingMark(c, text)
	}
	if err := c.SetVar("reply", text); err != nil {
		return err
	}
	return c.SetVar("pending_tools", len(reply.ToolCalls))
}

// trailingMark handles a reply whose marker is not at its start: one that
// ends with it ("Done: wrote x.md. [ATTEMPTS_COMPLETE]", in any case or
// wrapped in Markdown) is complete, the marker moved to the start, with a
// note; one that has it inside its prose is not, and the note says so, so
// that the warning of the spec's fallback is not read as the marker missing.
func trailingMark(c *machine.Call, text string) string {
	n := len(CompleteMark)
	if bare := strings.TrimRight(text, "*_`> \t\n."); len(bare) >= n && strings.EqualFold(bare[len(bare)-n:], CompleteMark) {
		c.Notef("the reply ends with %s instead of starting with it; taken as the prefix", CompleteMark)
		return strings.TrimSpace(CompleteMark + " " + strings.TrimRight(strings.TrimSpace(bare[:len(bare)-n]), "*_`> \t\n"))
	}
	if strings.Contains(strings.ToUpper(text), CompleteMark) {
		c.Notef("the reply has %s inside its text, not at its start: taken as a reply without it (the marker must start the reply)", CompleteMark)
	}
	return text
}

func (d *Deps) executeTools(ctx context.Context, c *machine.Call) error {
	key := c.String("memory")
	tx := c.Memory()
	msgs, err := messages(tx, key)
	if err != nil {
		return err
	}
	var last *llm.Message
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleAssistant {
			last = &msgs[i]
			break
		}
	}
	if last == nil || len(last.ToolCalls) == 0 {
		c.Notef("no tool calls to run")
		return nil
	}
	gw, err := d.OpenGateway()
	if err != nil {
		return err
	}
	callCtx := ctx
	if c.Bool("read_only") {
		callCtx = gateway.ReadOnly(ctx)
	}
	for _, tc := range last.ToolCalls {
		res := gw.CallJSON(callCtx, tc.Name, tc.Arguments)
		if ctx.Err() != nil {
			return ctx.Err() // re-run from the start on resume
		}
		if err := appendMessages(tx, key, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Name: tc.Name, Text: res.Text}); err != nil {
			return err
		}
		if c.Bool("record") {
			st := stepTool{Tool: tc.Name, Args: tc.Arguments}
			switch res.Decision {
			case gateway.DecisionAllow:
			case gateway.DecisionBlock:
				st.Outcome = "blocked"
			default:
				st.Outcome = "failed"
			}
			if err := tx.Append(MemStepTools, st); err != nil {
				return err
			}
		}
		c.Notef("%s %s → %s: %s", tc.Name, actions.Clip(textx.OneLine(tc.Arguments), 100), res.Decision, actions.Clip(textx.OneLine(res.Text), 100))
	}
	return nil
}

func (d *Deps) injectDirective(_ context.Context, c *machine.Call) error {
	plan, step, err := currentStep(c)
	if err != nil {
		return err
	}
	data := &promptData{Goal: plan.Goal, Step: step.Index, StepCount: len(plan.Steps), Instruction: step.OptimizerInstruction, EvalInstr: step.EvaluatorInstruction}
	text, err := d.render(c.String("template"), data)
	if err != nil {
		return err
	}
	c.Notef("reminded the optimizer of step %d's instruction", step.Index)
	return appendMessages(c.Memory(), MemL3, llm.Message{Role: llm.RoleUser, Text: text})
}

func (d *Deps) evaluator(ctx context.Context, c *machine.Call) error {
	plan, step, err := currentStep(c)
	if err != nil {
		return err
	}
	tx := c.Memory()
	round, maxRounds := intVar(c, "eval_rounds"), intVar(c, "max_eval_rounds")
	// A re-ask after a reply without a usable verdict: the question (and
	// what was wrong) is in L3-eval already.
	// reask: the spec asks again for a usable verdict (reask_prompt, and
	// eval_error declared); a spec without it (one written before, a
	// paused run's copy) fails the step on such a reply, as it did.
	reask := c.String("reask_prompt") != ""
	reasking := reask && stringVar(c, "eval_error") != ""
	if round == 0 && !reasking {
		tx.Clear(MemL3Eval)
		data, err := d.baseData()
		if err != nil {
			return err
		}
		l3, err := messages(tx, MemL3)
		if err != nil {
			return err
		}
		data.SkillMemory = scopedSkillMemory(tx, plan, step)
		data.Goal, data.Step, data.StepCount = plan.Goal, step.Index, len(plan.Steps)
		data.Instruction, data.EvalInstr = step.OptimizerInstruction, step.EvaluatorInstruction
		data.Transcript = transcript(l3)
		data.MaxRounds = maxRounds
		sys, err := d.render(c.String("system_prompt"), data)
		if err != nil {
			return err
		}
		user, err := d.render(c.String("user_prompt"), data)
		if err != nil {
			return err
		}
		if err := appendMessages(tx, MemL3Eval, llm.Message{Role: llm.RoleSystem, Text: sys}, llm.Message{Role: llm.RoleUser, Text: user}); err != nil {
			return err
		}
	}
	forced := round >= maxRounds
	if forced && !reasking {
		text, err := d.render(c.String("final_prompt"), &promptData{Rounds: round, MaxRounds: maxRounds})
		if err != nil {
			return err
		}
		if err := appendMessages(tx, MemL3Eval, llm.Message{Role: llm.RoleUser, Text: text}); err != nil {
			return err
		}
	}
	msgs, err := messages(tx, MemL3Eval)
	if err != nil {
		return err
	}
	var tools []llm.Tool
	if !forced {
		// The evaluator checks; its tool calls run read-only (tools.execute
		// read_only: true), so it is offered only the commands that look.
		if tools, err = d.ToolDefs(true); err != nil {
			return err
		}
	}
	reply, err := d.Generate(ctx, c, "evaluator", step.Index, msgs, tools)
	if err != nil {
		return err
	}
	if !forced && len(reply.ToolCalls) > 0 {
		if _, perr := ParseEvaluation(reply.Text); perr == nil {
			c.Notef("the evaluator's reply holds a verdict but also %d tool call(s): the tools run first, and the verdict counts only in a reply without tool calls", len(reply.ToolCalls))
		}
		if err := appendMessages(tx, MemL3Eval, llm.Message{Role: llm.RoleAssistant, Text: reply.Text, ToolCalls: reply.ToolCalls}); err != nil {
			return err
		}
		if err := c.SetVar("verdict", ""); err != nil {
			return err
		}
		if err := setEvalError(c, reask, ""); err != nil {
			return err
		}
		return c.SetVar("pending_tools", len(reply.ToolCalls))
	}
	if err := appendMessages(tx, MemL3Eval, llm.Message{Role: llm.RoleAssistant, Text: reply.Text}); err != nil {
		return err
	}
	ev, perr := ParseEvaluation(reply.Text)
	if perr != nil && !reask {
		why := perr.Error()
		if len(reply.ToolCalls) > 0 {
			why = fmt.Sprintf("it asked for tools after its last round (%d of %d) instead of answering", round, maxRounds)
		}
		ev, perr = &EvaluationOutput{Verdict: "FAIL", Feedback: "the evaluator gave no valid verdict: " + why, KeyOutputs: map[string]string{}}, nil
	}
	if perr != nil {
		// A reply without a usable verdict says nothing of the step: the
		// evaluator is asked again (eval_error), and no Failure Case is
		// recorded.
		why := perr.Error()
		switch {
		case len(reply.ToolCalls) > 0:
			why = fmt.Sprintf("the reply asked for tools after the last round (%d of %d) instead of answering", round, maxRounds)
		default:
			why = actions.ReplyProblem(reply, true, why)
		}
		text, err := d.render(c.String("reask_prompt"), &promptData{Error: why})
		if err != nil {
			return err
		}
		if err := appendMessages(tx, MemL3Eval, llm.Message{Role: llm.RoleUser, Text: text}); err != nil {
			return err
		}
		c.Notef("no usable verdict: %s", actions.Clip(textx.OneLine(why), 200))
		for name, v := range map[string]any{"verdict": "", "eval_error": why, "feedback": "the evaluator gave no usable verdict: " + why, "pending_tools": 0} {
			if err := c.SetVar(name, v); err != nil {
				return err
			}
		}
		return nil
	}
	if err := setEvalError(c, reask, ""); err != nil {
		return err
	}
	if err := tx.Put(MemEval, ev); err != nil {
		return err
	}
	fb := actions.Clip(textx.OneLine(ev.Feedback), 120)
	if fb == "" {
		fb = "(no feedback)"
	}
	c.Notef("verdict %s: %s", ev.Verdict, fb)
	if ev.Verdict == "FAIL" {
		// The feedback goes inside <evaluator_feedback>: a line of it that
		// opens with a tag (a tool output it quotes) is escaped.
		text, err := d.render(c.String("retry_prompt"), &promptData{Feedback: textx.EscapeTagLines(ev.Feedback), Step: step.Index, Instruction: step.OptimizerInstruction})
		if err != nil {
			return err
		}
		if err := appendMessages(tx, MemL3, llm.Message{Role: llm.RoleUser, Text: text}); err != nil {
			return err
		}
	}
	if err := c.SetVar("verdict", ev.Verdict); err != nil {
		return err
	}
	if err := c.SetVar("feedback", ev.Feedback); err != nil {
		return err
	}
	return c.SetVar("pending_tools", 0)
}

// transcript renders what the optimizer did in the step for the evaluator,
// who reads it inside <step_transcript>...</step_transcript>: a line of a
// tool's output or of the optimizer's text that opens with a tag
// ("</step_transcript>" in a fetched page, then a fake verdict) is escaped
// with a backslash, so it cannot close the block.
func transcript(l3 []llm.Message) string {
	var b strings.Builder
	for _, m := range l3 {
		switch m.Role {
		case llm.RoleAssistant:
			for _, tc := range m.ToolCalls {
				fmt.Fprintf(&b, "- optimizer called %s %s\n", tc.Name, actions.Clip(textx.OneLine(tc.Arguments), 600))
			}
			if t := strings.TrimSpace(m.Text); t != "" {
				fmt.Fprintf(&b, "- optimizer said: %s\n", indent(textx.EscapeTagLines(actions.Clip(t, 2000))))
			}
		case llm.RoleTool:
			fmt.Fprintf(&b, "- result of %s: %s\n", m.Name, indent(textx.EscapeTagLines(actions.Clip(strings.TrimSpace(m.Text), 1500))))
		}
	}
	if b.Len() == 0 {
		return "(the optimizer did nothing)"
	}
	return strings.TrimRight(b.String(), "\n")
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n    ") }

// toolCallInText returns the tool a reply names when the whole reply is a
// JSON tool call written as text ({"name": "safe_cli_executor", "arguments":
// {...}}, possibly in a code fence), as models do that a server serves
// without tool calling. Such a reply is not run: it is text, and routes as
// any reply without [ATTEMPTS_COMPLETE] does; the note says why.
func toolCallInText(text string, tools []llm.Tool) string {
	t := strings.TrimSpace(text)
	t = strings.TrimPrefix(strings.TrimPrefix(t, "```json"), "```")
	t = strings.TrimSpace(strings.TrimSuffix(t, "```"))
	var call struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Params    json.RawMessage `json:"parameters"`
	}
	if json.Unmarshal([]byte(t), &call) != nil || (call.Arguments == nil && call.Params == nil) {
		return ""
	}
	for _, tool := range tools {
		if tool.Name == call.Name {
			return call.Name
		}
	}
	return ""
}

// setEvalError sets eval_error when the spec has the evaluator ask again
// (reask); a spec without it has no such variable.
func setEvalError(c *machine.Call, reask bool, why string) error {
	if !reask {
		return nil
	}
	return c.SetVar("eval_error", why)
}
