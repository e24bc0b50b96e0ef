package machine_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/lppctl/lppctl/machine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An event used whole (`event`, `event.payload`) is a map of its fields'
// names: a map variable takes it (it was refused with Go's name of a struct
// type) and one nested in a literal is stored, and journaled, under the
// payload's names (it was stored with the keys F0, F1). A field read keeps
// its type: `event.payload.n + 1` is an int.
func TestAWholeEventIsAMapOfItsFieldNames(t *testing.T) {
	tests := []struct {
		name, set, want string
	}{
		{name: "the payload into a map", set: `event.payload`, want: `{"n":3,"s":"x"}`},
		{name: "the payload inside a literal", set: `'{"p": event.payload, "k": sort(keys(event.payload))}'`, want: `{"k":["n","s"],"p":{"n":3,"s":"x"}}`},
		{name: "the event itself", set: `event`, want: `{"name":"GO","payload":{"n":3,"s":"x"}}`},
		{name: "a field read keeps its type", set: `'{"next": event.payload.n + 1, "len": len(event.payload)}'`, want: `{"len":2,"next":4}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := `
lpp: 1
name: whole
context:
  got: map
initial: a
events:
  GO:
    payload:
      n: int
      s: string
states:
  a:
    on:
      GO: {to: done, set: {got: ` + tt.set + `}}
  done: {final: true}
`
			m := compileSpec(t, src, machine.NewBuiltinRegistry())
			r, err := m.NewRun(nil)
			require.NoError(t, err)
			require.NoError(t, r.SendEvent("GO", map[string]any{"n": 3, "s": "x"}))
			require.NoError(t, r.Run(context.Background()))
			got, err := json.Marshal(r.Var("got"))
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

// A context variable named event is read as it is outside an event's
// transitions: the whole-event patch took it for the event and gave it as
// a map, so `event == "x"` was refused (mismatched types map and string).
func TestAContextVariableNamedEventIsReadAsItIs(t *testing.T) {
	src := `
lpp: 1
name: evvar
context:
  event: {type: string, default: "x"}
initial: a
states:
  a:
    next:
      - {to: done, when: 'event == "x"', set: {event: 'event + "y"'}}
  done: {final: true}
`
	m := compileSpec(t, src, machine.NewBuiltinRegistry())
	r, err := m.NewRun(nil)
	require.NoError(t, err)
	require.NoError(t, r.Run(context.Background()))
	assert.Equal(t, "done", r.State())
	assert.Equal(t, "xy", r.Var("event"))
}
