package lpp

import (
	"strings"
	"testing"
)

// A gate that is declared but invalid is reported once, where it is
// declared, not again by each transition that names it.
func TestInvalidGateIsNotReportedAgainByItsTransitions(t *testing.T) {
	src := `{"$schema": "lpp/v0.2.0", "id": "g",
  "context_schema": {"properties": {"x": {"type": "string"}}},
  "gates": {"g": {"type": "bogus", "expression": "x is None"}},
  "actions": {"a1": {"target": "x", "value": "y"}},
  "states": {"a": {}, "b": {}}, "entry_state": "a", "terminal_states": {"b": {}},
  "transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO", "gates": ["g", "nope"], "actions": ["a1"]}], "name": "x", "version": "1"}`
	_, diags := Parse("g.json", []byte(src))
	var got []string
	for _, d := range diags.Errors() {
		got = append(got, d.Msg)
	}
	want := []string{
		`unknown type "bogus" of gate "g"`,
		`gates of transition "t" names "nope", which is not declared in gates`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestATerminalListInAV02BlueprintIsRefusedOnceNamingTheArrayForm: a
// lpp/v0.2.0 terminal_states given as an array got "the blueprint has no
// terminal states: a run never ends" beside "terminal state "b" is not a
// state", and a third error at the transition that goes to it.
func TestATerminalListInAV02BlueprintIsRefusedOnceNamingTheArrayForm(t *testing.T) {
	for _, tt := range []struct{ schema, want string }{
		{"lpp/v0.2.0", `t.json:1:80: terminal state "b" is not a state: terminal_states is an array (the lpp/v0.1.x form), whose ids must be in states; lpp's loader refuses it too = write "terminal_states": {"b": {}} (the lpp/v0.2.0 form: a terminal state needs no entry in states), or add "b" to states`},
		{"lpp/v0.1.2", `t.json:1:80: terminal state "b" is not a state (lpp's loader refuses it too in a lpp/v0.1.2 blueprint) = did you mean "a"?`},
	} {
		src := `{"$schema":"` + tt.schema + `","states":{"a":{}},"entry_state":"a","terminal_states":["b"],"transitions":[{"id":"t","from":"a","to":"b","on_event":"START"}], "id": "x", "name": "x", "version": "1"}`
		_, diags := Parse("t.json", []byte(src))
		var got []string
		for _, d := range diags {
			got = append(got, d.Where()+": "+d.Msg+" = "+d.Hint)
		}
		if strings.Join(got, "\n") != tt.want {
			t.Errorf("%s: diagnostics:\n%s\nwant:\n%s", tt.schema, strings.Join(got, "\n"), tt.want)
		}
	}
}
