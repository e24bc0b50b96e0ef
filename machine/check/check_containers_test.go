package check_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/internal/spectest"
	"github.com/lppctl/lppctl/machine/spec"
)

// A list or a map an action writes (a model's JSON reply) holds what the
// spec looks for in it for some reply: the check gives it a value where the
// guard holds, so the state behind the guard is reached and the defect
// seeded there (a state whose only guard is false) is found, with a
// counterexample that replays: the run, given the value the counterexample
// wrote, fails in that state. Before, a list took only [] and ["item"], a
// map {} and {"key": "value"}: the state was reported unreachable (a false
// alarm on a correct spec) and its deadlock missed.
func TestAListOrMapAnActionWritesTakesTheItemsAndKeysTheSpecReads(t *testing.T) {
	tests := []struct{ name, typ, guard string }{
		{"an item looked for with in", "list", `"urgent" in x`},
		{"a length compared", "list", "len(x) > 2"},
		{"an item at an index", "list", `x[0] == "a"`},
		{"the first item", "list", "first(x) == 3"},
		{"an item and a length together", "list", `len(x) >= 2 && "stop" in x`},
		{"a key compared", "map", `x.priority == "high"`},
		{"a key compared through ?. and []", "map", `x?.level == 2 || x["tier"] == "gold"`},
		{"a key looked for with in", "map", `"owner" in x`},
		{"two keys together", "map", `x.a == "1" && x.b == "2"`},
		{"a key read as a condition (L++'s truthiness)", "map", `x != nil && (let v = x?.valid; v != nil && v != false)`},
		{"a key negated", "map", `x.ok != nil && !x.ok`},
		{"the length of a key's list", "map", "len(x.steps) > 0"},
		{"the number of keys", "map", "len(x) >= 3"},
		{"the number of keys through keys()", "map", "len(keys(x)) >= 3"},
		{"a key looked for in keys()", "map", `"alpha" in keys(x)`},
		{"the first key", "map", `len(x) > 0 && keys(x)[0] == "a"`},
		{"the first key through first()", "map", `len(x) > 0 && first(keys(x)) == "b"`},
		{"a value looked for in values()", "map", `"v" in values(x)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := `lpp: 1
name: containers
context:
  x: {type: ` + tt.typ + `}
initial: a
states:
  a:
    do: fetch
    next:
      - {to: hit, when: '` + tt.guard + `'}
      - {to: done}
  hit:
    do: noop
    next:
      - {to: done, when: 'x == nil'}
  done: {final: true}
`
			var write any
			reg := spectest.Registry()
			reg.MustRegister(machine.Action{Name: "fetch",
				Run: func(_ context.Context, c *machine.Call) error { return c.SetVar("x", write) },
				WritesFor: func(map[string]any) []machine.VarSpec {
					return []machine.VarSpec{{Name: "x", Type: spec.TypeAny}}
				}})
			m := spectest.Compile(t, src, reg)
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			require.Equal(t, check.Pass, r.Property(check.PropReachable).Verdict, r.Property(check.PropReachable).Message)
			dl := r.Property(check.PropDeadlock)
			require.Equal(t, check.Fail, dl.Verdict)
			require.Contains(t, dl.Message, `state "hit" is stuck`)
			require.NotNil(t, dl.Trace)
			require.Len(t, dl.Trace.Steps, 2)
			require.Equal(t, "hit", dl.Trace.Steps[0].To)

			write = dl.Trace.Steps[0].Wrote["x"] // replay: the action writes what the counterexample says
			run, err := m.NewRun(nil)
			require.NoError(t, err)
			err = run.Run(context.Background())
			require.ErrorContains(t, err, `no transition holds in state "hit"`)
		})
	}
}

// An event's list field stored into a variable takes the variable's values
// padded to the lengths the field's len is compared with: a state entered
// on `len(event.payload.items) >= 3` and left on `"stop" in items` is
// reached with ["stop", "item", "item"], and is no longer reported
// unreachable.
func TestAListFieldOfAnEventTakesTheItemsOfTheVariableItIsStoredIn(t *testing.T) {
	src := `lpp: 1
name: payloadlist
context:
  items: {type: list, default: []}
initial: idle
states:
  idle:
    on:
      ADD:
        - {to: full, when: len(event.payload.items) >= 3, set: {items: event.payload.items}}
        - {to: idle}
  full:
    do: noop
    next:
      - {to: done, when: '"stop" in items'}
  done: {final: true}
events:
  ADD:
    payload:
      items: list
`
	m := spectest.Compile(t, src, spectest.Registry())
	r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
	require.Equal(t, check.Pass, r.Property(check.PropReachable).Verdict, r.Property(check.PropReachable).Message)
	require.Equal(t, check.Fail, r.Property(check.PropDeadlock).Verdict)
}

// A counterexample's step that an event from outside takes gives the event
// and its payload as data (TraceStep.Event, Payload: `--json`'s "event"
// and "payload"), so that a program replays it as lppctl run --event
// --payload does; before, the payload was only in the step's text ("via").
func TestAStepAnEventFromOutsideTakesGivesTheEventAndItsPayloadToReplay(t *testing.T) {
	m := spectest.Compile(t, `lpp: 1
name: replay
context:
  level: {type: string, default: ""}
initial: idle
states:
  idle:
    on:
      TICKET:
        - {to: urgent, when: 'event.payload.meta.priority == "high" && len(event.payload.tags) > 1'}
        - {to: done}
  urgent:
    do: noop
    next:
      - {to: done, when: 'level != ""'}
  done: {final: true}
events:
  TICKET:
    payload: {meta: map, tags: list, note: {type: string, default: "n"}}
`, spectest.Registry())
	r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
	dl := r.Property(check.PropDeadlock)
	require.Equal(t, check.Fail, dl.Verdict)
	require.Len(t, dl.Trace.Steps, 2)
	step := dl.Trace.Steps[0]
	require.Equal(t, "TICKET", step.Event)
	require.Equal(t, map[string]any{"meta": map[string]any{"priority": "high"}, "tags": []any{"item", "item"}, "note": ""}, step.Payload)
	require.Empty(t, dl.Trace.Steps[1].Event)

	run, err := m.NewRun(nil)
	require.NoError(t, err)
	require.NoError(t, run.SendEvent(step.Event, step.Payload))
	require.ErrorContains(t, run.Run(context.Background()), `no transition holds in state "urgent"`)
}
