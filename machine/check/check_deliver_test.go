package check_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/check/report"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// lppctl run --event queues an event up front, and the run hands it to the
// first state it applies in: a counterexample whose event from outside an
// earlier state of the path also takes does not replay so. Each such step
// says how it replays: queued up front, delivered with lppctl resume when
// the run pauses in a state that waits, or only sent while the action of a
// state that does not wait runs. Before, every step read as one lppctl run
// --event replays, and the run queued so ended in done.
func TestAnEventFromOutsideSaysHowItsCounterexampleReplays(t *testing.T) {
	spec := func(aTakes, bNext string) string {
		return `lpp: 1
name: deliver
context:
  got: int
events:
  GO:
    payload: {v: int}
initial: a
states:
  a:
    on:
      GO: [{to: done, when: '` + aTakes + `'}]
    next: b
  b:
    on:
      GO: [{to: c, set: {got: event.payload.v}}]
` + bNext + `
  c:
    next: [{to: done, when: got != 1}]
  done: {final: true}
`
	}
	cases := []struct {
		name, aTakes, bNext string
		deliver, note, line string
	}{
		{"no earlier state takes it: queued up front", "event.payload.v == 2", "", check.DeliverQueue, "",
			`          events from outside replay with: lppctl run test.yaml --event GO --payload '{"v":1}'`},
		{"an earlier state takes it, the state waits: resume", "event.payload.v == 1", "", check.DeliverResume,
			`state "a" (step 1) would take it from the queue first`,
			`          events from outside replay with: lppctl run test.yaml
            then when the run pauses in "b" (step 2): lppctl resume RUN_ID --event GO --payload '{"v":1}' (not queued up front: state "a" (step 1) would take it from the queue first)`},
		{"an earlier state takes it, the state does not wait and writes nothing: forked where it enters", "event.payload.v == 1", "    next: [{to: done, when: got < 0}, {to: b}]", check.DeliverFork,
			`state "a" (step 1) would take it from the queue first, and "b" does not wait for events`,
			`          events from outside replay with: lppctl run test.yaml
            then for step 2: lppctl runs fork RUN_ID --step 1, then lppctl resume NEW_RUN_ID --event GO --payload '{"v":1}' (NEW_RUN_ID is the run from here on; the event is fired where the run enters "b", whose action writes nothing and which has no set: as the run that had it sent while that action ran; not queued up front: state "a" (step 1) would take it from the queue first, and "b" does not wait for events)`},
		{"an earlier state takes it, the state does not wait and has a set: sent while it runs", "event.payload.v == 1", "    set: {got: got}\n    next: [{to: done, when: got < 0}, {to: b}]", check.DeliverSend,
			`state "a" (step 1) would take it from the queue first, and "b" does not wait for events`,
			`          events from outside replay with: lppctl run test.yaml
            then step 2's event GO replays with no command: it must be sent (Run.SendEvent) while the run is in "b", before its transitions are tried (state "a" (step 1) would take it from the queue first, and "b" does not wait for events)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := spectest.Compile(t, spec(tc.aTakes, tc.bNext), spectest.Registry())
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			r.File = "test.yaml"
			dl := r.Property(check.PropDeadlock)
			require.Equal(t, check.Fail, dl.Verdict)
			require.Len(t, dl.Trace.Steps, 3)
			step := dl.Trace.Steps[1]
			require.Equal(t, "GO", step.Event)
			require.Equal(t, map[string]any{"v": 1}, step.Payload)
			require.Equal(t, tc.deliver, step.Deliver)
			require.Equal(t, tc.note, step.DeliverNote)
			require.Empty(t, dl.Trace.Steps[0].Deliver)
			require.Contains(t, report.Text(r, report.Options{NoTimes: true}), tc.line+"\n")

			// Replayed: queued up front, the event fails in c only when the
			// step says it replays so.
			run, err := m.NewRun(nil)
			require.NoError(t, err)
			require.NoError(t, run.SendEvent(step.Event, step.Payload))
			err = run.Run(context.Background())
			if tc.deliver == check.DeliverQueue {
				require.ErrorContains(t, err, `no transition holds in state "c"`)
				return
			}
			require.NoError(t, err)
			require.Equal(t, "done", run.State(), "state a took the queued event")
			if tc.deliver == check.DeliverResume {
				run, err := m.NewRun(nil)
				require.NoError(t, err)
				require.ErrorContains(t, run.Run(context.Background()), `paused in state "b"`)
				require.Equal(t, "b", run.State())
				err = run.FireEvent(context.Background(), step.Event, step.Payload)
				if err == nil {
					err = run.Run(context.Background())
				}
				require.ErrorContains(t, err, `no transition holds in state "c"`)
			}
			require.False(t, strings.Contains(report.Text(r, report.Options{NoTimes: true}), "--event GO --payload '{\"v\":1}'\n"), "not queued up front")
		})
	}
}
