package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/internal/textx"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/skills"
)

func resumeHint(runID, what string) string {
	if runID == "" {
		return what + " (this run is not durable: re-run it on a terminal, or with --yes to approve plans)"
	}
	return what
}

func (d *Deps) approve(ctx context.Context, c *machine.Call) error {
	tx := c.Memory()
	plan, err := loadPlan(tx)
	if err != nil {
		return err
	}
	showPlan := func() {
		fmt.Fprintf(d.Output(), "\nProposed plan (%s):\n%s\n", countSteps(len(plan.Steps)), plan.Table())
	}
	if !d.Quiet {
		showPlan()
	}
	decide := func(kind string) error {
		c.Notef("plan %s", kind)
		return c.SetVar("approval", kind)
	}
	useText := func(text string) error {
		if strings.HasPrefix(strings.TrimSpace(text), "{") {
			edited, err := ParsePlan(text, 0)
			if err != nil {
				return fmt.Errorf("cannot use the edited plan: %w", err)
			}
			if err := tx.Put(MemPlan, edited); err != nil {
				return err
			}
			if err := c.SetVar("step_count", len(edited.Steps)); err != nil {
				return err
			}
			c.Notef("plan edited by the person (%d steps)", len(edited.Steps))
			return decide("approved")
		}
		if err := tx.Put(MemPlanFeedback, text); err != nil {
			return err
		}
		c.Notef("the person asked for a new plan: %s", actions.Clip(textx.OneLine(text), 100))
		return decide("replan")
	}
	if in := c.Input; in != nil {
		switch in.Kind {
		case "approve":
			return decide("approved")
		case "reject":
			return decide("rejected")
		case "answer":
			if strings.TrimSpace(in.Text) == "" {
				return decide("approved")
			}
			return useText(in.Text)
		}
		return fmt.Errorf("cannot use the answer %q: approve, reject or answer with feedback or an edited plan (JSON)", in.Kind)
	}
	if d.Yes {
		if d.OutUnseen {
			// the follower prints the note where a local run prints the plan
			c.Notef("approved by --yes\n\nProposed plan (%s):\n%s", countSteps(len(plan.Steps)), plan.Table())
			return c.SetVar("approval", "approved")
		}
		c.Notef("approved by --yes")
		return c.SetVar("approval", "approved")
	}
	if d.Quiet && d.Interactive {
		showPlan() // the person is asked about it
	}
	for {
		line, ok, err := d.Ask(ctx, "Approve this plan? [a]pprove, [r]eject, [e]dit the JSON in your editor, or type feedback for a new plan: ")
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch strings.ToLower(line) {
		case "a", "approve", "y", "yes":
			return decide("approved")
		case "r", "reject", "n", "no":
			return decide("rejected")
		case "e", "edit":
			edited, err := d.editPlan(plan)
			if err != nil {
				fmt.Fprintf(d.Output(), "%v\n", err)
				continue
			}
			if err := tx.Put(MemPlan, edited); err != nil {
				return err
			}
			if err := c.SetVar("step_count", len(edited.Steps)); err != nil {
				return err
			}
			fmt.Fprintf(d.Output(), "\nEdited plan (%s):\n%s\n", countSteps(len(edited.Steps)), edited.Table())
			plan = edited
			continue
		case "", "?", "h", "help":
			fmt.Fprintln(d.Output(), "a: run this plan; r: stop the run without running it; e: edit the plan as JSON in $VISUAL or $EDITOR; anything else is sent to the planner as feedback for a new plan.")
			continue
		}
		return useText(line)
	}
	hint := fmt.Sprintf("approve the plan of %d steps: lppctl resume %s --approve (or --reject, or --answer 'feedback for a new plan' or an edited plan as JSON)", len(plan.Steps), runIDOr(c.RunID))
	return machine.Pause("approval", resumeHint(c.RunID, hint), "approve", "reject", "answer")
}

func runIDOr(id string) string {
	if id == "" {
		return "RUN_ID"
	}
	return id
}

// editPlan opens the plan as JSON in $VISUAL/$EDITOR and reads it back.
func (d *Deps) editPlan(p *SkillPlan) (*SkillPlan, error) {
	editor := strings.TrimSpace(d.Editor)
	for _, k := range []string{"VISUAL", "EDITOR"} {
		if editor == "" {
			editor = strings.TrimSpace(d.Env(k))
		}
	}
	if editor == "" {
		editor = "vi"
	}
	dir, err := os.MkdirTemp("", "lppctl-plan-")
	if err != nil {
		return nil, fmt.Errorf("cannot edit the plan: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "plan.json")
	b, _ := json.MarshalIndent(p, "", "  ")
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return nil, fmt.Errorf("cannot edit the plan: %w", err)
	}
	fields := strings.Fields(editor)
	cmd := exec.Command(fields[0], append(fields[1:], path)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("cannot edit the plan: %s: %w", editor, err)
	}
	out, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot edit the plan: %w", err)
	}
	edited, err := ParsePlan(string(out), 0)
	if err != nil {
		return nil, fmt.Errorf("the edited plan is not usable, the plan is unchanged: %w", err)
	}
	return edited, nil
}

