package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/actions/llm"
	"github.com/lppctl/lppctl/internal/textx"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
	"github.com/lppctl/lppctl/skills"
)

func (d *Deps) commitStep(_ context.Context, c *machine.Call) error {
	_, step, err := currentStep(c)
	if err != nil {
		return err
	}
	tx := c.Memory()
	var ev EvaluationOutput
	if ok, err := tx.Get(MemEval, &ev); err != nil || !ok {
		return fmt.Errorf("cannot commit step %d: no evaluation in run memory", step.Index)
	}
	keys := make([]string, 0, len(ev.KeyOutputs))
	for k := range ev.KeyOutputs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > 0 {
		if err := tx.Append(MemL2Origin, l2Origin{Step: step.Index, First: len(tx.Items(MemL2)), Count: len(keys)}); err != nil {
			return err
		}
	}
	for _, k := range keys {
		item := l2Item(k, ev.KeyOutputs[k])
		if err := tx.Append(MemL2, item); err != nil {
			return err
		}
		if n := len(item); n > l2WarnBytes {
			c.Warnf("L2 line %s is %d bytes: it goes whole into every later prompt of the optimizer and the evaluator (a file path is cheaper than the file's content)", L2Key(k), n)
		}
	}
	var calls []skills.ToolCallSummary
	for _, raw := range tx.Items(MemStepTools) {
		var st stepTool
		if err := actions.JSONUnmarshal(raw, &st); err == nil {
			calls = append(calls, skills.ToolCallSummary{Tool: st.Tool, Args: st.Args, Outcome: st.Outcome})
		}
	}
	id := d.EntryID(c.RunID, c.Seq+1)
	if err := skills.AppendSuccess(d.SkillsMD(), id, d.NowUTC(), skills.SuccessCase{
		Step: step.Index, Instruction: step.OptimizerInstruction, ToolCalls: calls, KeyOutputs: ev.KeyOutputs, KeyNames: ev.KeyNames,
	}); err != nil {
		return fmt.Errorf("cannot record the success case: %w", err)
	}
	crashPoint("skillsmd-after-append")
	c.Notef("step %d committed: %d key output(s) → L2; success case → %s", step.Index, len(keys), d.RelToRoot(d.SkillsMD()))
	d.closeStep(c, skills.OutcomePass)
	return nil
}

// l2WarnBytes is the size of an L2 line above which commit_step warns.
const l2WarnBytes = 2000

