package machine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// o.k.j reads a key of a value nothing types: with o = {"k": 1} expr
// cannot fetch j from an int, and lpp's evaluator fails the same way, so
// the gate is false in lpp (lpp-format §8).
const guardErrorsSpec = `lpp: 1
name: ge
context:
  o: {type: map, default: {"k": 1}}
initial: ask
states:
  ask:
    on:
      GO:
        - {to: bad, when: 'o?.k?.j == 1'}
        - {to: good}
  auto:
    next:
      - {to: bad, when: 'o?.k?.j == 1'}
      - {to: good}
  bad: {final: true}
  good: {final: true}
events:
  GO:
`

// guard_errors: as_false takes a guard that cannot be evaluated as false,
// with a warning on the step, in an event's transitions and in a next:
// list; without it (or with fail) the run stops, failed, as before.
func TestAGuardThatCannotBeEvaluatedIsFalseOnlyWhenTheSpecSaysSo(t *testing.T) {
	const note = `guard "o?.k?.j == 1" of event "GO" in state "ask" is false: it cannot be evaluated (cannot fetch j from int (1:7)), and guard_errors: as_false takes it as false`
	for _, tt := range []struct {
		name, extra, initial, err, note string
	}{
		{"an event's guard stops the run by default", "", "ask", `cannot evaluate guard "o?.k?.j == 1" of event "GO" in state "ask": cannot fetch j from int (1:7)`, ""},
		{"an event's guard stops the run with fail", "guard_errors: fail\n", "ask", `cannot evaluate guard "o?.k?.j == 1" of event "GO" in state "ask"`, ""},
		{"an event's guard is false with as_false", "guard_errors: as_false\n", "ask", "", note},
		{"a next guard stops the run by default", "", "auto", `cannot evaluate a guard of state "auto"`, ""},
		{"a next guard is false with as_false", "guard_errors: as_false\n", "auto", "",
			`guard "o?.k?.j == 1" in state "auto" is false: it cannot be evaluated (cannot fetch j from int (1:7)), and guard_errors: as_false takes it as false`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := guardErrorsSpec + tt.extra
			if tt.initial != "ask" {
				src = src[:len("lpp: 1\nname: ge\ncontext:\n  o: {type: map, default: {\"k\": 1}}\n")] + "initial: auto\n" + src[len("lpp: 1\nname: ge\ncontext:\n  o: {type: map, default: {\"k\": 1}}\ninitial: ask\n"):]
			}
			m := compileSpec(t, src, nil)
			rec := &recorder{}
			r, _ := m.NewRun(nil, machine.WithObserver(rec))
			err := r.Run(context.Background())
			if tt.initial == "ask" {
				_, ok := machine.AsPause(err)
				require.True(t, ok, "want a pause for GO: %v", err)
				err = r.FireEvent(context.Background(), "GO", nil)
				if err == nil {
					err = r.Run(context.Background())
				}
			}
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				require.Equal(t, machine.StatusFailed, r.Status())
				return
			}
			require.NoError(t, err)
			require.Equal(t, "good", r.State())
			var notes []mspec.Note
			for _, rc := range rec.recs {
				notes = append(notes, rc.Notes...)
			}
			require.Equal(t, []mspec.Note{{Text: tt.note, Severity: mspec.NoteWarning}}, notes)
		})
	}
}

func TestGuardErrorsTakesFailOrAsFalse(t *testing.T) {
	_, diags := mspec.Parse("ge.yaml", []byte(guardErrorsSpec+"guard_errors: false\n"))
	require.True(t, diags.HasErrors())
	require.Contains(t, diags.Err().Error(), `ge.yaml:20:15: error: guard_errors must be fail or as_false, not "false"`)
}
