package machine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// TestWaitDurationMayBeAnExpression: a duration parameter written as an
// expression validates clean, and the action receives the value's canonical
// text (a backoff without one state per delay).
func TestWaitDurationMayBeAnExpression(t *testing.T) {
	for _, tt := range []struct {
		name, duration, want string
	}{
		{"a literal", "1ms", "1ms"},
		{"a literal with two units", "1m30s", "1m30s"},
		{"a string variable", "delay", "3ms"},
		{"text built from a number", `'string(2 * retries) + "ms"'`, "4ms"},
		{"a duration value", `'duration("1ms") * retries'`, "2ms"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := `
lpp: 1
name: t
context: {retries: {type: int, default: 2}, delay: {type: string, default: 3ms}}
initial: s
states:
  s: {do: probe, with: {duration: ` + tt.duration + `}, next: done}
  done: {final: true}
`
			reg := machine.NewBuiltinRegistry()
			var got string
			reg.MustRegister(machine.Action{
				Name:   "probe",
				Params: []machine.ParamSpec{{Name: "duration", Type: mspec.TypeString, Format: mspec.FormatDuration, Required: true}},
				Run: func(_ context.Context, c *machine.Call) error {
					got = c.String("duration")
					return nil
				},
			})
			spec, diags := mspec.Parse("test.yaml", []byte(src))
			if diags.HasErrors() {
				t.Fatal(diags.Err())
			}
			if diags := validate.Validate(spec, reg); len(diags) > 0 {
				t.Fatalf("validate: %v", diags)
			}
			r, _ := compileSpec(t, src, reg).NewRun(nil)
			if err := r.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("the action received %q, want %q", got, tt.want)
			}
		})
	}
}

// TestWaitDurationExpressionThatIsNotADurationStopsTheRun: the value of a
// duration expression is checked before the action runs, and the error says
// where the expression is written.
func TestWaitDurationExpressionThatIsNotADurationStopsTheRun(t *testing.T) {
	for _, tt := range []struct {
		delay, want string
	}{
		{"3 parsecs", `action failed: wait in state "s": cannot evaluate parameter "duration": test.yaml:7:34: parameter "duration": "3 parsecs" is not a duration like 500ms, 2s or 1m30s (in delay)`},
		{"-2s", `action failed: wait in state "s": cannot evaluate parameter "duration": test.yaml:7:34: parameter "duration": -2s is negative, not a duration like 500ms, 2s or 1m30s (in delay)`},
	} {
		m := compileSpec(t, `
lpp: 1
name: t
context: {delay: string}
initial: s
states:
  s: {do: wait, with: {duration: delay}, next: done}
  done: {final: true}
`, nil)
		r, _ := m.NewRun(map[string]any{"delay": tt.delay})
		err := r.Run(context.Background())
		if err == nil || err.Error() != tt.want {
			t.Errorf("delay %q: err =\n%v\nwant\n%s", tt.delay, err, tt.want)
		}
		if !errors.Is(err, mspec.ErrFormat) {
			t.Errorf("delay %q: errors.Is(err, ErrFormat) = false", tt.delay)
		}
	}
}

// TestRegisterRefusesAFormatOnANonStringParameter: a format describes text.
func TestRegisterRefusesAFormatOnANonStringParameter(t *testing.T) {
	for _, ps := range []machine.ParamSpec{
		{Name: "d", Type: mspec.TypeInt, Format: mspec.FormatDuration},
		{Name: "d", Type: mspec.TypeString, Format: "colour"},
	} {
		err := machine.NewRegistry().Register(machine.Action{Name: "x", Params: []machine.ParamSpec{ps}, Run: func(context.Context, *machine.Call) error { return nil }})
		want := map[mspec.Type]string{
			mspec.TypeInt:    `cannot register action "x": parameter "d" has a format but its type is int, not string`,
			mspec.TypeString: `cannot register action "x": parameter "d": unknown format "colour"`,
		}[ps.Type]
		if err == nil || err.Error() != want {
			t.Errorf("Register(%+v) = %v, want %s", ps, err, want)
		}
	}
}
