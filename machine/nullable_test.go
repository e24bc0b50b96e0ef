package machine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

const nullableSpec = `
lpp: 1
name: nullable
context:
  target: {type: string, nullable: true}
  level: {type: int, nullable: true, default: null}
  tries: {type: int, nullable: true, default: 2}
initial: start
states:
  start:
    next:
      - {to: empty, when: target == nil && level == nil}
      - to: done
  empty: {final: true}
  done: {final: true}
`

func TestNullableVariablesStartWithNoValue(t *testing.T) {
	spec, diags := mspec.Parse("n.yaml", []byte(nullableSpec))
	if diags.HasErrors() {
		t.Fatalf("parse: %v", diags.Err())
	}
	for _, tt := range []struct {
		name string
		want any
	}{{"target", nil}, {"level", nil}, {"tries", 2}} {
		v := spec.Var(tt.name)
		if !v.Nullable || v.Default != tt.want {
			t.Errorf("%s: nullable %v, default %v; want nullable with default %v", tt.name, v.Nullable, v.Default, tt.want)
		}
	}
	if diags := validate.Validate(spec, machine.NewBuiltinRegistry()); diags.HasErrors() {
		t.Fatalf("validate: %v", diags.Err())
	}
	m := compileSpec(t, nullableSpec, nil)
	run, err := m.NewRun(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if run.State() != "empty" {
		t.Errorf("the run ended in %s; want empty (target == nil holds at the start)", run.State())
	}
	run, err = m.NewRun(map[string]any{"target": "x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if run.State() != "done" {
		t.Errorf("with a target the run ended in %s; want done", run.State())
	}
}

func TestNullableDecodeErrors(t *testing.T) {
	tests := []struct {
		name, ctx string
		want      string
	}{
		{"null default needs nullable", `x: {type: string, default: null}`,
			`n.yaml:4:30: error: default of "x": null is not a string; declare it ` + "`nullable: true`" + ` to let it start with no value`},
		{"nullable is a bool", `x: {type: string, nullable: "yes"}`,
			`n.yaml:4:31: error: nullable of "x" must be true or false, not "yes"; write true: yes, y and on are text in the YAML a spec is read as (1.2), not booleans`},
		{"nullable false keeps the zero value and refuses null", `x: {type: int, nullable: false, default: null}`,
			`n.yaml:4:44: error: default of "x": null is not an int; declare it ` + "`nullable: true`" + ` to let it start with no value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "lpp: 1\nname: n\ncontext:\n  " + tt.ctx + "\ninitial: a\nstates:\n  a: {final: true}\n"
			_, diags := mspec.Parse("n.yaml", []byte(src))
			var got []string
			for _, d := range diags {
				got = append(got, d.String())
			}
			if strings.Join(got, "\n") != tt.want {
				t.Fatalf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), tt.want)
			}
		})
	}
}

func TestNullableGuardsAreTypeChecked(t *testing.T) {
	src := strings.Replace(nullableSpec, "target == nil && level == nil", `target == nil && level == "high"`, 1)
	spec, _ := mspec.Parse("n.yaml", []byte(src))
	diags := validate.Validate(spec, machine.NewBuiltinRegistry())
	if !diags.HasErrors() || !strings.Contains(diags.Err().Error(), "mismatched types int and string") {
		t.Fatalf("a nullable int compared with a string must be a type error; got %v", diags.Err())
	}
}

func TestVarCoerceLetsNullThroughWhenNullable(t *testing.T) {
	v := &mspec.Var{Name: "x", Type: mspec.TypeString, Nullable: true}
	if got, err := v.Coerce(nil); err != nil || got != nil {
		t.Errorf("nullable Coerce(nil) = %v, %v; want nil, nil", got, err)
	}
	if got, err := v.Coerce("a"); err != nil || got != "a" {
		t.Errorf("nullable Coerce(\"a\") = %v, %v", got, err)
	}
	v.Nullable = false
	if _, err := v.Coerce(nil); err == nil || err.Error() != "null is not a string" {
		t.Errorf("Coerce(nil) on a variable that is not nullable: %v; want null is not a string", err)
	}
}

func TestNullableSetAcceptsNull(t *testing.T) {
	tests := []struct {
		name, set string
		want      string // "" when valid
	}{
		{"nil to a nullable variable", `{target: nil}`, ""},
		{"a possibly missing map field to a nullable variable", `{target: 'meta?.owner'}`, ""},
		{"a value of its type", `{target: '"x"'}`, ""},
		{"a value of another type is still refused", `{target: '1'}`, "set target: expected string, but got int"},
		{"nil to a variable that is not nullable is refused", `{plain: nil}`, "set plain: expected string, but got nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "lpp: 1\nname: n\ncontext:\n  target: {type: string, nullable: true}\n  plain: string\n  meta: {type: map, nullable: true}\n" +
				"initial: a\nstates:\n  a:\n    do: noop\n    set: " + tt.set + "\n    next: b\n  b: {final: true}\n"
			spec, diags := mspec.Parse("n.yaml", []byte(src))
			if diags.HasErrors() {
				t.Fatal(diags.Err())
			}
			diags = validate.Validate(spec, machine.NewBuiltinRegistry())
			got := ""
			if diags.HasErrors() {
				got = diags.Errors()[0].Msg
			}
			if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNullableSetStoresNullWhenTheRunGoesThere(t *testing.T) {
	const src = `
lpp: 1
name: n
context:
  target: {type: string, nullable: true, default: "x"}
initial: a
states:
  a:
    set: {target: nil}
    next:
      - {to: cleared, when: target == nil}
      - to: kept
  cleared: {final: true}
  kept: {final: true}
`
	m := compileSpec(t, src, nil)
	run, err := m.NewRun(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Run(context.Background()); err != nil {
		t.Fatalf("a set of nil to a nullable variable failed the run: %v", err)
	}
	if run.State() != "cleared" || run.Var("target") != nil {
		t.Errorf("state %s, target %v; want cleared with target nil", run.State(), run.Var("target"))
	}
}

// A set whose value expr cannot type (a map field that may be missing)
// stores null in a nullable int or float, and checks any other value when
// it is set: expr.AsInt would cast the null (int(<nil>)) and fail the run.
func TestNullableSetOfAnUntypedNullStoresNull(t *testing.T) {
	const src = `
lpp: 1
name: untyped
context:
  m: {type: map, nullable: true, default: {}}
  n: {type: int, nullable: true, default: 1}
  f: {type: float, nullable: true, default: 1.5}
initial: start
states:
  start:
    next: [{to: done, set: {n: 'm?.k', f: 'm?.k'}}]
  done: {final: true}
`
	m := compileSpec(t, src, nil)
	for _, tt := range []struct {
		name string
		m    map[string]any
		n, f any
		err  string
	}{
		{"missing field: null", map[string]any{}, nil, nil, ""},
		{"an int", map[string]any{"k": 3}, 3, 3.0, ""},
		{"a string is refused when set", map[string]any{"k": "x"}, nil, nil, "not an int"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run, err := m.NewRun(map[string]any{"m": tt.m})
			if err != nil {
				t.Fatal(err)
			}
			err = run.Run(context.Background())
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("run: %v; want an error with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n, f := run.Var("n"), run.Var("f"); n != tt.n || f != tt.f {
				t.Errorf("n = %#v, f = %#v; want %#v, %#v", n, f, tt.n, tt.f)
			}
		})
	}
}
