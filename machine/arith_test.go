package machine_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TestRunArithmeticThatCannotBeStoredStopsTheRunWhereItIsWritten runs specs
// whose expressions overflow, divide by zero or make a float that is not a
// finite number from context values (constant ones are validation errors):
// each stops the run in the state that evaluated it, with the file position
// of the failing operation and the expression, and records no step for it.
func TestRunArithmeticThatCannotBeStoredStopsTheRunWhereItIsWritten(t *testing.T) {
	for _, tt := range []struct {
		name    string
		spec    string
		want    string
		wantIs  error
		wantVar string // a variable that must keep its value
	}{
		{
			name: "int overflow in a set",
			spec: `
lpp: 1
name: t
context: {n: {type: int, default: 9223372036854775807}}
initial: s
states:
  s: {do: noop, set: {n: n + 1}, next: done}
  done: {final: true}
`,
			want:   `cannot apply set of state "s": test.yaml:7:28: set n: integer overflow: 9223372036854775807 + 1 is out of the int range (in n + 1)`,
			wantIs: mspec.ErrIntOverflow, wantVar: "n",
		},
		{
			name: "int overflow in a multiplication inside a set",
			spec: `
lpp: 1
name: t
context: {n: {type: int, default: 4611686018427387904}, m: {type: int, default: 1}}
initial: s
states:
  s: {do: noop, set: {m: "1 + n * 2"}, next: done}
  done: {final: true}
`,
			want:   `cannot apply set of state "s": test.yaml:7:33: set m: integer overflow: 4611686018427387904 * 2 is out of the int range (in 1 + n * 2)`,
			wantIs: mspec.ErrIntOverflow, wantVar: "m",
		},
		{
			name: "negating the smallest int",
			spec: `
lpp: 1
name: t
context: {n: {type: int, default: -9223372036854775808}}
initial: s
states:
  s: {do: noop, set: {n: -n}, next: done}
  done: {final: true}
`,
			want:   `cannot apply set of state "s": test.yaml:7:26: set n: integer overflow: -(-9223372036854775808) is out of the int range (in -n)`,
			wantIs: mspec.ErrIntOverflow, wantVar: "n",
		},
		{
			name: "modulo by a zero variable",
			spec: `
lpp: 1
name: t
context: {x: {type: int, default: 7}, d: int}
initial: s
states:
  s: {do: noop, set: {x: x % d}, next: done}
  done: {final: true}
`,
			want:   `cannot apply set of state "s": test.yaml:7:28: set x: integer division by zero: 7 % 0 (in x % d)`,
			wantIs: mspec.ErrDivideByZero, wantVar: "x",
		},
		{
			name: "int of an infinite quotient",
			spec: `
lpp: 1
name: t
context: {x: {type: int, default: 1}, d: int}
initial: s
states:
  s: {do: noop, set: {x: int(x / d)}, next: done}
  done: {final: true}
`,
			want:   `cannot apply set of state "s": test.yaml:7:26: set x: int(+Inf): not a finite number (in int(x / d))`,
			wantIs: mspec.ErrNotFinite, wantVar: "x",
		},
		{
			name: "int of a float too large",
			spec: `
lpp: 1
name: t
context: {x: int, f: {type: float, default: 1e30}}
initial: s
states:
  s: {do: noop, set: {x: int(f)}, next: done}
  done: {final: true}
`,
			want:   `cannot apply set of state "s": test.yaml:7:26: set x: integer overflow: int(1e+30) is out of the int range (in int(f))`,
			wantIs: mspec.ErrIntOverflow, wantVar: "x",
		},
		{
			name: "a NaN float",
			spec: `
lpp: 1
name: t
context: {f: float, d: float}
initial: s
states:
  s:
    do: noop
    set: {f: 'f / d'}
    next: done
  done: {final: true}
`,
			want:   "cannot apply set of state \"s\": test.yaml:9:15: set f: the value is NaN, not a finite number; a division by zero or an overflow gives one: guard the operation, e.g. `d == 0 ? 0.0 : x / d` (in f / d)",
			wantIs: mspec.ErrNotFinite, wantVar: "f",
		},
		{
			name: "an infinite float inside a list",
			spec: `
lpp: 1
name: t
context: {l: list, d: float}
initial: s
states:
  s: {do: noop, set: {l: "[1, 2.5 / d]"}, next: done}
  done: {final: true}
`,
			want:   "cannot apply set of state \"s\": test.yaml:7:27: set l: the value holds +Inf, not a finite number; a division by zero or an overflow gives one: guard the operation, e.g. `d == 0 ? 0.0 : x / d` (in [1, 2.5 / d])",
			wantIs: mspec.ErrNotFinite, wantVar: "l",
		},
		{
			name: "a time inside a list, its type known only at run time",
			spec: `
lpp: 1
name: t
context: {l: list}
initial: s
states:
  s: {do: noop, set: {l: "map([1, 2], now())"}, next: done}
  done: {final: true}
`,
			want:   "cannot apply set of state \"s\": test.yaml:7:27: set l: the value holds a time at [0], which the run's journal would store as text, so a resumed run would read a string; store it converted, e.g. now().Format(\"2006-01-02T15:04:05Z07:00\") or now().Unix() (in map([1, 2], now()))",
			wantIs: mspec.ErrTimeInValue, wantVar: "l",
		},
		{
			name: "a duration deep inside a map",
			spec: `
lpp: 1
name: t
context: {m: map}
initial: s
states:
  s: {do: noop, set: {m: '{a: 1, b: [2, duration("1s")]}'}, next: done}
  done: {final: true}
`,
			want:   "cannot apply set of state \"s\": test.yaml:7:27: set m: the value holds a duration at .b[1], which the run's journal would store as a number of nanoseconds, so a resumed run would read an int; store it converted, e.g. string(d) or d.Seconds() (in {a: 1, b: [2, duration(\"1s\")]})",
			wantIs: mspec.ErrTimeInValue, wantVar: "m",
		},
		{
			name: "an overflow in a list item of unknown type",
			spec: `
lpp: 1
name: t
context: {l: {type: list, default: [9223372036854775807]}, n: int}
initial: s
states:
  s: {do: noop, set: {n: "l[0] + 1"}, next: done}
  done: {final: true}
`,
			want:   `cannot apply set of state "s": test.yaml:7:32: set n: integer overflow: 9223372036854775807 + 1 is out of the int range (in l[0] + 1)`,
			wantIs: mspec.ErrIntOverflow, wantVar: "n",
		},
		{
			name: "a guard that overflows",
			spec: `
lpp: 1
name: t
context: {n: {type: int, default: 9223372036854775807}}
initial: s
states:
  s:
    do: noop
    next:
      - {to: done, when: n * 2 > 0}
      - done
  done: {final: true}
`,
			want:   `cannot evaluate a guard of state "s": test.yaml:10:28: guard: integer overflow: 9223372036854775807 * 2 is out of the int range (in n * 2 > 0)`,
			wantIs: mspec.ErrIntOverflow,
		},
		{
			name: "an expression parameter that is not finite",
			spec: `
lpp: 1
name: t
context: {d: float}
initial: s
states:
  s: {do: log, with: {message: ratio, value: 1 / d}, next: done}
  done: {final: true}
`,
			want:   "action failed: log in state \"s\": cannot evaluate parameter \"value\": test.yaml:7:46: parameter \"value\": the value is +Inf, not a finite number; a division by zero or an overflow gives one: guard the operation, e.g. `d == 0 ? 0.0 : x / d` (in 1 / d)",
			wantIs: mspec.ErrNotFinite,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := compileSpec(t, tt.spec, nil)
			steps := 0
			r, err := m.NewRun(nil, machine.WithObserver(machine.ObserverFunc(func(context.Context, *machine.Record) error {
				steps++
				return nil
			})))
			if err != nil {
				t.Fatal(err)
			}
			var before any
			if tt.wantVar != "" {
				before = r.Var(tt.wantVar)
			}
			err = r.Run(context.Background())
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err =\n%v\nwant\n%s", err, tt.want)
			}
			if !errors.Is(err, tt.wantIs) {
				t.Errorf("errors.Is(err, %v) = false", tt.wantIs)
			}
			var ee *machine.EvalError
			if !errors.As(err, &ee) {
				t.Errorf("err is not an *EvalError")
			}
			if r.Status() != machine.StatusFailed || r.State() != "s" || steps != 0 {
				t.Errorf("status %s in %q after %d recorded steps, want failed in \"s\" with none", r.Status(), r.State(), steps)
			}
			if tt.wantVar != "" && !equalValues(r.Var(tt.wantVar), before) {
				t.Errorf("%s = %v after the failed step, want it unchanged (%v)", tt.wantVar, r.Var(tt.wantVar), before)
			}
		})
	}
}

