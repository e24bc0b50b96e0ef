package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// queuedEvent is one event given on the command line (--event NAME, with
// the --payload JSON of the same rank).
type queuedEvent struct {
	name    string
	payload map[string]any
}

// eventArgs pairs `run`'s --event and --payload flags: the i-th --payload
// goes with the i-th --event; an event without one carries no payload.
func eventArgs(c *cli.Context) ([]queuedEvent, error) {
	names, payloads := c.StringSlice("event"), c.StringSlice("payload")
	if len(payloads) > len(names) {
		return nil, usageErrorf("%d --payload for %d --event: the i-th --payload goes with the i-th --event", len(payloads), len(names))
	}
	out := make([]queuedEvent, len(names))
	for i, name := range names {
		if name == "" {
			return nil, usageErrorf("--event needs an event NAME")
		}
		out[i].name = name
		if i < len(payloads) {
			p, err := parsePayload(name, payloads[i])
			if err != nil {
				return nil, err
			}
			out[i].payload = p
		}
	}
	return out, nil
}

// parsePayload decodes a --payload: one JSON object. Numbers are kept
// exact: an integer is an int even beyond a float64's 53 bits.
func parsePayload(event, text string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == io.EOF {
		err = fmt.Errorf("no JSON text")
	}
	if err == nil && dec.More() {
		err = fmt.Errorf("text after the object")
	}
	p, _ := v.(map[string]any)
	if err == nil {
		if key := duplicateKey(text); key != "" {
			return nil, usageErrorf("--payload %s for event %s: key %q is given twice; give each key once", shorten(text, 60), event, key)
		}
	}
	if err == nil && p == nil {
		err = fmt.Errorf("not an object")
		if kind := jsonKind(v); kind != "" {
			err = fmt.Errorf("%s is not an object", kind)
		}
	}
	if err != nil {
		return nil, usageErrorf("--payload %s for event %s: %v; give one JSON object, e.g. --payload '{\"reason\": \"late\"}'", shorten(text, 60), event, err)
	}
	if at, n := mspec.NumberOutOfRange(p, ""); at != "" {
		// It would be +Inf or -Inf: no JSON holds it (a Temporal run's
		// payload could not be sent: "unable to encode"), and a set of it is
		// refused as not a finite number.
		return nil, usageErrorf("--payload %s for event %s: %q is %s, beyond a number's range (±1.8e308); give a smaller one", shorten(text, 60), event, at, n)
	}
	mspec.NormalizeJSON(p)
	return p, nil
}

// duplicateKey returns the path of the first key written twice in one
// object of the JSON text ("team", "meta[0].id"), or "" (encoding/json
// keeps the last silently). text must be valid JSON.
func duplicateKey(text string) string {
	dec := json.NewDecoder(strings.NewReader(text))
	dup, _ := firstDuplicate(dec, "")
	return dup
}

// firstDuplicate reads one JSON value from dec; at names it for messages.
func firstDuplicate(dec *json.Decoder, at string) (string, error) {
	t, err := dec.Token()
	if err != nil {
		return "", err
	}
	switch t {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return "", err
			}
			k, _ := kt.(string)
			path := k
			if at != "" {
				path = at + "." + k
			}
			if seen[k] {
				return path, nil
			}
			seen[k] = true
			if dup, err := firstDuplicate(dec, path); dup != "" || err != nil {
				return dup, err
			}
		}
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if dup, err := firstDuplicate(dec, fmt.Sprintf("%s[%d]", at, i)); dup != "" || err != nil {
				return dup, err
			}
		}
	default:
		return "", nil
	}
	_, err = dec.Token() // the closing delimiter
	return "", err
}

// jsonKind names the kind of a decoded JSON value that is not an object
// ("" for null).
func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a bool"
	}
	return ""
}

// payloadText renders an event's payload for progress output and traces:
// compact JSON, cut to n characters.
func payloadText(payload map[string]any, n int) string {
	s := machine.FormatPayload(payload)
	if s == "" {
		return ""
	}
	return shorten(s, n)
}

// viaText says how a step moved on: the event (and its payload, cut short)
// that moved it, the guard that held, or its Via.
func viaText(rec *machine.Record) string {
	var b bytes.Buffer
	if rec.Event != "" {
		b.WriteString("event " + rec.Event)
		if p := payloadText(rec.Payload, 60); p != "" {
			b.WriteString(" " + p)
		}
	}
	switch {
	case rec.Guard != "":
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("[" + rec.Guard + "]")
	case b.Len() == 0:
		b.WriteString(rec.Via)
	}
	return b.String()
}

// pendingNote says which events queued with `run --event` no state took
// before the run stopped: they are not kept (a stopped run that is not
// completed takes them with resume --event, hint being that command).
func pendingNote(r *machine.Run, hint string) string {
	pending := r.Pending()
	if len(pending) == 0 {
		return ""
	}
	note := fmt.Sprintf("note: no state took the queued event(s) %s before the run stopped; they are dropped", strings.Join(pending, ", "))
	if r.Status() != machine.StatusCompleted {
		note += fmt.Sprintf(" (deliver one with %s --event NAME)", hint)
	}
	return note
}

// queuedMeta is the events queued with `run --event`, as run.json keeps them
// (a resume after a crash queues again those no step took: requeue).
func queuedMeta(events []queuedEvent) []runstore.QueuedEvent {
	if len(events) == 0 {
		return nil
	}
	out := make([]runstore.QueuedEvent, len(events))
	for i, e := range events {
		out[i] = runstore.QueuedEvent{Name: e.name, Payload: e.payload}
	}
	return out
}

// queueAll queues the events of `run --event` in r, each with its rank.
func queueAll(r *machine.Run, events []queuedEvent) error {
	for i, e := range events {
		if err := r.Queue(i+1, e.name, e.payload); err != nil {
			return withCode(exitUsage, fmt.Errorf("--event %s: %w", e.name, err))
		}
	}
	return nil
}

// requeue queues in r (the journal replayed on it) the events `run --event`
// queued that no journaled step took, in order, with their ranks: the run
// stopped before a state took them (killed), and goes on with the same
// queue. Nothing is queued when the run stopped at a clean point since it
// began (they were dropped then, with a note). It returns the notes to
// print: the events queued again, and those a spec changed with --force no
// longer takes (dropped).
func requeue(rc *runstore.Recovery, r *machine.Run) []string {
	events := rc.Run.Meta.Events
	if len(events) == 0 || rc.Log.Stopped() {
		return nil
	}
	var again, notes []string
	for i, e := range events {
		if r.Took(i + 1) {
			continue
		}
		if err := r.Queue(i+1, e.Name, e.Payload); err != nil {
			notes = append(notes, fmt.Sprintf("the queued event %s (--event %d) is dropped: %v", e.Name, i+1, err))
			continue
		}
		again = append(again, e.Name)
	}
	if len(again) > 0 {
		notes = append([]string{fmt.Sprintf("the run stopped before a state took the queued event(s) %s; they are queued again", strings.Join(again, ", "))}, notes...)
	}
	return notes
}
