package examples

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestVetExamplesRefusesExamplesThatCannotFail(t *testing.T) {
	typical := func(name string, words, longest int) map[string]any {
		return map[string]any{"name": name, "kind": "typical", "vars": map[string]any{"source": "skills/ws/reference/" + name}, "files": map[string]any{"reference/" + name: "x"}, "expect": map[string]any{"words": words, "longest_line": longest}}
	}
	edge := map[string]any{"name": "blank", "kind": "edge", "vars": map[string]any{"source": "skills/ws/reference/blank"}, "files": map[string]any{"reference/blank": "\n\n"}, "expect": map[string]any{"words": 0, "longest_line": 0}}
	missing := map[string]any{"name": "missing", "kind": "error", "vars": map[string]any{"source": "skills/ws/reference/none"}, "expect": map[string]any{}}
	tests := []struct {
		name     string
		examples []any
		problems []string
	}{
		{name: "typical, edge and error examples whose values differ stand", examples: []any{typical("a", 7, 2), typical("b", 4, 1), edge, missing}},
		{
			name: "a set without an edge or an error example is refused", examples: []any{typical("a", 7, 2), typical("b", 4, 1)},
			problems: []string{
				`examples: none is an edge case: add one with "kind": "edge" (empty input, blank lines or double spaces, non-ASCII text, a zero or the largest value) and its expected values`,
				`examples: none is an error case: add one with "kind": "error" (a missing file, an invalid value) on which the skill's run must fail`,
			},
		},
		{
			name: "a set in which fewer than two examples succeed is refused (one is held out from the writer)", examples: []any{edge, missing, map[string]any{"name": "bad", "kind": "error", "vars": map[string]any{"source": ""}, "expect": map[string]any{}}},
			problems: []string{
				`examples: fewer than two examples succeed (typical or edge): add another typical one; one example that succeeds is held out from the writer of the code, so a script fitted to the examples it sees fails it`,
				`examples: every example that checks longest_line expects 0: a program that always gives 0 would pass them; add an example where it differs, or leave it out of expect`,
				`examples: every example that checks words expects 0: a program that always gives 0 would pass them; add an example where it differs, or leave it out of expect`,
			},
		},
		{
			name: "a variable every example expects with the same value is refused (a constant program would pass)", examples: []any{typical("a", 7, 1), typical("b", 4, 1), map[string]any{"name": "e", "kind": "edge", "vars": map[string]any{}, "expect": map[string]any{"words": 0, "longest_line": 1}}, missing},
			problems: []string{`examples: every example that checks longest_line expects 1: a program that always gives 1 would pass them; add an example where it differs, or leave it out of expect`},
		},
		{
			name: "an example without a kind, an empty contains text and a huge tolerance are refused",
			examples: []any{
				map[string]any{"name": "two lines", "vars": map[string]any{"source": "a"}, "expect": map[string]any{"words": 7, "longest_line": 2}, "tolerance": 100.0},
				map[string]any{"name": "report", "kind": "typical", "vars": map[string]any{"source": "b"}, "expect": map[string]any{"words": 4, "longest_line": 1}, "contains": map[string]any{"report": ""}},
				edge, missing,
			},
			problems: []string{
				`example 1 "two lines": it has no kind: give "kind": "typical", "edge" or "error"`,
				`example 1 "two lines": tolerance 100 is not small next to the values it expects (at most 0.02 here, 1 % of the smallest): leave it out (numbers are compared within 0.01 %) or make it smaller`,
				`example 2 "report": contains report is an empty text, which every text holds: give the text report must hold, or leave it out`,
				`examples: every example that checks report (contains) expects "": a program that always gives "" would pass them; add an example where it differs, or leave it out of expect`,
			},
		},
		{
			name: "an example's file over the skill's own script is refused",
			examples: []any{
				map[string]any{"name": "shadow", "kind": "typical", "vars": map[string]any{}, "files": map[string]any{"reference/two.txt": "a b", "scripts/word_stats.py": "print(7)"}, "expect": map[string]any{"words": 7, "longest_line": 2}},
				typical("b", 4, 1), edge, missing,
			},
			problems: []string{`example 1 "shadow": file scripts/word_stats.py is not an input file: an example's files go under reference/ (e.g. reference/word_stats.py), never over the skill's own files (its spec, scripts, skills.md)`},
		},
		{
			name:     "a tolerance of 1 on whole numbers is refused (a count off by one would pass)",
			examples: []any{map[string]any{"name": "counts", "kind": "typical", "vars": map[string]any{"source": "c"}, "expect": map[string]any{"words": 190, "longest_line": 120}, "tolerance": 1}, typical("b", 4, 1), edge, missing},
			problems: []string{`example 1 "counts": tolerance 1 lets a whole number it expects be off by one (a count, a day, a second): leave it out (whole numbers are compared exactly)`},
		},
		{
			name:     "a tolerance under 1 on whole numbers, or of 1 on a fraction, stands",
			examples: []any{map[string]any{"name": "days", "kind": "typical", "vars": map[string]any{"date": "2024-01-01"}, "expect": map[string]any{"days": 19723}, "tolerance": 0.5}, map[string]any{"name": "m", "kind": "typical", "vars": map[string]any{"date": "x"}, "expect": map[string]any{"days": 12000.5}, "tolerance": 1}, typical("b", 4, 1), edge, missing},
		},
		{
			name:     "an example with the same inputs as another is refused (held out, it would prove nothing)",
			examples: []any{typical("a", 7, 2), edge, missing, map[string]any{"name": "a again", "kind": "typical", "vars": map[string]any{"source": "skills/ws/reference/a"}, "files": map[string]any{"reference/a": "x"}, "expect": map[string]any{"words": 4, "longest_line": 1}}},
			problems: []string{`example 4 "a again" has the same inputs (vars, files and events) as example 1 "a": it checks nothing more, and when it is the one held out from the writer of the code, a script that looks up the examples it was shown passes it; give it inputs of its own, or merge the two`},
		},
		{
			name:     "examples with the same vars and other input files stand",
			examples: []any{typical("a", 7, 2), edge, missing, map[string]any{"name": "a, other text", "kind": "typical", "vars": map[string]any{"source": "skills/ws/reference/a"}, "files": map[string]any{"reference/a": "y z"}, "expect": map[string]any{"words": 2, "longest_line": 1}}},
		},
		{
			name: "an example that gives a variable it expects, with the same value, is refused (a run that leaves it passes)",
			examples: []any{
				map[string]any{"name": "plain", "kind": "typical", "vars": map[string]any{"text": "the cat sat", "words": 3}, "expect": map[string]any{"words": 3}},
				map[string]any{"name": "empty", "kind": "edge", "vars": map[string]any{"text": ""}, "expect": map[string]any{"words": 0}},
				map[string]any{"name": "counter", "kind": "typical", "vars": map[string]any{"text": "one", "words": 5}, "expect": map[string]any{"words": 6}},
				missing,
			},
			problems: []string{`example 1 "plain": it gives words 3 in its vars and expects the same value at the end: a run that leaves words as it was given passes it; give only the inputs in vars (a variable the run must change may start with another value)`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.problems, Vet(tt.examples))
		})
	}
}

