package lpp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TestANumberPythonsJSONReadsIsAcceptedWhereLppIgnoresIt: lpp reads
// blueprints with Python's json, which reads NaN, Infinity, -Infinity (not
// JSON), 1e400 (inf) and an integer of any size. They were refused as
// invalid JSON. Now each is accepted with a warning where lpp does not use
// the value (the translated spec holds null or nothing in its place), and
// refused, with its position, where the value would matter.
func TestANumberPythonsJSONReadsIsAcceptedWhereLppIgnoresIt(t *testing.T) {
	const head = `{"$schema": "lpp/v0.2.0", "id": "q", "name": "q", "version": "1", "states": {"idle": {}}, "entry_state": "idle", "terminal_states": {"done": {}}, `
	const props = `"context_schema": {"properties": {"n": {"type": "number"}}}, `
	const trans = `"transitions": [{"id": "t", "from": "idle", "to": "done", "on_event": "START"%s}]}`
	cannot := "lppctl cannot carry it (its specs, expressions and run journals hold finite 64-bit numbers only)"
	nanHint := "write null (None) instead"
	infHint := "write a finite number (at most ±1.7976931348623157e308) or null instead"
	cases := []struct {
		name, src string
		want      []string // Where: Severity: Msg = Hint
	}{
		{"a default of NaN is dropped, as lpp drops every default",
			head + `"context_schema": {"properties": {"n": {"type": "number", "default": NaN}}}, ` + strings.Replace(trans, "%s", "", 1),
			[]string{`q.json:1:216: warning: default of property "n" holds NaN, which Python's json (lpp's loader) reads as the float nan: ` + cannot + `, so the property has no default and starts None, as every property does in lpp (lpp ignores defaults) = ` + nanHint}},
		{"a default of 1e400 likewise",
			head + `"context_schema": {"properties": {"n": {"type": "number", "default": -1e400}}}, ` + strings.Replace(trans, "%s", "", 1),
			[]string{`q.json:1:216: warning: default of property "n" holds -1e400, which Python's json (lpp's loader) reads as the float -inf: ` + cannot + `, so the property has no default and starts None, as every property does in lpp (lpp ignores defaults) = ` + infHint}},
		{"an enum leaves it out",
			head + `"context_schema": {"properties": {"n": {"type": "number", "enum": [1, Infinity]}}}, ` + strings.Replace(trans, "%s", "", 1),
			[]string{`q.json:1:217: warning: enum of property "n" lists Infinity, which Python's json (lpp's loader) reads as the float inf: ` + cannot + `, and leaves it out of the enum (lpp checks no enum when it runs) = ` + infHint}},
		{"kept values hold null: an unknown top-level key, display, description, a terminal contract, the version",
			`{"$schema": "lpp/v0.2.0", "id": "q", "name": "q", "version": NaN, "x": [NaN], "display": {"rules": [{"n": Infinity}]}, "description": {"d": -Infinity},` +
				"\n" + `"states": {"idle": {}}, "entry_state": "idle", "terminal_states": {"done": {"output_schema": {"n": {"type": "number", "value": 1e999}}}}, ` + strings.Replace(trans, "%s", "", 1),
			[]string{`q.json:1:62: warning: "version" holds NaN, which Python's json (lpp's loader) reads as the float nan: lpp does not use it, and ` + cannot + `: export writes null in its place = ` + nanHint,
				`q.json:1:73: warning: key "x" holds NaN, which Python's json (lpp's loader) reads as the float nan: lpp does not use it, and ` + cannot + `: export writes null in its place = ` + nanHint,
				`q.json:1:107: warning: display holds Infinity, which Python's json (lpp's loader) reads as the float inf: lpp does not use it, and ` + cannot + `: export writes null in its place = ` + infHint,
				`q.json:1:141: warning: description holds -Infinity, which Python's json (lpp's loader) reads as the float -inf: lpp does not use it, and ` + cannot + `: export writes null in its place = ` + infHint,
				`q.json:2:128: warning: the contract of terminal state "done" holds 1e999, which Python's json (lpp's loader) reads as the float inf: lpp does not use it, and ` + cannot + `: export writes null in its place = ` + infHint}},
		{"a set value a transition runs is refused",
			head + props + `"actions": {"a": {"type": "set", "target": "n", "value": -Infinity}}, ` + strings.Replace(trans, "%s", `, "actions": ["a"]`, 1),
			[]string{`q.json:1:265: error: the value of action "a" is -Infinity, which Python's json (lpp's loader) reads as the float -inf: ` + cannot + `, and transition "t" runs the action = ` + infHint}},
		{"a set value no transition runs is a warning",
			head + props + `"actions": {"a": {"type": "set", "target": "n", "value": 1` + strings.Repeat("0", 400) + `}}, ` + strings.Replace(trans, "%s", "", 1),
			[]string{`q.json:1:265: warning: the value of action "a" is 1` + strings.Repeat("0", 400) + `, which Python's json (lpp's loader) reads as an integer of 401 digits: ` + cannot + `; no transition runs the action (export writes null) = write it as a string, or as a number within ±1.7976931348623157e308`}},
		{"a state's metadata is read by neither",
			`{"$schema": "lpp/v0.2.0", "id": "q", "name": "q", "version": "1", "states": {"idle": {"metadata": {"w": NaN}}}, "entry_state": "idle", "terminal_states": {"done": {}}, ` + strings.Replace(trans, "%s", "", 1),
			[]string{`q.json:1:105: warning: NaN, which Python's json (lpp's loader) reads as the float nan: lppctl does not read this value, and ` + cannot + ` = ` + nanHint}},
		{"a NaN where a string must be gets that error only",
			`{"$schema": "lpp/v0.2.0", "id": "q", "name": "q", "version": "1", "states": {"idle": {}}, "entry_state": NaN, "terminal_states": {"done": {}}, ` + strings.Replace(trans, "%s", "", 1),
			[]string{`q.json:1:106: error: entry_state must be a string, not NaN = write a string here, as lpp's loader reads one ("text")`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bp, ds := Parse("q.json", []byte(c.src))
			require.NotNil(t, bp)
			var got []string
			for _, d := range ds {
				s := d.Where() + ": " + d.Severity.String() + ": " + d.Msg
				if d.Hint != "" {
					s += " = " + d.Hint
				}
				if !strings.Contains(d.Msg, "no transition enters") {
					got = append(got, s)
				}
			}
			assert.ElementsMatch(t, c.want, got)
			if ds.HasErrors() {
				return
			}
			out, err := ToSpecYAML(bp, nil)
			require.NoError(t, err)
			assert.NotContains(t, strings.ToLower(string(out)), "nan")
			assert.NotContains(t, strings.ToLower(string(out)), "inf")
			spec, sd := mspec.Parse("q.yaml", out)
			require.False(t, sd.HasErrors(), "%v", sd)
			back, err := FromSpec(spec)
			require.NoError(t, err)
			_, bds := Parse("back.json", back)
			require.False(t, bds.HasErrors(), "%v", bds)
		})
	}
}
