package machine_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

const anyPayloadSpec = `
lpp: 1
name: anyp
context:
  got: {type: map, nullable: true}
initial: ask
states:
  ask:
    on:
      GO:
        - {to: two, when: event.payload.x == 2}
        - {to: kept, set: {got: '{"x": event.payload.x}'}}
  two: {final: true}
  kept: {final: true}
events:
  GO:
    payload: {x: {type: any, required: false}}
`

// A payload field of type any takes any JSON value, null included (it
// then reads as null), and refuses only what a journal cannot keep.
func TestAnAnyPayloadFieldTakesAnyJSONValue(t *testing.T) {
	for _, tt := range []struct {
		name  string
		x     any
		state string
		got   any
		err   string
	}{
		{"an int", 2, "two", nil, ""},
		{"a JSON number", json.Number("2"), "two", nil, ""},
		{"a float", 2.5, "kept", map[string]any{"x": 2.5}, ""},
		{"a string", "s", "kept", map[string]any{"x": "s"}, ""},
		{"a bool", true, "kept", map[string]any{"x": true}, ""},
		{"null", nil, "kept", map[string]any{"x": nil}, ""},
		{"a nested value", map[string]any{"a": []any{json.Number("1"), "b", nil, map[string]any{}}}, "kept",
			map[string]any{"x": map[string]any{"a": []any{1, "b", nil, map[string]any{}}}}, ""},
		{"a list of strings", []string{"a"}, "kept", map[string]any{"x": []any{"a"}}, ""},
		{"a float that is not finite", []any{math.Inf(1)}, "", nil, `cannot fire event "GO": payload field "x": [0]: +Inf is not a finite number`},
		{"a time", map[string]any{"at": time.Unix(0, 0)}, "", nil, `cannot fire event "GO": payload field "x": .at: `},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := compileSpec(t, anyPayloadSpec, nil)
			r, _ := m.NewRun(nil)
			_, ok := machine.AsPause(r.Run(context.Background()))
			require.True(t, ok, "want a pause for GO")
			err := r.FireEvent(context.Background(), "GO", map[string]any{"x": tt.x})
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.NoError(t, r.Run(context.Background()))
			require.Equal(t, tt.state, r.State())
			require.Equal(t, tt.got, r.Var("got"))
		})
	}
	// The check sends GO with values of every kind: both states are reached.
	rep := check.ModelCheck(context.Background(), compileSpec(t, anyPayloadSpec, nil), check.CheckOptions{})
	p := rep.Property(check.PropReachable)
	require.NotNil(t, p)
	require.Equal(t, check.Pass, p.Verdict, p.Message)
}

// A set that stores an any field into a typed variable fails the run when
// the value has another type, and the check finds that payload.
func TestTheCheckSendsAnAnyFieldValuesOfEveryType(t *testing.T) {
	src := strings.Replace(anyPayloadSpec, "  got: {type: map, nullable: true}", "  got: {type: int, nullable: true}", 1)
	src = strings.Replace(src, `set: {got: '{"x": event.payload.x}'}`, `set: {got: event.payload.x}`, 1)
	rep := check.ModelCheck(context.Background(), compileSpec(t, src, nil), check.CheckOptions{})
	p := rep.Property(check.PropEvaluation)
	require.NotNil(t, p)
	require.Equal(t, check.Fail, p.Verdict)
	require.Contains(t, p.Message, "is not an int")
}

