package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// abortProject is a project root holding the repo's gateway policy and the
// spec a.yaml.
type abortProject struct {
	t    *testing.T
	root string
}

func newAbortProject(t *testing.T, spec string) *abortProject {
	t.Helper()
	root := t.TempDir()
	policy, err := os.ReadFile(filepath.Join("..", "..", "config", "tools_config.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "config"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "config", "tools_config.yaml"), policy, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "a.yaml"), []byte(spec), 0o644))
	return &abortProject{t: t, root: root}
}

// check validates a.yaml as lppctl validate does, with the general and the
// agent's actions.
func (p *abortProject) check() (*spec.Spec, *machine.Registry, spec.Diagnostics) {
	p.t.Helper()
	d := &actions.Deps{Root: p.root, SpecDir: p.root, Out: &strings.Builder{}, Getenv: func(string) string { return "" }}
	reg := machine.NewBuiltinRegistry()
	require.NoError(p.t, actions.Register(reg, d, actions.GeneralActions, Actions))
	path := filepath.Join(p.root, "a.yaml")
	src, err := os.ReadFile(path)
	require.NoError(p.t, err)
	spec, diags := validate.Check(path, src, reg, validate.WithRoot(p.root))
	if spec != nil {
		diags = append(diags, actions.CheckSpec(spec, reg, actions.CheckOptions{Root: p.root})...)
		diags.Sort()
	}
	return spec, reg, diags
}

// run validates and runs a.yaml to its end.
func (p *abortProject) run() error {
	p.t.Helper()
	spec, reg, diags := p.check()
	require.False(p.t, diags.HasErrors(), "a.yaml is invalid:\n%s", diags.PrettyAll(spec.Source))
	m, err := machine.Compile(spec, reg)
	require.NoError(p.t, err)
	r, err := m.NewRun(nil, machine.WithRunID("run1"))
	require.NoError(p.t, err)
	return r.Run(context.Background())
}

// abortSpec is a spec whose first state is a failed final running
// agent.abort with the given with: mapping.
func abortSpec(with string) string {
	return "lpp: 1\nname: a\ncontext:\n  plan_error: {type: string, default: \"no steps\"}\n  attempts: {type: int, default: 2}\ninitial: stop\nstates:\n  stop: {final: true, do: agent.abort, with: " + with + "}\n"
}

// TestAbortMessageIsTextAndValueAnExpression checks agent.abort's rule, the
// one fail follows: message is text, the optional value expression's result
// follows it after a space (a string in full, as it is).
func TestAbortMessageIsTextAndValueAnExpression(t *testing.T) {
	tests := []struct {
		name, with, want string
	}{
		{"text only", `{message: the plan was rejected}`, "the plan was rejected"},
		{"text and a string value", `{message: "no valid plan; the last problem:", value: plan_error}`, "no valid plan; the last problem: no steps"},
		{"text and an int value", `{message: "attempts:", value: attempts + 1}`, "attempts: 3"},
		{"empty text", `{message: ""}`, "the agent stopped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := newAbortProject(t, abortSpec(tt.with)).run()
			require.True(t, errors.Is(err, machine.ErrActionFailed), "err = %v", err)
			assert.Equal(t, `action failed: agent.abort in state "stop": `+tt.want, err.Error())
		})
	}
}

// TestAbortOldExpressionMessageIsRefused checks that a message written as an
// expression, as agent.abort took it before, is a positioned validation
// error that says where the expression goes, not text shown as written.
func TestAbortOldExpressionMessageIsRefused(t *testing.T) {
	const hint = `move the expression to value: (its result is appended to the message), e.g. with: {message: "cannot go on:", value: reason}`
	tests := []struct {
		name, with, want string
	}{
		{"a quoted string", `{message: '"the plan was rejected"'}`,
			`a.yaml:8:56: error: parameter "message" of action "agent.abort" is text and reads as an expression (a string literal): it would be shown as written` + "\n" +
				` 8 |   stop: {final: true, do: agent.abort, with: {message: '"the plan was rejected"'}}` + "\n" +
				`   |                                                        ^^^^^^^^^^^^^^^^^^^^^^^^^` + "\n" +
				`   = ` + hint},
		{"a concatenation", `{message: '"no plan: " + plan_error'}`,
			`a.yaml:8:56: error: parameter "message" of action "agent.abort" is text and reads as an expression (a string literal): it would be shown as written` + "\n" +
				` 8 |   stop: {final: true, do: agent.abort, with: {message: '"no plan: " + plan_error'}}` + "\n" +
				`   |                                                        ^^^^^^^^^^^^^^^^^^^^^^^^^^` + "\n" +
				`   = ` + hint},
		{"a context variable", `{message: plan_error}`,
			`a.yaml:8:56: error: parameter "message" of action "agent.abort" is text and reads as an expression (variable "plan_error"): it would be shown as written` + "\n" +
				` 8 |   stop: {final: true, do: agent.abort, with: {message: plan_error}}` + "\n" +
				`   |                                                        ^^^^^^^^^^` + "\n" +
				`   = ` + hint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newAbortProject(t, abortSpec(tt.with))
			spec, _, diags := p.check()
			require.NotNil(t, spec)
			got := diags.PrettyAll(spec.Source)
			// the file name is the project's absolute path; compare from the base name on
			assert.Equal(t, tt.want+"\n\n1 error, 0 warnings", strings.TrimPrefix(got, p.root+"/"))
		})
	}
}