func (d *Deps) intervene(ctx context.Context, c *machine.Call) error {
	_, step, err := currentStep(c)
	if err != nil {
		return err
	}
	tx := c.Memory()
	why := stringVar(c, "feedback")
	if why == "" {
		why = "(no evaluator feedback)"
	}
	reason := fmt.Sprintf("step %d needs help (retries %d of %d, replans %d of %d)",
		step.Index, intVar(c, "retries"), intVar(c, "max_retries"), intVar(c, "replans"), intVar(c, "max_replans"))
	if n, most := intVar(c, "loop_count"), intVar(c, "max_loop_count"); most > 0 && n > most {
		reason += fmt.Sprintf("; stuck: still calling tools after %d rounds (max_loop_count %d)", n, most)
	}
	reason += "; last feedback: " + actions.Clip(textx.OneLine(why), 300)
	decide := func(kind, text string) error {
		if err := actions.UpdateStep(c, step.Index, func(o *skills.Outcome) { o.Human = true }); err != nil {
			return err
		}
		switch kind {
		case "skip":
			d.closeStep(c, skills.OutcomeSkipped)
		case "abort":
			d.closeStep(c, skills.OutcomeFail)
		}
		if kind == "guidance" {
			if err := tx.Append(MemGuidance, guidance{Step: step.Index, Text: text}); err != nil {
				return err
			}
			c.Notef("guidance for step %d: %s", step.Index, actions.Clip(textx.OneLine(text), 100))
		} else {
			c.Notef("step %d: %s", step.Index, kind)
		}
		return c.SetVar("decision", kind)
	}
	fromText := func(text string) error {
		switch strings.ToLower(strings.TrimSpace(text)) {
		case "skip", "s":
			return decide("skip", "")
		case "abort", "a":
			return decide("abort", "")
		}
		return decide("guidance", strings.TrimSpace(text))
	}
	if in := c.Input; in != nil {
		switch in.Kind {
		case "approve":
			return decide("skip", "")
		case "reject":
			return decide("abort", "")
		case "answer":
			if strings.TrimSpace(in.Text) == "" {
				return decide("skip", "")
			}
			return fromText(in.Text)
		}
		return fmt.Errorf("cannot use the answer %q: answer with guidance (or skip / abort), approve to skip, reject to abort", in.Kind)
	}
	fmt.Fprintf(d.Output(), "\nHuman intervention: %s\n", reason)
	for {
		line, ok, err := d.Ask(ctx, "[g]ive guidance and retry the step, [s]kip the step, or [a]bort the run: ")
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch strings.ToLower(line) {
		case "g", "guidance":
			text, ok, err := d.Ask(ctx, "Guidance for the step: ")
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			if text == "" {
				continue
			}
			return decide("guidance", text)
		case "s", "skip":
			return decide("skip", "")
		case "a", "abort":
			return decide("abort", "")
		case "", "?", "h", "help":
			fmt.Fprintln(d.Output(), "g: type guidance that is added to the step's instruction, then the step starts again; s: leave the step uncommitted and go on; a: stop the run. Anything else you type is taken as guidance.")
			continue
		default:
			return decide("guidance", line)
		}
	}
	if o := actions.StepOutcome(c); o != nil && o.Step == step.Index {
		o.Human = true
		d.endStep(c, o, skills.OutcomeWaiting)
	}
	hint := fmt.Sprintf("%s — retry with guidance: lppctl resume %s --answer 'GUIDANCE'; skip the step: --answer skip (or --approve); abort: --reject", reason, runIDOr(c.RunID))
	return machine.Pause("intervention", resumeHint(c.RunID, hint), "answer", "approve", "reject")
}

func (d *Deps) feedback(ctx context.Context, c *machine.Call) error {
	d.closeStep(c, skills.OutcomeSkipped) // left open by the SKIP_STEP event on the last step
	var text string
	switch {
	case c.Input != nil && c.Input.Kind == "answer":
		text = c.Input.Text
	case d.Feedback != "":
		text = d.Feedback
	default:
		line, ok, err := d.Ask(ctx, "\nFeedback on this run for the skill's Human Feedback (empty line to skip): ")
		if err != nil {
			return err
		}
		if !ok {
			c.Notef("no feedback asked (no terminal; give it with --feedback TEXT)")
			return nil
		}
		text = line
	}
	if strings.TrimSpace(text) == "" {
		c.Notef("no feedback given")
		return nil
	}
	if err := skills.AppendFeedback(d.SkillsMD(), d.EntryID(c.RunID, c.Seq+1), d.NowUTC(), text); err != nil {
		return fmt.Errorf("cannot record the feedback: %w", err)
	}
	crashPoint("skillsmd-after-append")
	c.Notef("feedback → %s", d.RelToRoot(d.SkillsMD()))
	return nil
}

// countSteps says "1 step" or "N steps".
func countSteps(n int) string {
	if n == 1 {
		return "1 step"
	}
	return fmt.Sprintf("%d steps", n)
}
