package temporal

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// BusyCheck is how often (in steps) an execution asks whether its inline
// steps have taken more than Segment.Busy of the worker's time.
const BusyCheck = 50

// busyClock measures the worker's time an execution spends on steps that
// do not wait: a step during which the workflow's time did not move ran
// in one workflow task, without yielding (an activity, a timer or an
// answer moves it). The time measured is the worker's own, not the
// workflow's: whether it passed the bound is recorded in the history
// (a side effect), so a replay decides as the run did.
type busyClock struct {
	bound time.Duration // 0: not measured (an execution started before)
	spent time.Duration
	wall  time.Time // when the step began, on this worker's clock
	now   time.Time // the workflow's time then
}

// begin notes the start of a step.
func (b *busyClock) begin(ctx workflow.Context) {
	b.wall, b.now = time.Now(), workflow.Now(ctx)
}

// end adds the step's time when it did not wait.
func (b *busyClock) end(ctx workflow.Context) {
	if workflow.Now(ctx).Equal(b.now) {
		b.spent += time.Since(b.wall)
	}
}

// over tells, every BusyCheck steps, whether the execution's inline steps
// took more than the bound: the run then continues as new, so that no
// workflow task (nor the replay of the execution) outlasts its timeout.
func (b *busyClock) over(ctx workflow.Context, step int) bool {
	if b.bound <= 0 || step%BusyCheck != 0 {
		return false
	}
	var over bool
	if err := workflow.SideEffect(ctx, func(workflow.Context) any { return b.spent > b.bound }).Get(&over); err != nil {
		return false
	}
	return over
}
