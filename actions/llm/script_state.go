package llm

import (
	"errors"
	"fmt"
)

// A scripted reply answers either one of the Skills Agent's roles (role:,
// optionally step:) or the llm.generate calls of one spec state (state:):
//
//	replies:
//	  - state: summarise            # the first call made in state summarise
//	    text: '{"summary": "..."}'
//	  - state: summarise            # the second (a repair, or the next visit)
//	    text: '{"summary": "shorter"}'
//	    repeat: true
//
// A state's replies are served in file order, as a role's are: the n-th call
// made in the state during the run (Request.Turn) gets the n-th of them.

// checkState reports a reply that names a state and also a role or a step.
func (r *ScriptReply) checkState() error {
	if r.State == "" {
		return nil
	}
	if r.Role != "" {
		return errors.New("give either role: (the agent's planner, optimizer, evaluator or teacher) or state: (an llm.generate state), not both")
	}
	if r.Step != 0 {
		return errors.New("step: goes with role:; a state: reply answers the calls of that state in order")
	}
	return nil
}

// answers reports whether the reply is a candidate for req.
func (r *ScriptReply) answers(req Request) bool {
	if req.State != "" || r.State != "" {
		return r.State == req.State
	}
	return r.Role == req.Agent && (r.Step == 0 || r.Step == req.Step)
}

// where names the caller of req in the scripted model's messages.
func (req Request) where() string {
	switch {
	case req.State != "":
		return fmt.Sprintf("state %q", req.State)
	case req.Step > 0:
		return fmt.Sprintf("%s at step %d", req.Agent, req.Step)
	}
	return req.Agent
}
