package examples

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/lppctl/lppctl/internal/fsx"
)

// Bounds of an example's tolerance.
const (
	exampleMaxRelTol  = 0.01 // a tolerance is at most 1 % of the smallest expected number
	exampleMaxZeroTol = 1e-6 // ... or this, when the example expects only zeros
)

// exampleInputDir is where an example's input files go, inside the skill
// folder: the planning prompt names it.
const exampleInputDir = "reference/"

// Vet returns the problems of a plan's examples, each example's
// first, then the set's.
func Vet(list []any) []string {
	var problems []string
	kinds := map[string]int{}
	values := map[string]map[string]bool{} // variable → the expected values (as JSON) of the examples that succeed
	var order []string
	inputs := map[string]string{} // an example's inputs (inputsKey) → the first example giving them
	for i, raw := range list {
		ex, err := Decode(raw)
		if err != nil {
			problems = append(problems, fmt.Sprintf("example %d: not an example object {name, kind, vars, files, expect, contains}: %v", i+1, err))
			continue
		}
		for _, p := range append(append(kindProblems(ex), Problems(ex)...), echoProblems(ex)...) {
			problems = append(problems, fmt.Sprintf("example %d %q: %s", i+1, ex.Name, p))
		}
		key := inputsKey(ex)
		if first, ok := inputs[key]; ok {
			problems = append(problems, fmt.Sprintf("example %d %q has the same inputs (vars, files and events) as example %s: it checks nothing more, and when it is the one held out from the writer of the code, a script that looks up the examples it was shown passes it; give it inputs of its own, or merge the two", i+1, ex.Name, first))
		} else {
			inputs[key] = fmt.Sprintf("%d %q", i+1, ex.Name)
		}
		kinds[ex.Kind]++
		if ex.Kind == KindError {
			continue
		}
		add := func(name string, v any) {
			b, _ := json.Marshal(v)
			if values[name] == nil {
				values[name] = map[string]bool{}
				order = append(order, name)
			}
			values[name][string(b)] = true
		}
		for _, name := range slices.Sorted(maps.Keys(ex.Expect)) {
			add(name, ex.Expect[name])
		}
		for _, name := range slices.Sorted(maps.Keys(ex.Contains)) {
			add(name+" (contains)", ex.Contains[name])
		}
	}
	if len(list) == 0 {
		return []string{"examples: none given: write them from the target, each {name, kind, vars, files, expect}"}
	}
	if kinds[KindEdge] == 0 {
		problems = append(problems, `examples: none is an edge case: add one with "kind": "edge" (empty input, blank lines or double spaces, non-ASCII text, a zero or the largest value) and its expected values`)
	}
	if kinds[KindTypical]+kinds[KindEdge] < 2 {
		problems = append(problems, `examples: fewer than two examples succeed (typical or edge): add another typical one; one example that succeeds is held out from the writer of the code, so a script fitted to the examples it sees fails it`)
	}
	if kinds[KindError] == 0 {
		problems = append(problems, `examples: none is an error case: add one with "kind": "error" (a missing file, an invalid value) on which the skill's run must fail`)
	}
	for _, name := range order {
		if len(values[name]) > 1 {
			continue
		}
		var only string
		for v := range values[name] {
			only = v
		}
		problems = append(problems, fmt.Sprintf("examples: every example that checks %s expects %s: a program that always gives %s would pass them; add an example where it differs, or leave it out of expect", name, only, only))
	}
	return problems
}

// inputsKey is an example's inputs (its vars, files and events) as JSON, the
// same for two examples that give the same inputs.
func inputsKey(ex Example) string {
	b, _ := json.Marshal(map[string]any{"vars": ex.Vars, "files": ex.Files, "events": ex.Events})
	return string(b)
}

