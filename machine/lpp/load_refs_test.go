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
