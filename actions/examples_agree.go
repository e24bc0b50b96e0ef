package actions

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

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
	agreed, held, dropped := agreeProbes(probes, derived, list, c.Int("max"))
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

// agreeProbes returns the probes both derivations agree on (at most max),
// as examples of kind probe, their numbers, and why each other was dropped.
func agreeProbes(probes, derived, list []any, max int) (agreed, held []any, dropped []string) {
	agreed, held = []any{}, []any{}
	seen, given, checked := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, raw := range list {
		if ex, err := decodeExample(raw); err == nil {
			seen[inputsKey(ex)] = true
			for k := range ex.Vars {
				given[k] = true
			}
			for k := range ex.Expect {
				checked[k] = true
			}
		}
	}
	byName := map[string]any{}
	for _, raw := range derived {
		if m, ok := raw.(map[string]any); ok {
			if name, ok := m["name"].(string); ok {
				byName[name] = raw
			}
		}
	}
	for i, raw := range probes {
		ex, err := decodeExample(raw)
		why := ""
		var dv derivation
		match, ok := byName[ex.Name]
		if !ok && len(derived) == len(probes) {
			match, ok = derived[i], true
		}
		if b, e := json.Marshal(match); ok && e == nil {
			ok = json.Unmarshal(b, &dv) == nil
		}
		switch {
		case err != nil || len(ex.Expect) == 0 || len(ex.Contains) > 0 || len(ex.Events) > 0 || len(exampleProblems(ex)) > 0:
			why = "it is not {name, vars, files, expect} with values to check"
		case seen[inputsKey(ex)]:
			why = "an example or an earlier probe gives its inputs"
		case !ok:
			why = "the second derivation gives no item for it"
		case dv.Fails:
			why = "the second derivation says its run must fail"
		case len(agreed) >= max:
			why = fmt.Sprintf("more than %d probes", max)
		}
		for _, k := range sortedKeys(ex.Vars) {
			if why == "" && !given[k] {
				why = "it gives " + k + ", which no example gives"
			}
		}
		for _, k := range sortedKeys(ex.Expect) {
			if why != "" {
				break
			}
			want, got := ex.Expect[k], dv.Expect[k]
			if _, wantNum := number(want); wantNum {
				got = numericString(got)
			}
			switch _, has := dv.Expect[k]; {
			case !checked[k]:
				why = "it checks " + k + ", which no example checks"
			case !has:
				why = "the second derivation gives no value for " + k
			case !sameValue(want, got, ex.Tolerance) && !sameValue(got, want, ex.Tolerance):
				why = "the two derivations differ on " + k
			}
		}
		if why != "" {
			dropped = append(dropped, fmt.Sprintf("probe %d: %s", i+1, why))
			continue
		}
		seen[inputsKey(ex)] = true
		probe := map[string]any{"name": ex.Name, "kind": "probe", "vars": ex.Vars, "expect": ex.Expect}
		if len(ex.Files) > 0 {
			probe["files"] = ex.Files
		}
		agreed = append(agreed, probe)
		held = append(held, len(agreed))
	}
	return agreed, held, dropped
}