// echoProblems says which variables an example that succeeds both gives in
// its vars and expects with the same value: a run that leaves them as given
// passes it (a script that echoes its input, or none at all).
func echoProblems(ex Example) []string {
	if ex.Kind == KindError {
		return nil
	}
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(ex.Expect)) {
		if v, ok := ex.Vars[name]; ok && SameValue(ex.Expect[name], v, ex.Tolerance) {
			problems = append(problems, fmt.Sprintf("it gives %s %s in its vars and expects the same value at the end: a run that leaves %s as it was given passes it; give only the inputs in vars (a variable the run must change may start with another value)", name, ShowValue(v), name))
		}
	}
	return problems
}

// kindProblems says why an example's kind is not one of the three.
func kindProblems(ex Example) []string {
	switch ex.Kind {
	case KindTypical, KindEdge, KindError:
		return nil
	case "":
		return []string{`it has no kind: give "kind": "typical", "edge" or "error"`}
	}
	return []string{fmt.Sprintf(`its kind %q is not "typical", "edge" or "error"`, ex.Kind)}
}

// Problems returns why one example is no evidence (what it expects,
// its tolerance, its files); nil when it can stand. spec.examples refuses
// such an example; examples.vet also asks for a kind and judges the set.
func Problems(ex Example) []string {
	var problems []string
	if ex.Kind != KindError && len(ex.Expect) == 0 && len(ex.Contains) == 0 {
		problems = append(problems, "it expects nothing; give expect {variable: value} or contains {variable: text}")
	}
	for _, name := range slices.Sorted(maps.Keys(ex.Contains)) {
		if strings.TrimSpace(ex.Contains[name]) == "" {
			problems = append(problems, fmt.Sprintf("contains %s is an empty text, which every text holds: give the text %s must hold, or leave it out", name, name))
		}
	}
	if ex.Tolerance != nil {
		if limit := toleranceLimit(ex.Expect); *ex.Tolerance < 0 || *ex.Tolerance > limit {
			problems = append(problems, fmt.Sprintf("tolerance %s is not small next to the values it expects (at most %s here, 1 %% of the smallest): leave it out (numbers are compared within 0.01 %%) or make it smaller", fmtNum(*ex.Tolerance), fmtNum(limit)))
		} else if *ex.Tolerance >= 1 && onlyWholeNumbers(ex.Expect) {
			problems = append(problems, fmt.Sprintf("tolerance %s lets a whole number it expects be off by one (a count, a day, a second): leave it out (whole numbers are compared exactly)", fmtNum(*ex.Tolerance)))
		}
	}
	for _, p := range slices.Sorted(maps.Keys(ex.Files)) {
		rel, ok := fsx.CleanRel(p)
		if !ok {
			problems = append(problems, fmt.Sprintf("file %q must be a path inside the skill folder, relative to it", p))
			continue
		}
		if !strings.HasPrefix(rel, exampleInputDir) || rel == path.Clean(exampleInputDir) {
			problems = append(problems, fmt.Sprintf("file %s is not an input file: an example's files go under %s (e.g. %s%s), never over the skill's own files (its spec, scripts, skills.md)", rel, exampleInputDir, exampleInputDir, path.Base(rel)))
		}
	}
	return problems
}

// onlyWholeNumbers reports whether want holds numbers, all whole.
func onlyWholeNumbers(want map[string]any) bool {
	found, whole := false, true
	eachNumber(want, func(f float64) { found, whole = true, whole && wholeNumber(f) })
	return found && whole
}

// eachNumber calls f with each number v holds, at any depth of its lists
// and maps.
func eachNumber(v any, f func(float64)) {
	if n, ok := Number(v); ok {
		f(n)
		return
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			eachNumber(e, f)
		}
	case map[string]any:
		for _, e := range x {
			eachNumber(e, f)
		}
	}
}

// toleranceLimit is the largest tolerance an example expecting want may
// give: 1 % of its smallest non-zero number (exampleMaxZeroTol when it
// expects none).
func toleranceLimit(want map[string]any) float64 {
	smallest := math.Inf(1)
	eachNumber(want, func(f float64) {
		if f != 0 && math.Abs(f) < smallest {
			smallest = math.Abs(f)
		}
	})
	if math.IsInf(smallest, 1) {
		return exampleMaxZeroTol
	}
	return exampleMaxRelTol * smallest
}

