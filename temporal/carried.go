package temporal

import (
	"context"
	"encoding/json"
	"fmt"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/spec"
)

// Carried returns where a run stood when its latest execution began, with
// the earlier executions' records: that execution's input (the checkpoint
// and the records' references a continue-as-new carries), read from the
// server through codec, no worker needed. It is where a run stopped that
// was terminated before its latest execution's first workflow task, which
// no worker can replay (its query fails: "Workflow execution closed before
// WorkflowTaskStarted event"). nil for a run's first execution.
func Carried(ctx context.Context, c client.Client, codec *Codec, runID string) (*Progress, error) {
	it := c.GetWorkflowHistory(ctx, runID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return nil, nil
	}
	ev, err := it.Next()
	if err != nil {
		return nil, fmt.Errorf("cannot read how run %s's latest execution began: %w", runID, err)
	}
	attrs := ev.GetWorkflowExecutionStartedEventAttributes()
	if attrs == nil {
		return nil, nil
	}
	var st Start
	if err := codec.DataConverter().FromPayloads(attrs.GetInput(), &st); err != nil {
		return nil, fmt.Errorf("cannot read how run %s's latest execution began: %w", runID, err)
	}
	if st.Carry == nil {
		return nil, nil
	}
	var cp machine.Checkpoint
	if err := decodeJSON(st.Carry.Checkpoint, &cp); err != nil {
		return nil, fmt.Errorf("cannot read where run %s stood: %w", runID, err)
	}
	p := &Progress{RunID: st.RunID, SpecPath: st.SpecPath, SpecHash: st.SpecHash, Status: machine.StatusRunning,
		State: cp.State, Steps: cp.Seq, Vars: cp.Vars, Start: st.Carry.Begun}
	if sp, diags := spec.Parse(st.SpecPath, st.Spec); sp != nil && !diags.HasErrors() {
		p.Spec = sp.Name
	}
	for _, ref := range st.Carry.Segments {
		v, err := codec.resolve(map[string]any{refKey: ref})
		if err != nil {
			return nil, fmt.Errorf("cannot read the steps of run %s: %w", runID, err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		p.Segments = append(p.Segments, b)
	}
	return p, nil
}
