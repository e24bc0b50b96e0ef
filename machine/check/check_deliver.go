package check

import (
	"fmt"
	"slices"
)

// How a counterexample's events from outside replay. `lppctl run --event`
// queues them up front, and the run hands each to the first state it
// applies in (machine/deliver.go): a step that takes an event from outside
// replays so only when no earlier step of the path would have taken it
// (with its payload, after the action did what that step says). Otherwise a
// state that waits for events pauses the run, and `lppctl resume RUN_ID
// --event` delivers it there; a state with `next` does not pause, and only
// a sender while its action runs (Run.SendEvent) gets the event there.

// How TraceStep.Deliver says a step's event from outside replays.
const (
	DeliverQueue  = "queue"  // lppctl run --event, up front
	DeliverResume = "resume" // lppctl resume RUN_ID --event, when the run pauses in From
	DeliverSend   = "send"   // sent while From's action runs (Run.SendEvent): no command replays it
	// DeliverFork: as send, but From's action wrote nothing and From has no
	// set, so firing the event where the run enters From is the same: lppctl
	// runs fork RUN_ID --step N (N: the steps before), then lppctl resume
	// NEW_ID --event, which fires it there without running the action.
	DeliverFork = "fork"
)

// eventOffer is an event from outside a trace step's state could take.
type eventOffer struct {
	ev      string
	payload string // its payload, as givenKey gives it
	outcome string // the action's outcome it follows (outcomeKey)
}

// outcomeKey identifies what the action did on a move: its writes, or its
// failure.
func outcomeKey(mv *move) string {
	if mv.kind == moveError || mv.errVal != "" {
		return "error " + mv.errVal
	}
	return fmt.Sprintf("%#v", mv.outcome)
}

// deliveries sets Deliver (and DeliverNote) on the steps of tr an event
// from outside takes; offered holds, by step, the events from outside the
// step's state could take instead.
func (x *Explorer) deliveries(tr *Trace, offered [][]eventOffer) {
	for k := range tr.Steps {
		s := &tr.Steps[k]
		if s.Event == "" {
			continue
		}
		payload := givenKey(s.Payload)
		first := -1
		for j := range k {
			if slices.ContainsFunc(offered[j], func(o eventOffer) bool { return o.ev == s.Event && o.payload == payload }) {
				first = j
				break
			}
		}
		switch st := x.spec.State(s.From); {
		case first < 0:
			s.Deliver = DeliverQueue
		case st != nil && st.Waits():
			s.Deliver = DeliverResume
			s.DeliverNote = fmt.Sprintf("state %q (step %d) would take it from the queue first", tr.Steps[first].From, first+1)
		case st != nil && len(st.Set) == 0 && len(s.Wrote) == 0 && s.Error == "":
			s.Deliver = DeliverFork
			s.DeliverNote = fmt.Sprintf("state %q (step %d) would take it from the queue first, and %q does not wait for events", tr.Steps[first].From, first+1, s.From)
		default:
			s.Deliver = DeliverSend
			s.DeliverNote = fmt.Sprintf("state %q (step %d) would take it from the queue first, and %q does not wait for events", tr.Steps[first].From, first+1, s.From)
		}
	}
}

// givenKey identifies a payload as TraceStep.Payload gives it (fmt
// prints a map's keys sorted).
func givenKey(p map[string]any) string {
	if len(p) == 0 {
		return ""
	}
	return fmt.Sprint(p)
}
