package temporal

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/lppctl/lppctl/machine/spec"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enums "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"gopkg.in/yaml.v3"
)

// Standing is what the server alone tells of an open run, without a worker
// (a worker answers the progress query: its state, steps, pause, memory):
// the status the workflow's memo gives, the spec it started with, and its
// last action as the history records it.
type Standing struct {
	RunID    string    `json:"run_id"`
	Spec     string    `json:"spec"`
	SpecPath string    `json:"spec_path"`
	SpecHash string    `json:"spec_hash"`
	Status   string    `json:"status"` // running, paused or waiting
	Start    time.Time `json:"start"`
	// LastAction is the last action the run started (nil before its first):
	// the state it ran in, its step, and the context it was given.
	LastAction *LastAction `json:"last_action,omitempty"`
	// Vars are the context the last action was given, else the run's
	// starting values (--var).
	Vars map[string]any `json:"vars"`
}

// LastAction is one action execution as its activity's input records it.
type LastAction struct {
	State  string `json:"state"`
	Action string `json:"action"`
	Step   int    `json:"step"`
}

// StandingOf reads a run's Standing from its workflow's description and
// history (this execution's: a run continued as new starts a new one), its
// payloads decoded with dc (the workers' codec: their blob store).
func StandingOf(ctx context.Context, c client.Client, dc converter.DataConverter, runID string) (*Standing, error) {
	d, err := c.DescribeWorkflowExecution(ctx, runID, "")
	if err != nil {
		return nil, fmt.Errorf("cannot find run %s on Temporal: %w", runID, err)
	}
	info := d.GetWorkflowExecutionInfo()
	s := &Standing{RunID: runID, Status: memoStatus(info.GetMemo()), Start: Begun(info)}
	if s.Status == "" { // a run started by a worker before the memo's status
		s.Status = statusName(info.GetStatus())
	}
	var start, last *commonpb.Payloads
	it := c.GetWorkflowHistory(ctx, runID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("cannot read the history of run %s: %w", runID, err)
		}
		if a := ev.GetWorkflowExecutionStartedEventAttributes(); a != nil && start == nil {
			start = a.GetInput()
		}
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == ActivityName {
			last = a.GetInput()
		}
	}
	var st Start
	if err := dc.FromPayloads(start, &st); err != nil {
		return nil, fmt.Errorf("cannot read the start of run %s: %w", runID, err)
	}
	s.SpecPath, s.SpecHash = st.SpecPath, st.SpecHash
	var named struct {
		Name string `yaml:"name"`
	}
	if yaml.Unmarshal(st.Spec, &named) == nil {
		s.Spec = named.Name
	}
	if len(st.Vars) > 0 {
		if err := decodeJSON(st.Vars, &s.Vars); err != nil {
			return nil, fmt.Errorf("cannot read the start of run %s: its values do not decode: %w", runID, err)
		}
	}
	if last != nil {
		var task ActionTask
		if err := dc.FromPayloads(last, &task); err != nil {
			return nil, fmt.Errorf("cannot read the last action of run %s: %w", runID, err)
		}
		var call struct {
			State  string          `json:"state"`
			Action string          `json:"action"`
			Seq    int             `json:"seq"`
			Vars   json.RawMessage `json:"vars"`
		}
		if err := json.Unmarshal(task.Call, &call); err != nil {
			return nil, fmt.Errorf("cannot read the last action of run %s: %w", runID, err)
		}
		s.LastAction = &LastAction{State: call.State, Action: call.Action, Step: call.Seq}
		if len(call.Vars) > 0 {
			var vars map[string]any
			if err := decodeJSON(call.Vars, &vars); err != nil {
				return nil, fmt.Errorf("cannot read the last action of run %s: its context does not decode: %w", runID, err)
			}
			s.Vars = vars
		}
	}
	for k, v := range s.Vars {
		s.Vars[k] = spec.NormalizeJSON(v)
	}
	return s, nil
}