// l2Item renders one L2 line, KEY=VALUE on one line: the key as L2Key
// makes it; in the value (trimmed) a backslash is written \\, a newline \n
// and a carriage return \r, so that one output stays one line and the
// escaping can be undone.
func l2Item(k, v string) string {
	v = strings.ReplaceAll(strings.TrimSpace(v), "\r\n", "\n")
	v = strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`).Replace(v)
	return L2Key(k) + "=" + v
}

func (d *Deps) recordFailure(_ context.Context, c *machine.Call) error {
	_, step, err := currentStep(c)
	if err != nil {
		return err
	}
	var ev EvaluationOutput
	if ok, err := c.Memory().Get(MemEval, &ev); err != nil || !ok {
		return fmt.Errorf("cannot record a failure of step %d: no evaluation in run memory", step.Index)
	}
	id := d.EntryID(c.RunID, c.Seq+1)
	if err := skills.AppendFailure(d.SkillsMD(), id, d.NowUTC(), skills.FailureCase{
		Step: step.Index, Instruction: step.OptimizerInstruction, Feedback: ev.Feedback,
	}); err != nil {
		return fmt.Errorf("cannot record the failure case: %w", err)
	}
	crashPoint("skillsmd-after-append")
	c.Notef("failure case of step %d → %s", step.Index, d.RelToRoot(d.SkillsMD()))
	return actions.UpdateStep(c, step.Index, func(o *skills.Outcome) { o.Retries++ })
}

func (d *Deps) teacher(ctx context.Context, c *machine.Call) error {
	on, err := exprBool(c, "enabled")
	if err != nil {
		return err
	}
	if !on {
		c.Notef("teacher disabled (enabled is false; the Skills Agent spec turns it on with --var run_teacher=true)")
		return nil
	}
	path := d.libraryPath()
	if p := c.String("library"); p != "" {
		path = d.RootPath(p)
	}
	shown := d.RelToRoot(path)
	lib, err := d.openLibrary(c, path)
	if err != nil {
		return fmt.Errorf("cannot open the skill library: %w", err)
	}
	doc, err := d.OpenSkill()
	if err != nil {
		return err
	}
	existing, err := lib.List()
	if err != nil {
		return err
	}
	success, failure := doc.Section(skills.SectionSuccess), doc.Section(skills.SectionFailure)
	if c.String("cases") != "all" {
		prefix := d.ResolveRunID(c.RunID) + "/"
		success, failure = runEntries(success, prefix), runEntries(failure, prefix)
	}
	stats := d.teacherStats(c, lib, existing)
	summary := skills.StatsSummary(stats)
	prompt := skills.TeacherPromptWithStats(success, failure, existing, summary)
	if tmpl := c.String("prompt"); tmpl != "" {
		if prompt, err = d.render(tmpl, &promptData{SuccessCases: success, FailureCases: failure, ExistingSkills: existingSkills(existing), SkillStats: summary}); err != nil {
			return err
		}
	}
	reply, err := d.Generate(ctx, c, "teacher", 0, []llm.Message{{Role: llm.RoleUser, Text: prompt}}, nil)
	if err != nil {
		if errors.Is(err, machine.ErrUnavailable) && ctx.Err() == nil {
			// The teacher is optional and comes after the run's work: a
			// model that stays down (after the provider's retries) fails
			// the state, so that the spec's on_error route ends the run
			// with a warning, rather than stopping it in place.
			return errors.New(err.Error())
		}
		return err
	}
	ps, err := skills.ParseProposals(reply.Text)
	if err != nil {
		c.Warnf("the teacher's reply held no usable proposals, %s is unchanged: %v", shown, err)
		return nil
	}
	iter, err := lib.Iteration()
	if err != nil {
		return err
	}
	rep, err := lib.Apply(ps, iter)
	if err != nil {
		return fmt.Errorf("cannot update the skill library: %w", err)
	}
	c.Notef("skill library %s: %d proposal(s), %d applied, %d rejected", shown, len(ps), len(rep.Applied), len(rep.Rejected))
	for _, a := range rep.Applied {
		why := ""
		if r := strings.TrimSpace(a.Proposal.Reason); r != "" {
			why = " — " + actions.Clip(textx.OneLine(r), 160)
		}
		c.Notef("applied: %s %q%s%s", a.Proposal.Action, a.Proposal.SkillName, why, statsNote(stats, a.Proposal))
	}
	for _, r := range rep.Rejected {
		c.Notef("rejected: %s", r.Problem)
	}
	return nil
}

// existingSkills lists library skills for the teacher's prompt, as
// skills.TeacherPrompt does.
func existingSkills(existing []skills.Skill) string {
	if len(existing) == 0 {
		return "(none)"
	}
	var b strings.Builder
	for _, s := range existing {
		fmt.Fprintf(&b, "- %s: %s (when to apply: %s)\n", s.Name, textx.OneLine(s.Principle), textx.OneLine(s.WhenToApply))
	}
	return strings.TrimRight(b.String(), "\n")
}

func (d *Deps) abort(_ context.Context, c *machine.Call) error {
	msg := machine.MessageWithValue(c)
	if strings.TrimSpace(msg) == "" {
		msg = "the agent stopped"
	}
	d.closeStep(c, skills.OutcomeFail)
	return errors.New(msg)
}

// crashPoint kills the process when $LPPCTL_CRASHPOINT arms point name (see
// runstore.EnvCrashPoint), for the crash-safety tests of durable runs. The
// agent's points: skillsmd-mid-write (a skills.md temporary file is written,
// not yet renamed over skills.md) and skillsmd-after-append (the entry is in
// skills.md, the action has not returned); outcome-after-append (a step's
// outcome line is in the library's outcome log, the action has not returned).
func crashPoint(name string) { runstore.CrashPoint(name) }

func init() {
	skills.BeforeReplace = func(path string) {
		if filepath.Base(path) == skills.DocFile {
			crashPoint("skillsmd-mid-write")
		}
	}
}
