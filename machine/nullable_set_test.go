package machine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// A set that reads a nullable variable stores null where the variable it
// sets is nullable, whatever the type: a nullable variable is typed by its
// type's zero value at compile time, and expr's AsInt, AsFloat64 and AsBool
// casts turned a null int or float into a failed run (`float(<nil>)`) and
// a null bool into false. A variable that is not nullable refuses the null
// with where and how to fix it (a list or a map stores its empty value, as
// every null given to one does).
func TestASetOfANullableVariableStoresNullOnlyWhereItMay(t *testing.T) {
	types := []struct {
		typ, val, def string
		want, dflt    any
	}{
		{"string", `"x"`, `"d"`, "x", "d"},
		{"int", `3`, `7`, 3, 7},
		{"float", `2.5`, `7.5`, 2.5, 7.5},
		{"bool", `false`, `true`, false, true},
		{"list", `[1]`, `[9]`, []any{1}, []any{9}},
		{"map", `{a: 1}`, `{z: 9}`, map[string]any{"a": 1}, map[string]any{"z": 9}},
	}
	const null = "null"
	exprs := []struct {
		src  string
		gets string // "null" or "value"
	}{
		{"n", null},
		{"v", "value"},
		{"n ?? v", "value"},
		{"n == nil ? v : n", "value"},
		{"v == nil ? v : n", null},
		{"first([n])", null},
		{"first([v])", "value"},
		{"nil", null},
	}
	for _, ty := range types {
		for _, nullable := range []bool{true, false} {
			for _, e := range exprs {
				name := fmt.Sprintf("%s nullable=%v %s", ty.typ, nullable, e.src)
				t.Run(name, func(t *testing.T) {
					src := fmt.Sprintf(`lpp: 1
name: t
context:
  n: {type: %[1]s, nullable: true}
  v: {type: %[1]s, nullable: true, default: %[2]s}
  m: {type: %[1]s, nullable: %[3]v, default: %[4]s}
initial: a
states:
  a:
    set: {m: '%[5]s'}
    next: done
  done: {final: true}
`, ty.typ, ty.val, nullable, ty.def, e.src)
					if e.src == "nil" && !nullable {
						spec, diags := mspec.Parse("test.yaml", []byte(src))
						require.False(t, diags.HasErrors(), "%v", diags.Err())
						_, err := compileErr(spec)
						require.ErrorContains(t, err, "set m: expected ")
						return
					}
					m := compileSpec(t, src, nil)
					run, err := m.NewRun(nil)
					require.NoError(t, err)
					err = run.Run(context.Background())
					switch {
					case e.gets == "value":
						require.NoError(t, err)
						require.Equal(t, ty.want, run.Var("m"))
					case nullable:
						require.NoError(t, err)
						require.Nil(t, run.Var("m"))
					case ty.typ == "list" || ty.typ == "map":
						require.NoError(t, err)
						require.Equal(t, map[string]any{"list": []any{}, "map": map[string]any{}}[ty.typ], run.Var("m"))
					default:
						zero := map[string]string{"string": `""`, "int": "0", "float": "0.0", "bool": "false"}[ty.typ]
						fix := e.src
						if strings.ContainsAny(e.src, " ?:") {
							fix = "(" + e.src + ")"
						}
						require.EqualError(t, err, fmt.Sprintf(`cannot apply set of state "a": test.yaml:10:15: set m: the value is null, and m is not nullable: declare it `+
							"`nullable: true`, or give a value for null: `%s ?? %s` (in %s)", fix, zero, e.src))
						require.Equal(t, ty.dflt, run.Var("m"), "the run keeps the value m had")
					}
				})
			}
		}
	}
}

// A set keeps the type errors a compile can tell: a value of another type,
// a float for an int, null for a variable that is not nullable.
func TestASetOfTheWrongTypeIsStillRefusedWhenTheRunIsCompiled(t *testing.T) {
	for _, tt := range []struct{ decl, expr, want string }{
		{"{type: float, nullable: true}", `"x"`, "set m: expected float64, but got string"},
		{"float", `s`, "set m: expected float64, but got string"},
		{"{type: int, nullable: true}", `f`, "set m: expected int, but got float64"},
		{"int", `f + 1`, "set m: expected int, but got float64"},
		{"{type: bool, nullable: true}", `i`, "set m: expected bool, but got int"},
		{"bool", `nil`, "set m: expected bool, but got unknown"},
		{"int", `nil`, "set m: expected int, but got unknown"},
	} {
		t.Run(tt.decl+" "+tt.expr, func(t *testing.T) {
			src := "lpp: 1\nname: t\ncontext:\n  s: {type: string, nullable: true}\n  f: {type: float, nullable: true}\n  i: {type: int, nullable: true}\n  m: " + tt.decl +
				"\ninitial: a\nstates:\n  a: {set: {m: '" + tt.expr + "'}, next: done}\n  done: {final: true}\n"
			spec, diags := mspec.Parse("test.yaml", []byte(src))
			require.False(t, diags.HasErrors(), "%v", diags.Err())
			_, err := compileErr(spec)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

// compileErr compiles spec with the built-in actions.
func compileErr(spec *mspec.Spec) (*machine.Machine, error) {
	return machine.Compile(spec, machine.NewBuiltinRegistry())
}
