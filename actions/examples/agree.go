package examples

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// AgreeProbes returns the probes both derivations agree on (at most max),
// as examples of kind probe, their numbers, and why each other was dropped.
func AgreeProbes(probes, derived, list []any, max int) (agreed, held []any, dropped []string) {
	agreed, held = []any{}, []any{}
	seen, given, checked := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, raw := range list {
		if ex, err := Decode(raw); err == nil {
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
		ex, err := Decode(raw)
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
		case err != nil || len(ex.Expect) == 0 || len(ex.Contains) > 0 || len(ex.Events) > 0 || len(Problems(ex)) > 0:
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
		for _, k := range slices.Sorted(maps.Keys(ex.Vars)) {
			if why == "" && !given[k] {
				why = "it gives " + k + ", which no example gives"
			}
		}
		for _, k := range slices.Sorted(maps.Keys(ex.Expect)) {
			if why != "" {
				break
			}
			want, got := ex.Expect[k], dv.Expect[k]
			if _, wantNum := Number(want); wantNum {
				got = numericString(got)
			}
			switch _, has := dv.Expect[k]; {
			case !checked[k]:
				why = "it checks " + k + ", which no example checks"
			case !has:
				why = "the second derivation gives no value for " + k
			case !SameValue(want, got, ex.Tolerance) && !SameValue(got, want, ex.Tolerance):
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
