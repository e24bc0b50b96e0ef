package actions

// The open outcome of the current step in run memory, which every model
// call adds its tokens to; the Skills Agent's actions open and close it
// (agent/outcome.go).

import (
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/skills"
)

// MemStepOutcome is the run memory slot (value: a skills.Outcome) of the
// current step: the library skills injected into its prompts, its FAILs,
// tokens and whether a person was asked. memory.prepare_step opens it;
// memory.commit_step (PASS), human.intervene (skip, abort) and agent.abort
// close it, writing it to the skill library's outcome log (see
// skills.OutcomesPath) when the library file exists. Being run memory, it
// is journaled with the transition that changed it, so a resumed run
// neither loses nor double-counts a FAIL or a token; the log line written by
// an action that re-runs on resume has the same id and replaces itself.
const MemStepOutcome = "step_outcome"

// StepOutcome returns the open outcome of the current step (nil when none).
func StepOutcome(c *machine.Call) *skills.Outcome {
	var o skills.Outcome
	if ok, err := c.Memory().Get(MemStepOutcome, &o); err != nil || !ok || o.ID == "" {
		return nil
	}
	return &o
}

// UpdateStep changes the open outcome of step with fn (no outcome open for
// that step: nothing happens).
func UpdateStep(c *machine.Call, step int, fn func(o *skills.Outcome)) error {
	o := StepOutcome(c)
	if o == nil || o.Step != step {
		return nil
	}
	fn(o)
	return c.Memory().Put(MemStepOutcome, o)
}

// stepTokens adds a model call's tokens to the open outcome of step.
func stepTokens(c *machine.Call, step, tokens int) error {
	if step <= 0 || tokens <= 0 {
		return nil
	}
	return UpdateStep(c, step, func(o *skills.Outcome) { o.Tokens += tokens })
}
