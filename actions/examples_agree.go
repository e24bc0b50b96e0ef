package actions

import (
	"context"
	"fmt"
	"strings"

	"github.com/lppctl/lppctl/actions/examples"
	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// examplesAgreeAction declares examples.agree.
func (d *Deps) examplesAgreeAction() machine.Action {
	return machine.Action{
		Name: "examples.agree",
		Doc:  "keeps the hidden probes two independent derivations agree on: each probe (inputs on which the run succeeds, with expected values) and the item a second derivation from its inputs alone gives for it (matched by name, else by position) must give the same values (spec.examples' comparison, either side's digits the coarser); a probe whose inputs an example or an earlier probe gives, that names a variable no example gives or checks, or that spec.examples would refuse, is dropped; writes the kept probes (kind probe), their numbers (every one held out) and a report that names no input or value",
		Params: []machine.ParamSpec{
			{Name: "probes", Type: mspec.TypeExpr, Required: true, Doc: "a list expression: the probes, each {name, vars, files, expect}"},
			{Name: "derived", Type: mspec.TypeExpr, Required: true, Doc: "a list expression: the second derivation, {name, fails, expect} per probe"},
			{Name: "examples", Type: mspec.TypeExpr, Doc: "a list expression: the examples (a probe with the inputs of one is dropped; their variables are the ones a probe may give and check)"},
			{Name: "max", Type: mspec.TypeInt, Default: 6, Doc: "most probes kept"},
			{Name: "agreed", Type: mspec.TypeString, Doc: "the list variable that gets the kept probes"},
			{Name: "held_out", Type: mspec.TypeString, Doc: "the list variable that gets the kept probes' numbers, 1..n (for spec.examples' held_out)"},
			{Name: "report", Type: mspec.TypeString, Doc: "the string variable that gets how many were kept and why each other was dropped, without inputs or values"},
		},
		WritesFor: func(p map[string]any) []machine.VarSpec {
			out := varParam(p, "agreed", mspec.TypeList, "the probes kept")
			out = append(out, varParam(p, "held_out", mspec.TypeList, "the kept probes' numbers")...)
			return append(out, varParam(p, "report", mspec.TypeString, "the agreement's report")...)
		},
		Run: d.examplesAgree,
	}
}

func (d *Deps) examplesAgree(_ context.Context, c *machine.Call) error {
	probes, derived, list := listParam(c.Param("probes")), listParam(c.Param("derived")), listParam(c.Param("examples"))
	if probes == nil && c.Param("probes") != nil || derived == nil && c.Param("derived") != nil {
		return fmt.Errorf("probes and derived of examples.agree must give lists, not %s and %s", describe(c.Param("probes")), describe(c.Param("derived")))
	}
	agreed, held, dropped := examples.AgreeProbes(probes, derived, list, c.Int("max"))
	report := fmt.Sprintf("probes: %d proposed, %d kept (two derivations agree)", len(probes), len(agreed))
	if len(dropped) > 0 {
		report += "; dropped: " + strings.Join(dropped, "; ")
	}
	c.Notef("%s", report)
	return setNamedVars(c, map[string]any{"agreed": agreed, "held_out": held, "report": report})
}

func listParam(v any) []any {
	if v == nil {
		return []any{}
	}
	l, _ := v.([]any)
	return l
}
