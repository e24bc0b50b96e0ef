package machine

import "fmt"

// checkBudget tells whether the run may take the step of state cs. The
// budget counts transitions, the moves from one state to the next (an
// event's move included): a run that has made budget of them may still run
// the final state it entered with the last one, but a non-final state would
// need one more transition, so the run stops before its action runs.
func (r *Run) checkBudget(cs *Cstate) error {
	if r.seq < r.budget || cs.St.Final {
		return nil
	}
	c := r.cycle()
	how := "its last states: " + c
	if r.inCycle() {
		how = "it kept cycling " + c
	}
	return fmt.Errorf("%w: the run made %d transitions (its budget) and stands in state %q, which is not final; %s (raise limits.max_transitions or --max-transitions if the run is meant to go on this long)",
		ErrBudget, r.seq, r.State(), how)
}

// inCycle reports whether the run's recent path comes back to its last state.
func (r *Run) inCycle() bool {
	p := r.path
	if len(p) == 0 {
		return false
	}
	for i := len(p) - 2; i >= 0; i-- {
		if p[i] == p[len(p)-1] {
			return true
		}
	}
	return false
}