// derivation is one item of an independent derivation: what the run of an
// example must give, or that it must fail.
type derivation struct {
	Name   string         `json:"name"`
	Fails  bool           `json:"fails"`
	Expect map[string]any `json:"expect"`
}

// CompareDerived returns where an independent derivation disagrees with the
// examples (matched by name when it names each once, else by position): an error example the derivation says
// succeeds or the reverse, and each expected value it gives differently
// (numeric strings read as numbers). A derivation that does not answer for
// every example, or gives no value for one an example expects, checked
// nothing there: that is a problem too, never an agreement.
func CompareDerived(list, derived []any) []string {
	var problems []string
	derived = inExampleOrder(list, derived)
	if len(derived) != len(list) {
		problems = append(problems, fmt.Sprintf("examples: the independent derivation answered with %d item(s) for the %d examples, so they could not be checked against it one by one; the examples are written again and derived again", len(derived), len(list)))
	}
	for i, raw := range list {
		ex, err := Decode(raw)
		if err != nil || i >= len(derived) {
			continue
		}
		head := fmt.Sprintf("example %d %q", i+1, ex.Name)
		var dv derivation
		if b, err := json.Marshal(derived[i]); err != nil || json.Unmarshal(b, &dv) != nil {
			problems = append(problems, head+": the independent derivation's item for it is not {name, fails, expect}, so it could not be checked; the examples are written again and derived again")
			continue
		}
		switch {
		case ex.Kind == KindError && !dv.Fails:
			problems = append(problems, head+" is an error example (its run must fail), but an independent derivation from the target and the inputs says the run succeeds: give it an input the skill must refuse, or make it a typical or edge example with its expected values")
			continue
		case ex.Kind != KindError && dv.Fails:
			problems = append(problems, head+" expects the run to succeed, but an independent derivation from the target and the inputs says it must fail: check its inputs, or make it an error example")
			continue
		case ex.Kind == KindError:
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(ex.Expect)) {
			got, ok := dv.Expect[name]
			if !ok {
				problems = append(problems, fmt.Sprintf("%s expects %s %s, but the independent derivation gives no value for %s, so it could not be checked; the examples are written again and derived again", head, name, ShowValue(ex.Expect[name]), name))
				continue
			}
			// A number written as a string on either side is compared as the
			// number (the types are spec.promises' to check).
			want := ex.Expect[name]
			if _, wantNum := Number(want); wantNum {
				got = numericString(got)
			} else if _, gotNum := Number(got); gotNum {
				want = numericString(want)
			}
			// Both are written by hand: either one's digits may be the coarser.
			if !SameValue(want, got, ex.Tolerance) && !SameValue(got, want, ex.Tolerance) {
				problems = append(problems, fmt.Sprintf("%s expects %s %s, but an independent derivation from the target and the inputs gives %s: work it out again by hand and correct the example (its expect must be what the target asks for)", head, name, ShowValue(ex.Expect[name]), ShowValue(got)))
			}
		}
	}
	return problems
}

// inExampleOrder returns derived in the examples' order when it names each
// example once, by its name, in another order (a model that grouped its
// answers by kind): matched by position, every value would be compared with
// another example's. Otherwise derived is returned as it is, matched by
// position.
func inExampleOrder(list, derived []any) []any {
	if len(derived) != len(list) {
		return derived
	}
	byName := map[string]any{}
	for _, raw := range derived {
		m, _ := raw.(map[string]any)
		name, ok := m["name"].(string)
		if !ok || byName[name] != nil {
			return derived
		}
		byName[name] = raw
	}
	out := make([]any, len(list))
	for i, raw := range list {
		ex, err := Decode(raw)
		if err != nil || byName[ex.Name] == nil {
			return derived
		}
		out[i] = byName[ex.Name]
		delete(byName, ex.Name)
	}
	return out
}
