package machine

import (
	"context"
	"fmt"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"strings"
)

// EventInfo describes an event a waiting run accepts (in a PauseError).
type EventInfo struct {
	Name    string      `json:"name"`
	Payload []FieldInfo `json:"payload,omitempty"`
}

// FieldInfo describes one payload field of an event.
type FieldInfo struct {
	Name     string     `json:"name"`
	Type     mspec.Type `json:"type"`
	Required bool       `json:"required,omitempty"`
}

// PauseEvent is the Kind of the pause of a run whose state waits for an event.
const PauseEvent = "event"

// waitStep is a step in a state that waits: its action ran (and was
// journaled) already. The first pending event that applies moves the run;
// without one, the run pauses until one is delivered (FireEvent).
func (r *Run) waitStep(ctx context.Context, cs *Cstate) error {
	rec := &Record{Seq: r.seq + 1, From: cs.St.Name, Start: r.now()}
	chosen, ev, err := r.pickEvent(cs, nil, rec)
	if err != nil {
		r.status = StatusFailed
		return err
	}
	if chosen == nil {
		p := r.eventPause(cs)
		r.pause, r.status = p, StatusPaused
		return p
	}
	if err := r.take(rec, chosen, ev, nil, true); err != nil {
		return err
	}
	r.pause = nil
	return r.notify(ctx, rec)
}

// eventPause describes what a waiting state accepts, and how to deliver it.
func (r *Run) eventPause(cs *Cstate) *PauseError {
	names := r.m.Accepts(cs.St.Name)
	p := &PauseError{State: cs.St.Name, Kind: PauseEvent, Options: names}
	parts := make([]string, len(names))
	payload := false
	for i, name := range names {
		info := EventInfo{Name: name}
		parts[i] = name
		decl := r.m.spec.EventDecl(name)
		if decl.HasPayload() {
			payload = true
			parts[i] += " {" + describePayload(decl) + "}"
			for _, f := range decl.Payload {
				info.Payload = append(info.Payload, FieldInfo{Name: f.Name, Type: f.Type, Required: f.Required})
			}
		}
		p.Events = append(p.Events, info)
	}
	id := r.id
	if id == "" {
		id = "RUN_ID"
	}
	how := fmt.Sprintf("lppctl resume %s --event NAME", id)
	if payload {
		how += " [--payload JSON]"
	}
	p.Prompt = fmt.Sprintf("waiting for an event: %s; deliver one with: %s", strings.Join(parts, ", "), how)
	return p
}
