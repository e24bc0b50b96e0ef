package check_test

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/check/report"
	"github.com/lppctl/lppctl/machine/internal/spectest"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// routerSpec branches on two variables a caller sets: mode picks the branch,
// and the fast branch has no way out when n is not positive.
const routerSpec = `lpp: 1
name: router
context:
  mode: {type: string, enum: ["", fast, slow], default: ""}
  n: {type: int, default: 1}
initial: route
states:
  route:
    next:
      - {to: fast, when: mode == "fast"}
      - {to: slow, when: mode == "slow"}
      - {to: idle}
  fast: {next: [{to: done, when: n > 0}]}
  slow: {next: done}
  idle: {next: done}
  done: {final: true}
`

// TestModelCheckStartsFromTheValuesGiven: Initial fixes a variable's first
// value, Inputs (or `input: true`) starts it from every value of its domain;
// a FAIL's counterexample names the inputs it started from.
func TestModelCheckStartsFromTheValuesGiven(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		opts   check.CheckOptions
		fails  []string
		inputs map[string]any // of the first FAIL's counterexample
	}{
		{"defaults only reach idle", routerSpec, check.CheckOptions{}, []string{check.PropReachable}, nil},
		{"a given mode reaches its branch only", routerSpec,
			check.CheckOptions{Initial: map[string]any{"mode": "fast"}}, []string{check.PropReachable}, nil},
		{"a free mode reaches every branch", routerSpec,
			check.CheckOptions{Inputs: []string{"mode"}}, nil, nil},
		{"a free n deadlocks the fast branch", routerSpec,
			check.CheckOptions{Inputs: []string{"mode", "n"}}, []string{check.PropDeadlock}, map[string]any{"mode": "fast", "n": -1}},
		{"a given n and a free mode", routerSpec,
			check.CheckOptions{Inputs: []string{"mode"}, Initial: map[string]any{"n": 0}}, []string{check.PropDeadlock}, map[string]any{"mode": "fast"}},
		{"an input in the spec", strings.Replace(routerSpec, `default: ""}`, `default: "", input: true}`, 1),
			check.CheckOptions{}, nil, nil},
		{"a given value wins over an input in the spec", strings.Replace(routerSpec, `default: ""}`, `default: "", input: true}`, 1),
			check.CheckOptions{Initial: map[string]any{"mode": "slow"}}, []string{check.PropReachable}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := spectest.Compile(t, tt.src, nil)
			if err := tt.opts.Validate(m.Spec()); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			r := check.ModelCheck(context.Background(), m, tt.opts)
			var failed []string
			var first *check.Trace
			for _, p := range r.Properties {
				if p.Verdict == check.Fail {
					failed = append(failed, p.Property)
					if first == nil {
						first = p.Trace
					}
				}
			}
			text := report.Text(r, report.Options{NoTimes: true})
			if !slices.Equal(failed, tt.fails) {
				t.Errorf("failed properties = %v, want %v\n%s", failed, tt.fails, text)
			}
			if first != nil && !reflect.DeepEqual(first.Inputs, tt.inputs) {
				t.Errorf("counterexample inputs = %v, want %v", first.Inputs, tt.inputs)
			}
			spectest.Golden(t, filepath.Join("testdata", "check_inputs", filepath.Base(t.Name())+".golden"), []byte(text))
		})
	}
}

// TestCheckOptionsValidateNamesWhatIsWrong: values and inputs the spec
// cannot take are refused, with what to do.
func TestCheckOptionsValidateNamesWhatIsWrong(t *testing.T) {
	src := strings.Replace(routerSpec, "n: {type: int, default: 1}", "n: {type: int, default: 1, range: [0, 3]}", 1)
	spec := spectest.Compile(t, src, nil).Spec()
	tests := []struct {
		name string
		opts check.CheckOptions
		want string
	}{
		{"an unknown variable", check.CheckOptions{Initial: map[string]any{"mdoe": "fast"}},
			`cannot start mdoe from a given value: the spec has no context variable "mdoe"; did you mean "mode"?`},
		{"a value outside the enum", check.CheckOptions{Initial: map[string]any{"mode": "quick"}},
			`cannot start mode from "quick": "quick" is not one of ["", "fast", "slow"]`},
		{"a value of the wrong type", check.CheckOptions{Initial: map[string]any{"n": "two"}},
			`cannot start n from "two": string "two" is not an int`},
		{"a value outside the range", check.CheckOptions{Initial: map[string]any{"n": 7}},
			`cannot start n from 7: 7 is outside its range [0, 3]`},
		{"an unknown input", check.CheckOptions{Inputs: []string{"m"}},
			`cannot make m an input: the spec has no context variable "m"; did you mean "n"?`},
		{"an input also given", check.CheckOptions{Inputs: []string{"n"}, Initial: map[string]any{"n": 2}},
			`cannot make n an input: it is also given a value; drop one of the two`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate(spec)
			if err == nil || err.Error() != tt.want {
				t.Errorf("Validate = %v, want %q", err, tt.want)
			}
		})
	}
	if err := (check.CheckOptions{Initial: map[string]any{"n": 3}, Inputs: []string{"mode"}}).Validate(spec); err != nil {
		t.Errorf("valid options refused: %v", err)
	}
}

// TestParseReadsInput: `input:` on a context variable is a bool.
func TestParseReadsInput(t *testing.T) {
	tests := []struct {
		name  string
		value string
		input bool
		diags []string
	}{
		{"true", "true", true, nil},
		{"false", "false", false, nil},
		{"not a bool", "yes please", false, []string{`f.yaml:3:45: error: input of "n" must be true or false, not "yes please"; write true or false`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "lpp: 1\nname: x\ncontext: {n: {type: int, default: 0, input: " + tt.value + "}}\ninitial: a\nstates: {a: {final: true}}\n"
			spec, diags := mspec.Parse("f.yaml", []byte(src))
			var got []string
			for _, d := range diags {
				got = append(got, d.String())
			}
			if !slices.Equal(got, tt.diags) {
				t.Errorf("diagnostics:\n%q\nwant:\n%q", got, tt.diags)
			}
			if v := spec.Var("n"); v == nil || v.Input != tt.input {
				t.Errorf("n.Input = %v, want %v", v != nil && v.Input, tt.input)
			}
		})
	}
}