func equalValues(a, b any) bool { return reflect.DeepEqual(a, b) }

// TestRunStoppedByANonFiniteValueResumesAfterTheSpecIsFixed: the journal
// (the records) holds only the steps before the failing one, so a run
// resumed with the fixed spec goes on from the state that failed.
func TestRunStoppedByANonFiniteValueResumesAfterTheSpecIsFixed(t *testing.T) {
	const spec = `
lpp: 1
name: t
context: {f: float, d: float}
initial: a
states:
  a: {do: noop, set: {f: "1.5"}, next: s}
  s: {do: noop, set: {f: %s}, next: done}
  done: {final: true}
`
	broken := compileSpec(t, sprintf(spec, "f / d"), nil)
	var recs []*machine.Record
	keep := machine.WithObserver(machine.ObserverFunc(func(_ context.Context, rec *machine.Record) error {
		recs = append(recs, rec)
		return nil
	}))
	r, _ := broken.NewRun(nil, keep)
	if err := r.Run(context.Background()); !errors.Is(err, mspec.ErrNotFinite) {
		t.Fatalf("err = %v, want ErrNotFinite", err)
	}
	if len(recs) != 1 || recs[0].To != "s" {
		t.Fatalf("records = %d, want the one step a → s", len(recs))
	}
	fixed := compileSpec(t, sprintf(spec, "'d == 0 ? 0.0 : f / d'"), nil)
	r2, err := fixed.Resume(nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	if err := r2.Run(context.Background()); err != nil || r2.Status() != machine.StatusCompleted || r2.Var("f") != 0.0 {
		t.Fatalf("resumed run: err %v, status %s, f = %v", err, r2.Status(), r2.Var("f"))
	}
}

// TestNonFiniteValuesAreRefusedWhereVariablesAreSet: an action's SetVar and
// a --var override cannot store what the journal cannot hold.
func TestNonFiniteValuesAreRefusedWhereVariablesAreSet(t *testing.T) {
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{
		Name:   "nan",
		Writes: []machine.VarSpec{{Name: "f", Type: mspec.TypeFloat}},
		Run:    func(_ context.Context, c *machine.Call) error { return c.SetVar("f", math.NaN()) },
	})
	m := compileSpec(t, `
lpp: 1
name: t
context: {f: float}
initial: s
states:
  s: {do: nan, next: done}
  done: {final: true}
`, reg)
	r, _ := m.NewRun(nil)
	want := `action failed: nan in state "s": cannot set "f": NaN is not a finite number`
	if err := r.Run(context.Background()); err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	if _, err := m.NewRun(map[string]any{"f": math.Inf(-1)}); err == nil || err.Error() != `cannot set "f": -Inf is not a finite number` {
		t.Errorf("NewRun with f = -Inf: err = %v", err)
	}
}

// TestTimesInsideListsAreRefusedWhereVariablesAreSet: an action's SetVar
// cannot store a time inside a list either.
func TestTimesInsideListsAreRefusedWhereVariablesAreSet(t *testing.T) {
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{
		Name:   "stamp",
		Writes: []machine.VarSpec{{Name: "l", Type: mspec.TypeList}},
		Run:    func(_ context.Context, c *machine.Call) error { return c.SetVar("l", []any{"a", time.Unix(0, 0)}) },
	})
	m := compileSpec(t, `
lpp: 1
name: t
context: {l: list}
initial: s
states:
  s: {do: stamp, next: done}
  done: {final: true}
`, reg)
	r, _ := m.NewRun(nil)
	err := r.Run(context.Background())
	want := `action failed: stamp in state "s": cannot set "l": it holds a time at [1] (a time value inside a list or map), which the run's journal would store as text`
	if err == nil || err.Error() != want || !errors.Is(err, mspec.ErrTimeInValue) {
		t.Errorf("err = %v, want %s", err, want)
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
