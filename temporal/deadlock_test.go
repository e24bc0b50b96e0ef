package temporal_test

import (
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"

	"github.com/lppctl/lppctl/temporal"
)

// testDeadlockTimeout is the deadlock detection of the tests' workflow
// environments. Workers run with temporal.DeadlockTimeout (10 s); under the
// race detector on a loaded two-core CI machine a workflow task of the
// scale tests has taken longer than that between yields, and what those
// tests check is the run's result, not the machine's speed.
const testDeadlockTimeout = 6 * temporal.DeadlockTimeout

// replayerOptions are the options of the tests' replayers: dc (nil: the
// default converter), and no deadlock detection (the SDK's default is one
// second between yields, which a replay under -race on a loaded machine
// can exceed; what a replay test checks is determinism).
func replayerOptions(dc converter.DataConverter) worker.WorkflowReplayerOptions {
	return worker.WorkflowReplayerOptions{DataConverter: dc, DisableDeadlockDetection: true}
}
