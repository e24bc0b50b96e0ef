package main

import (
	"fmt"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// gatewayState returns the first state whose action makes a run load the
// tool gateway's policy at start (any action that is not built in: the
// agent's and the general ones), or nil when the spec uses none. An action
// reg does not know is left out: it is reported as unknown, and a run stops
// at it before loading anything.
func gatewayState(spec *mspec.Spec, reg *machine.Registry) *mspec.State {
	builtins := machine.NewBuiltinRegistry()
	for _, st := range spec.States {
		if st.Do != "" && builtins.Lookup(st.Do) == nil && reg.Lookup(st.Do) != nil {
			return st
		}
	}
	return nil
}

// policyDiagnostic is validate's version of the run's policy check
// (preflightAgent): when the spec needs the gateway and the policy a run in
// root would load (actions.RunPolicy) cannot be loaded, an error at the
// first state that needs it; else nil.
func policyDiagnostic(spec *mspec.Spec, reg *machine.Registry, root, policy string) *mspec.Diagnostic {
	st := gatewayState(spec, reg)
	if st == nil {
		return nil
	}
	_, _, err := actions.SpecPolicy(spec, root, policy)
	if err == nil {
		return nil
	}
	return &mspec.Diagnostic{
		Severity: mspec.SevError, File: spec.File, Pos: st.DoPos, Span: len(st.Do),
		Msg:  fmt.Sprintf("action %q runs through the tool gateway, and the run would fail at start: %v", st.Do, err),
		Hint: "add config/tools_config.yaml to the project root (give the root with --root), or run with --policy FILE",
	}
}
