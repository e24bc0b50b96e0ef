package machine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"sort"
)

// A detached call runs an action away from its run: an engine that keeps
// the interpreter in one process (a Temporal workflow) and runs each action
// in another (an activity) snapshots the Call with Detach, runs the action
// there with RunDetached, and applies what it did back with Call.Apply. Both
// halves are plain data (JSON), so they can cross a network.

// CallInput is what an action sees of its run: a snapshot of a Call.
type CallInput struct {
	RunID   string         `json:"run_id"`
	State   string         `json:"state"`
	Action  string         `json:"action"`
	Seq     int            `json:"seq"`
	Params  map[string]any `json:"params,omitempty"`
	Input   *Input         `json:"input,omitempty"`
	Vars    map[string]any `json:"vars"` // every context variable, state and last_error included
	Memory  *Memory        `json:"memory"`
	Event   string         `json:"event,omitempty"` // the event that entered the state
	Payload map[string]any `json:"payload,omitempty"`
}

// CallOutput is what a successful action did: the variables it set, its
// memory operations in order, its notes and the events it emitted.
type CallOutput struct {
	Vars   map[string]any `json:"vars,omitempty"`
	Memory []MemOp        `json:"memory,omitempty"`
	Notes  []mspec.Note   `json:"notes,omitempty"`
	Events []Emitted      `json:"events,omitempty"`
}

// Emitted is an event an action sent to its own run.
type Emitted struct {
	Name    string         `json:"name"`
	Payload map[string]any `json:"payload,omitempty"`
}

// Detach returns a snapshot of the call, for RunDetached.
func (c *Call) Detach() *CallInput {
	in := &CallInput{
		RunID: c.RunID, State: c.State, Action: c.Action, Seq: c.Seq,
		Params: c.Params, Input: c.Input, Vars: c.Vars(), Memory: c.run.mem,
	}
	in.Event, in.Payload = c.Event()
	return in
}

// Apply stages what a detached run of the call's action did, as if the
// action had done it through c: a variable the spec does not declare, or a
// value of the wrong type, fails (the action then fails).
func (c *Call) Apply(out *CallOutput) error {
	if out == nil {
		return nil
	}
	names := make([]string, 0, len(out.Vars))
	for name := range out.Vars {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := c.SetVar(name, out.Vars[name]); err != nil {
			return err
		}
	}
	if c.mem == nil {
		c.mem = newMemTx(c.run.mem)
	}
	for _, op := range out.Memory {
		if err := c.mem.stage(op); err != nil {
			return err
		}
	}
	c.notes = append(c.notes, out.Notes...)
	for _, e := range out.Events {
		c.EmitEvent(e.Name, e.Payload)
	}
	return nil
}

// RunDetached runs action a of spec on the snapshot in (as Detach made it,
// possibly after a trip through JSON): parameters and variables are first
// converted back to their declared types. It returns what the action did,
// or its error (a *PauseError when it needs a person).
func RunDetached(ctx context.Context, spec *mspec.Spec, a *Action, in *CallInput) (out *CallOutput, err error) {
	r := &Run{m: &Machine{spec: spec}, id: in.RunID, env: make(map[string]any, len(in.Vars)), mem: in.Memory}
	if r.mem == nil {
		r.mem = NewMemory()
	}
	for name, v := range in.Vars {
		if decl := spec.Var(name); decl != nil {
			if cv, err := decl.Type.Coerce(v); err == nil {
				v = cv
			}
		}
		r.env[name] = v
	}
	if in.Event != "" {
		r.trigger = &delivery{name: in.Event, payload: in.Payload}
	}
	params := make(map[string]any, len(in.Params))
	for name, v := range in.Params {
		if p := a.Param(name); p != nil && p.Type != mspec.TypeExpr && p.Type != mspec.TypeExprMap {
			if cv, err := p.Type.Coerce(v); err == nil {
				v = cv
			}
		}
		params[name] = v
	}
	c := &Call{RunID: in.RunID, State: in.State, Action: a.Name, Seq: in.Seq, Params: params, Input: in.Input, run: r}
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("action %q panicked: %v", a.Name, p)
		}
	}()
	if err := a.Run(ctx, c); err != nil {
		return nil, err
	}
	out = &CallOutput{Vars: c.vars, Notes: c.notes}
	if c.mem != nil {
		out.Memory = c.mem.ops
	}
	for _, e := range c.events {
		out.Events = append(out.Events, Emitted{Name: e.name, Payload: e.payload})
	}
	return out, nil
}

// stage applies op to the transaction as the MemoryTx method that made it
// did, keeping its value's bytes as they are.
func (t *memTx) stage(op MemOp) error {
	switch op.Op {
	case OpPut:
		t.writable(op.Key).Value = op.Value
	case OpAppend:
		s := t.writable(op.Key)
		s.Items = append(s.Items, op.Value)
	case OpClear:
		t.Clear(op.Key)
		return nil
	case OpDelete:
		t.Delete(op.Key)
		return nil
	default:
		return fmt.Errorf("cannot apply memory operation %q to %q: unknown operation", op.Op, op.Key)
	}
	t.ops = append(t.ops, op)
	return nil
}

// UnmarshalJSON decodes a CallInput keeping numbers as a local run has
// them: an integer is an int, any other number a float64.
func (in *CallInput) UnmarshalJSON(b []byte) error {
	type plain CallInput
	var p plain
	if err := decodeNumbers(b, &p); err != nil {
		return err
	}
	numberMap(p.Params)
	numberMap(p.Vars)
	numberMap(p.Payload)
	*in = CallInput(p)
	return nil
}

// UnmarshalJSON decodes a CallOutput as CallInput's does.
func (out *CallOutput) UnmarshalJSON(b []byte) error {
	type plain CallOutput
	var p plain
	if err := decodeNumbers(b, &p); err != nil {
		return err
	}
	numberMap(p.Vars)
	for _, e := range p.Events {
		numberMap(e.Payload)
	}
	*out = CallOutput(p)
	return nil
}

func decodeNumbers(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

func numberMap(m map[string]any) {
	mspec.NormalizeJSON(m)
}
