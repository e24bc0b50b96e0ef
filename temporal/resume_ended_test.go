package temporal_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/temporal"
)

// An answer that reaches a run after it ended (lppctl resume --approve
// racing lppctl runs cancel, or the run's last step: the CLI's own check
// came before) is refused saying the run has ended and how, as the CLI's
// check says it, not with the server's "workflow execution already
// completed". The race itself cannot be timed in a test: the answer is sent
// straight to a run that has ended, which is what the race leaves.
func TestAnAnswerToARunThatHasEndedSaysSo(t *testing.T) {
	srv := startDevServer(t)

	h := &testHost{root: t.TempDir()}
	rel := writeSpec(t, h.root, "quick.yaml", "lpp: 1\nname: quick\ninitial: a\nstates:\n  a: {do: noop, next: done}\n  done: {final: true}\n")
	codec := dirCodec(t, h.root)
	e := temporal.NewEngine(h, temporal.Options{TaskQueue: "ended", Codec: codec})
	tc, err := temporal.Dial(context.Background(), srv.FrontendHostPort(), "default", nil, codec)
	require.NoError(t, err)
	defer tc.Close()
	for _, w := range e.Workers(tc, 0, temporal.Versioning{Off: true}) {
		require.NoError(t, w.Start())
		defer w.Stop()
	}
	const id = "run-ended"
	require.NoError(t, temporal.StartRun(context.Background(), tc, "ended", startOf(t, h.root, rel, id, nil)))
	require.NoError(t, tc.GetWorkflow(context.Background(), id, "").Get(context.Background(), nil))

	err = temporal.ResumeRun(context.Background(), tc, id, temporal.Resume{Input: &machine.Input{Kind: "approve"}})
	require.EqualError(t, err, "cannot resume run run-ended: it has ended (completed); a run that has ended takes no answer or event")
}
