package actions

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// doubleSet is an action set besides GeneralActions, as agent.Actions is:
// test.double writes doubled = n * 2.
func doubleSet(*Deps) []machine.Action {
	return []machine.Action{{
		Name:   "test.double",
		Doc:    "doubles n into doubled",
		Writes: []machine.VarSpec{{Name: "doubled", Type: mspec.TypeInt}},
		Run: func(_ context.Context, c *machine.Call) error {
			n, _ := c.Var("n").(int)
			return c.SetVar("doubled", n*2)
		},
	}}
}

func TestRegisterAddsTheGivenSetsAndGeneralActionsWhenNone(t *testing.T) {
	tests := []struct {
		name       string
		sets       []ActionSet
		wantDouble bool
	}{
		{"no set: the general actions", nil, false},
		{"the general actions and another set", []ActionSet{GeneralActions, doubleSet}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := machine.NewBuiltinRegistry()
			require.NoError(t, Register(reg, &Deps{}, tt.sets...))
			assert.NotNil(t, reg.Lookup("llm.generate"))
			assert.NotNil(t, reg.Lookup("spec.run"))
			assert.Equal(t, tt.wantDouble, reg.Lookup("test.double") != nil)
		})
	}
}

// A child run's registry has the sets of its parent's: the child may use
// what the parent may use, and nothing more.
func TestChildRunsUseTheActionSetsOfTheirParent(t *testing.T) {
	child := strings.Replace(childSpec, "do: noop\n    next: [{to: done, set: {doubled: n * 2}}]", "do: test.double\n    next: [{to: done}]", 1)
	require.NotEqual(t, childSpec, child)
	tests := []struct {
		name       string
		sets       []ActionSet
		wantState  string
		wantResult int
		wantFailed string
	}{
		{"the parent's sets have the child's action", []ActionSet{GeneralActions, doubleSet}, "done", 42, ""},
		{"the parent's sets lack the child's action", []ActionSet{GeneralActions}, "broken", 0,
			"cannot run child spec child.yaml: it is invalid:\n" +
				"ROOT/a/child.yaml:10:9: error: unknown action \"test.double\"\n" +
				" 10 |     do: test.double\n" +
				"    |         ^^^^^^^^^^^\n" +
				"    = registered actions: emit, env.read, examples.agree, examples.vet, fail, human.input, llm.generate, log, noop, script.run, spec.check, spec.examples, ... (6 more)\n\n" +
				"1 error, 0 warnings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, map[string]string{"a/parent.yaml": parentSpec, "a/child.yaml": child})
			d := p.deps("a", "")
			defer d.Close()
			reg := machine.NewBuiltinRegistry()
			require.NoError(t, Register(reg, d, tt.sets...))
			src := []byte(parentSpec)
			spec, diags := validate.Check(p.root+"/a/parent.yaml", src, reg, validate.WithRoot(p.root))
			require.False(t, diags.HasErrors(), "%s", diags.PrettyAll(src))
			m, err := machine.Compile(spec, reg)
			require.NoError(t, err)
			r, err := m.NewRun(nil, machine.WithRunID("run1"))
			require.NoError(t, err)
			require.NoError(t, r.Run(context.Background()))
			assert.Equal(t, tt.wantState, r.State())
			assert.Equal(t, tt.wantResult, r.Var("result"))
			failed, _ := r.Var("failed").(string)
			assert.Equal(t, tt.wantFailed, strings.ReplaceAll(failed, p.root, "ROOT"))
		})
	}
}
