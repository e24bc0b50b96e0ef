package machine

import (
	"fmt"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"maps"
	"slices"
)

// Checkpoint is where a quiet run stands between two steps (Run.Quiet):
// enough to continue it without its records. A run restored from it
// (Machine.Restore) stands where one rebuilt from the records (Resume)
// does.
type Checkpoint struct {
	State     string         `json:"state"`
	Seq       int            `json:"seq"`
	Vars      map[string]any `json:"vars"` // the context variables
	LastError string         `json:"last_error,omitempty"`
	Memory    *Memory        `json:"memory"`
	Waiting   bool           `json:"waiting,omitempty"` // the state's action ran: it waits for an event
	// Event and Payload name the event that entered the state, if one did.
	Event   string         `json:"event,omitempty"`
	Payload map[string]any `json:"payload,omitempty"`
	// Path is the run's recent states (for naming cycles in messages).
	Path []string `json:"path,omitempty"`
}

// Checkpoint returns where the run stands; it is an error while events
// wait to be taken (they would be lost) or when the run is not running.
func (r *Run) Checkpoint() (*Checkpoint, error) {
	if !r.Quiet() {
		return nil, fmt.Errorf("cannot checkpoint run %s: events wait to be taken", r.id)
	}
	if r.status != StatusRunning {
		return nil, fmt.Errorf("cannot checkpoint run %s: it is %s", r.id, r.status)
	}
	cp := &Checkpoint{State: r.State(), Seq: r.seq, Vars: r.Vars(), Memory: r.mem.Clone(), Waiting: r.waiting, Path: slices.Clone(r.path)}
	for k, v := range cp.Vars {
		cp.Vars[k] = CloneValue(v)
	}
	cp.LastError, _ = r.env[mspec.VarLastError].(string)
	if r.trigger != nil {
		cp.Event, cp.Payload = r.trigger.name, maps.Clone(r.trigger.payload)
	}
	return cp, nil
}

// Restore continues a run from a checkpoint (values are converted to the
// variables' types, as NewRun converts them).
func (m *Machine) Restore(cp *Checkpoint, opts ...RunOption) (*Run, error) {
	if m.spec.State(cp.State) == nil {
		return nil, fmt.Errorf("cannot restore the run: the spec has no state %q", cp.State)
	}
	r := m.newRun(cp.State, opts)
	for _, name := range slices.Sorted(maps.Keys(cp.Vars)) {
		if name == mspec.VarState || name == mspec.VarLastError {
			continue
		}
		if err := r.setVar(name, CloneValue(cp.Vars[name])); err != nil {
			return nil, fmt.Errorf("cannot restore the run: %w", err)
		}
	}
	r.env[mspec.VarLastError] = cp.LastError
	r.seq = cp.Seq
	if cp.Memory != nil {
		r.mem = cp.Memory.Clone()
	}
	r.waiting = cp.Waiting
	if cp.Event != "" {
		r.trigger = &delivery{name: cp.Event, payload: cp.Payload}
	}
	if len(cp.Path) > 0 {
		r.path = slices.Clone(cp.Path)
	}
	return r, nil
}
