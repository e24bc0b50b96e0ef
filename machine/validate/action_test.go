package validate

import (
	"context"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/stretchr/testify/require"
)

// TestWritesForVariablesMustBeDeclared checks that the variables an action
// writes by parameter (WritesFor) are validated like its static Writes.
func TestWritesForVariablesMustBeDeclared(t *testing.T) {
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{
		Name:   "test.produce",
		Params: []machine.ParamSpec{{Name: "output", Type: mspec.TypeString, Required: true}},
		WritesFor: func(params map[string]any) []machine.VarSpec {
			name, _ := params["output"].(string)
			if name == "" {
				return nil
			}
			return []machine.VarSpec{{Name: name, Type: mspec.TypeString}}
		},
		Run: func(context.Context, *machine.Call) error { return nil },
	})
	tests := []struct {
		name, ctx, want string
	}{
		{"declared", "  summary: string\n", ""},
		{"undeclared", "  other: string\n", `action "test.produce" writes context variable "summary", which the spec does not declare`},
		{"wrong type", "  summary: int\n", `action "test.produce" writes "summary" as string, but the spec declares it as int`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := "lpp: 1\nname: w\ncontext:\n" + tc.ctx + "initial: a\nstates:\n  a:\n    do: test.produce\n    with: {output: summary}\n    next: done\n  done: {final: true}\n"
			spec, diags := Check("w.yaml", []byte(src), reg)
			got := diags.PrettyAll([]byte(src))
			if tc.want == "" {
				if diags.HasErrors() {
					t.Fatalf("want no errors, got:\n%s", got)
				}
				st := spec.State("a")
				ws := reg.Lookup("test.produce").WritesOf(st)
				if len(ws) != 1 || ws[0].Name != "summary" {
					t.Fatalf("WritesOf = %+v, want summary", ws)
				}
				return
			}
			if !strings.Contains(got, tc.want) {
				t.Fatalf("want %q in:\n%s", tc.want, got)
			}
		})
	}
}

// TestAVariableAnActionWritesIsReportedWhereItsParameterNamesIt checks that
// an undeclared (or mistyped) variable written through a parameter is
// reported at the parameter that names it, with a did-you-mean, not at the
// state's do:.
func TestAVariableAnActionWritesIsReportedWhereItsParameterNamesIt(t *testing.T) {
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{
		Name: "test.outputs",
		Params: []machine.ParamSpec{
			{Name: "result", Type: mspec.TypeString},
			{Name: "output", Type: mspec.TypeMap},
		},
		WritesFor: func(params map[string]any) []machine.VarSpec {
			var out []machine.VarSpec
			if r, ok := params["result"].(string); ok {
				out = append(out, machine.VarSpec{Name: r, Type: mspec.TypeString})
			}
			m, _ := params["output"].(map[string]any)
			for _, k := range []string{"fits", "fitsx", "words"} {
				if _, ok := m[k]; ok {
					out = append(out, machine.VarSpec{Name: k, Type: mspec.TypeAny})
				}
			}
			return out
		},
		Run: func(context.Context, *machine.Call) error { return nil },
	})
	tests := []struct {
		name, with, want string
	}{
		{"a map key", "{output: {fitsx: fits, words: words}}",
			"w.yaml:10:21: error: action \"test.outputs\" writes context variable \"fitsx\", which the spec does not declare\n" +
				" 10 |     with: {output: {fitsx: fits, words: words}}\n" +
				"    |                     ^^^^^\n" +
				"    = did you mean \"fits\"? or declare it under context with the type of its values: `fitsx: string` (or int, float, bool, list, map)\n"},
		{"a key of a block mapping", "\n      output:\n        words: w\n        fitsx: f",
			"w.yaml:13:9: error: action \"test.outputs\" writes context variable \"fitsx\", which the spec does not declare\n" +
				" 13 |         fitsx: f\n" +
				"    |         ^^^^^\n" +
				"    = did you mean \"fits\"? or declare it under context with the type of its values: `fitsx: string` (or int, float, bool, list, map)\n"},
		{"a value", "{result: word}",
			"w.yaml:10:20: error: action \"test.outputs\" writes context variable \"word\", which the spec does not declare\n" +
				" 10 |     with: {result: word}\n" +
				"    |                    ^^^^\n" +
				"    = did you mean \"words\"? or declare it under context: `word: string`\n"},
		{"a value of another type", "{result: words}",
			"w.yaml:10:20: error: action \"test.outputs\" writes \"words\" as string, but the spec declares it as int\n" +
				" 10 |     with: {result: words}\n" +
				"    |                    ^^^^^\n" +
				"    = declare it as `words: string`\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := "lpp: 1\nname: w\ncontext:\n  fits: bool\n  words: int\ninitial: a\nstates:\n  a:\n    do: test.outputs\n    with: " + tc.with + "\n    next: done\n  done: {final: true}\n"
			_, diags := Check("w.yaml", []byte(src), reg)
			require.Equal(t, tc.want+"\n1 error, 0 warnings", diags.PrettyAll([]byte(src)))
		})
	}
}