func TestCompareDerivedNamesEveryDisagreement(t *testing.T) {
	examples := []any{
		map[string]any{"name": "hyphenated", "kind": "typical", "vars": map[string]any{}, "expect": map[string]any{"words": 4, "longest_line": 1}},
		map[string]any{"name": "12 ft", "kind": "typical", "vars": map[string]any{}, "expect": map[string]any{"result": 3.6576}},
		map[string]any{"name": "missing", "kind": "error", "vars": map[string]any{}, "expect": map[string]any{}},
		map[string]any{"name": "empty", "kind": "edge", "vars": map[string]any{}, "expect": map[string]any{"words": 0}},
	}
	derived := []any{
		map[string]any{"name": "hyphenated", "fails": false, "expect": map[string]any{"words": 3, "longest_line": 1}},
		map[string]any{"name": "12 ft", "fails": false, "expect": map[string]any{"result": "3.6576"}},
		map[string]any{"name": "missing", "fails": false, "expect": map[string]any{}},
		map[string]any{"name": "empty", "fails": true, "expect": map[string]any{}},
	}
	assert.Equal(t, []string{
		`example 1 "hyphenated" expects words 4, but an independent derivation from the target and the inputs gives 3: work it out again by hand and correct the example (its expect must be what the target asks for)`,
		`example 3 "missing" is an error example (its run must fail), but an independent derivation from the target and the inputs says the run succeeds: give it an input the skill must refuse, or make it a typical or edge example with its expected values`,
		`example 4 "empty" expects the run to succeed, but an independent derivation from the target and the inputs says it must fail: check its inputs, or make it an error example`,
	}, CompareDerived(examples, derived))
}