// extra_payload_fields: drop (imported L++ blueprints) leaves out a field no
// event declares, with a warning on the step that takes the event; a spec
// without it refuses the event, naming the field.
func TestUndeclaredPayloadFieldsAreDroppedWithAWarningOnlyWhenTheSpecSaysSo(t *testing.T) {
	const decl = "\nevents:\n  GO:\n    payload: {x: {type: any, required: false}}\n  BARE:\n"
	const body = `lpp: 1
name: drop
context:
  got: {type: map, nullable: true}
initial: ask
states:
  ask:
    on:
      GO: {to: done, set: {got: '{"x": event.payload.x}'}}
      BARE: done
  done: {final: true}
`
	for _, tt := range []struct {
		name, extra, event string
		payload            map[string]any
		err, note          string
		got                any
	}{
		{"refused by default", "", "GO", map[string]any{"x": 1, "y": 2}, `cannot fire event "GO": its payload has no field "y"; did you mean "x"?`, "", nil},
		{"refused when said so", "extra_payload_fields: refuse\n", "GO", map[string]any{"y": 2}, `cannot fire event "GO": its payload has no field "y"; did you mean "x"?`, "", nil},
		{"refused for an event without payload", "", "BARE", map[string]any{"y": 2}, `cannot fire event "BARE": it takes no payload (declare its fields under events: BARE: payload:)`, "", nil},
		{"dropped", "extra_payload_fields: drop\n", "GO", map[string]any{"x": 1, "y": 2, "a": "b"}, "",
			`event GO: payload fields "a", "y" left out: the event does not declare them (extra_payload_fields: drop)`, map[string]any{"x": 1}},
		{"dropped for an event without payload", "extra_payload_fields: drop\n", "BARE", map[string]any{"y": 2}, "",
			`event BARE: payload field "y" left out: the event does not declare it (extra_payload_fields: drop)`, nil},
		{"nothing to drop", "extra_payload_fields: drop\n", "GO", map[string]any{"x": 1}, "", "", map[string]any{"x": 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := compileSpec(t, body+tt.extra+decl, nil)
			rec := &recorder{}
			r, _ := m.NewRun(nil, machine.WithObserver(rec))
			_, ok := machine.AsPause(r.Run(context.Background()))
			require.True(t, ok, "want a pause")
			err := r.FireEvent(context.Background(), tt.event, tt.payload)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.NoError(t, r.Run(context.Background()))
			require.Equal(t, "done", r.State())
			require.Equal(t, tt.got, r.Var("got"))
			var notes []mspec.Note
			for _, rc := range rec.recs {
				if rc.Event == tt.event {
					notes = rc.Notes
					if _, kept := rc.Payload["y"]; kept {
						t.Errorf("the journaled payload keeps the dropped field: %v", rc.Payload)
					}
				}
			}
			if tt.note == "" {
				require.Empty(t, notes)
				return
			}
			require.Equal(t, []mspec.Note{{Text: tt.note, Severity: mspec.NoteWarning}}, notes)
		})
	}
}

// extra_payload_fields takes refuse or drop, and type any is for payload
// fields only.
func TestExtraPayloadFieldsAndTypeAnyAreDecodedStrictly(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"lpp: 1\nname: t\nextra_payload_fields: ignore\ninitial: a\nstates: {a: {final: true}}\n",
			`test.yaml:3:23: extra_payload_fields must be refuse or drop, not "ignore"`},
		{"lpp: 1\nname: t\ncontext: {v: any}\ninitial: a\nstates: {a: {final: true}}\n",
			`test.yaml:3:14: context variable "v" cannot be of type any: only a payload field can`},
		{"lpp: 1\nname: t\ninitial: a\nstates: {a: {final: true}}\nevents:\n  E:\n    payload: {x: {type: anything}}\n",
			`test.yaml:7:25: unknown type "anything" for payload field "x"`},
		{"lpp: 1\nname: t\ninitial: a\nstates: {a: {final: true}}\nevents:\n  E:\n    payload: {x: {type: any, enum: [a]}}\n",
			`test.yaml:7:36: enum is only allowed on string fields, and "x" is any`},
	} {
		_, diags := mspec.Parse("test.yaml", []byte(tt.src))
		require.True(t, diags.HasErrors(), tt.src)
		e := diags.Errors()[0]
		require.Equal(t, tt.want, e.Where()+": "+e.Msg)
	}
}
