package actions

import (
	"fmt"
	"maps"
	"strings"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// templateData is what a general action's templates render with: the
// context variables and, as .event, the event that entered the state
// (.event.name, .event.payload.FIELD). A spec that declares a context
// variable named event keeps reading its variable there.
func templateData(c *machine.Call) map[string]any {
	data := c.Vars()
	spec := c.Spec()
	if spec.Var(mspec.VarEvent) == nil {
		name, payload := c.Event()
		data[mspec.VarEvent] = eventData(spec, c.State, name, payload)
	}
	return data
}

// eventData is .event for a state's templates: the event's name ("" when
// the state was entered otherwise) and its payload, holding every field
// that an event entering the state declares (its default when the event
// did not carry it), so that a template renders whichever way the state
// was entered and validation can check it the same way.
func eventData(spec *mspec.Spec, state, name string, payload map[string]any) map[string]any {
	full := map[string]any{}
	for _, f := range entryFields(spec, state) {
		full[f.Name] = f.Default
		if full[f.Name] == nil {
			full[f.Name] = f.Type.Zero()
		}
	}
	maps.Copy(full, payload)
	return map[string]any{"name": name, "payload": full}
}

// entryFields returns the payload fields of the events that can enter
// state, in event then file order (the first field of a name wins).
func entryFields(spec *mspec.Spec, state string) []*mspec.PayloadField {
	var out []*mspec.PayloadField
	seen := map[string]bool{}
	for _, ev := range spec.EventsInto(state) {
		decl := spec.EventDecl(ev)
		if decl == nil {
			continue
		}
		for _, f := range decl.Payload {
			if !seen[f.Name] {
				seen[f.Name] = true
				out = append(out, f)
			}
		}
	}
	return out
}

func fieldNames(fields []*mspec.PayloadField) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Name
	}
	return out
}

// describeEntryEvents says which events enter state and what their payloads
// hold, for validation hints: "events entering state answer: REPLY {text:
// string}, CLOSE".
func describeEntryEvents(spec *mspec.Spec, state string) string {
	names := spec.EventsInto(state)
	if len(names) == 0 {
		return fmt.Sprintf("no event enters state %q, so its templates see .event.name \"\" and an empty .event.payload", state)
	}
	parts := make([]string, len(names))
	for i, ev := range names {
		parts[i] = ev
		if decl := spec.EventDecl(ev); decl.HasPayload() {
			fields := make([]string, len(decl.Payload))
			for j, f := range decl.Payload {
				fields[j] = f.Name + ": " + string(f.Type)
			}
			parts[i] += " {" + strings.Join(fields, ", ") + "}"
		}
	}
	return fmt.Sprintf("events entering state %q: %s", state, strings.Join(parts, ", "))
}
