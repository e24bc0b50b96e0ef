package agent

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/skills"
)

// beginStep opens (or, on a replan or after a person's guidance, continues)
// the outcome of step with the library skills injected into its prompt. An
// outcome still open for another step (it was left by the SKIP_STEP event)
// is closed as skipped.
func (d *Deps) beginStep(c *machine.Call, step int, hits []skills.Hit) error {
	o := actions.StepOutcome(c)
	if o != nil && o.Step != step {
		d.endStep(c, o, skills.OutcomeSkipped)
		o = nil
	}
	if o == nil {
		o = &skills.Outcome{
			ID: d.EntryID(c.RunID, c.Seq+1), Run: d.ResolveRunID(c.RunID), Step: step,
			Folder: d.RelToRoot(d.SkillFolder()), Skills: []skills.Injected{},
		}
	}
	for _, h := range hits {
		i := -1
		for j, s := range o.Skills {
			if s.Name == h.Name {
				i = j
			}
		}
		if i < 0 {
			o.Skills = append(o.Skills, skills.Injected{Name: h.Name, Score: h.Score})
		} else {
			o.Skills[i].Score = max(o.Skills[i].Score, h.Score)
		}
	}
	o.Replans = intVar(c, "replans")
	return c.Memory().Put(actions.MemStepOutcome, o)
}

// closeStep ends the open outcome of the current step, if any, as outcome.
func (d *Deps) closeStep(c *machine.Call, outcome string) {
	if o := actions.StepOutcome(c); o != nil {
		d.endStep(c, o, outcome)
	}
}

// endStep records o as outcome in the library's outcome log and notes it in
// the run; a final outcome (not OutcomeWaiting) closes it. A log that cannot
// be written only warns: the run goes on.
func (d *Deps) endStep(c *machine.Call, o *skills.Outcome, outcome string) {
	o.Outcome = outcome
	if outcome != skills.OutcomeWaiting {
		c.Memory().Delete(actions.MemStepOutcome)
	}
	names := make([]string, len(o.Skills))
	for i, s := range o.Skills {
		names[i] = s.Name
	}
	with := "no library skills"
	if len(names) > 0 {
		with = "library skills " + strings.Join(names, ", ")
	}
	c.Notef("step %d outcome: %s (%s; %d tokens)", o.Step, o.Label(), with, o.Tokens)
	path := d.libraryPath()
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return // no library: the run's notes and memory are the record
	}
	if err := skills.OpenUnchecked(path).RecordOutcome(*o); err != nil {
		c.Warnf("the outcome of step %d is not in the skill statistics: %v", o.Step, err)
		return
	}
	crashPoint("outcome-after-append") // the line is in the log, the transition not yet journaled

}
