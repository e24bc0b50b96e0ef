package agent

import (
	"testing"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// Registering needs no provider, no gateway and no files, and the flagship
// spec validates against the result.
func TestRegisterOfflineAndSpecValidates(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("LPPCTL_LLM", "")
	reg := machine.NewBuiltinRegistry()
	if err := actions.Register(reg, &actions.Deps{Root: t.TempDir()}, actions.GeneralActions, Actions); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"llm.planner", "llm.optimizer", "llm.evaluator", "tools.execute", "memory.prepare_step",
		"memory.inject_directive", "memory.commit_step", "human.approve", "human.intervene", "human.feedback",
		"skill.record_failure", "skill.teacher", "agent.abort"} {
		a := reg.Lookup(name)
		if a == nil {
			t.Fatalf("%s is not registered", name)
		}
		if a.Doc == "" {
			t.Errorf("%s has no doc", name)
		}
	}
	spec, diags, err := spec.Load("../../specs/skills_agent.yaml")
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %v", err, diags)
	}
	if d := validate.Validate(spec, reg); d.HasErrors() {
		t.Fatalf("the spec is invalid:\n%s", d.PrettyAll(spec.Source))
	}
}