func TestADerivationThatChecksNothingIsNoAgreement(t *testing.T) {
	examples := []any{
		map[string]any{"name": "a hyphen", "kind": "typical", "vars": map[string]any{"text": "a well-known fact"}, "expect": map[string]any{"words": 4}},
		map[string]any{"name": "empty", "kind": "edge", "vars": map[string]any{"text": ""}, "expect": map[string]any{"words": 0}},
		map[string]any{"name": "not text", "kind": "error", "vars": map[string]any{"text": "\x00"}, "expect": map[string]any{}},
	}
	tests := []struct {
		name     string
		derived  []any
		problems []string
	}{
		{
			name:    "a derivation that answers for the first example only",
			derived: []any{map[string]any{"name": "a hyphen", "fails": false, "expect": map[string]any{"words": 4}}},
			problems: []string{
				`examples: the independent derivation answered with 1 item(s) for the 3 examples, so they could not be checked against it one by one; the examples are written again and derived again`,
			},
		},
		{
			name: "a derivation that gives no values",
			derived: []any{
				map[string]any{"name": "a hyphen", "fails": false, "expect": map[string]any{}},
				map[string]any{"name": "empty", "fails": false, "expect": map[string]any{}},
				map[string]any{"name": "not text", "fails": true, "expect": map[string]any{}},
			},
			problems: []string{
				`example 1 "a hyphen" expects words 4, but the independent derivation gives no value for words, so it could not be checked; the examples are written again and derived again`,
				`example 2 "empty" expects words 0, but the independent derivation gives no value for words, so it could not be checked; the examples are written again and derived again`,
			},
		},
		{
			name: "a derivation whose item is not an object",
			derived: []any{
				"words 4",
				map[string]any{"name": "empty", "fails": false, "expect": map[string]any{"words": 0}},
				map[string]any{"name": "not text", "fails": true, "expect": map[string]any{}},
			},
			problems: []string{
				`example 1 "a hyphen": the independent derivation's item for it is not {name, fails, expect}, so it could not be checked; the examples are written again and derived again`,
			},
		},
		{
			name: "a derivation that gives every value, and agrees",
			derived: []any{
				map[string]any{"name": "a hyphen", "fails": false, "expect": map[string]any{"words": 4}},
				map[string]any{"name": "empty", "fails": false, "expect": map[string]any{"words": 0}},
				map[string]any{"name": "not text", "fails": true, "expect": map[string]any{}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.problems, CompareDerived(examples, tt.derived))
		})
	}
}

func TestADerivationWrittenWithOtherDigitsAgrees(t *testing.T) {
	examples := []any{
		map[string]any{"name": "5 km", "kind": "typical", "vars": map[string]any{"value": 5}, "expect": map[string]any{"result": 3.10686}},
		map[string]any{"name": "sum", "kind": "typical", "vars": map[string]any{"value": 1}, "expect": map[string]any{"result": 120007.75}},
	}
	derived := []any{
		map[string]any{"name": "5 km", "fails": false, "expect": map[string]any{"result": 3.1069}},
		map[string]any{"name": "sum", "fails": false, "expect": map[string]any{"result": 120000.5}},
	}
	assert.Equal(t, []string{
		`example 2 "sum" expects result 120007.75, but an independent derivation from the target and the inputs gives 120000.5: work it out again by hand and correct the example (its expect must be what the target asks for)`,
	}, CompareDerived(examples, derived))
}

func TestADerivationInAnotherOrderIsMatchedByName(t *testing.T) {
	examples := []any{
		map[string]any{"name": "two lines", "kind": "typical", "vars": map[string]any{"source": "a"}, "expect": map[string]any{"words": 7}},
		map[string]any{"name": "missing", "kind": "error", "vars": map[string]any{"source": "b"}, "expect": map[string]any{}},
		map[string]any{"name": "one line", "kind": "typical", "vars": map[string]any{"source": "c"}, "expect": map[string]any{"words": 4}},
	}
	item := func(name string, fails bool, words any) map[string]any {
		expect := map[string]any{}
		if words != nil {
			expect["words"] = words
		}
		return map[string]any{"name": name, "fails": fails, "expect": expect}
	}
	tests := []struct {
		name     string
		derived  []any
		problems []string
	}{
		{name: "the error example last: matched by name, they agree", derived: []any{item("two lines", false, 7), item("one line", false, 4), item("missing", true, nil)}},
		{
			name:     "matched by name, a disagreement names the right example",
			derived:  []any{item("one line", false, 5), item("two lines", false, 7), item("missing", true, nil)},
			problems: []string{`example 3 "one line" expects words 4, but an independent derivation from the target and the inputs gives 5: work it out again by hand and correct the example (its expect must be what the target asks for)`},
		},
		{
			name:    "names that do not match the examples': matched by position",
			derived: []any{item("2 lines", false, 7), item("one line", false, 4), item("missing", true, nil)},
			problems: []string{
				`example 2 "missing" is an error example (its run must fail), but an independent derivation from the target and the inputs says the run succeeds: give it an input the skill must refuse, or make it a typical or edge example with its expected values`,
				`example 3 "one line" expects the run to succeed, but an independent derivation from the target and the inputs says it must fail: check its inputs, or make it an error example`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.problems, CompareDerived(examples, tt.derived))
		})
	}
}
