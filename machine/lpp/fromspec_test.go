package lpp

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/lpp/gate"
	"github.com/lppctl/lppctl/machine/lpp/mapfile"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// importSpec translates a test blueprint (with the mapping beside it) and
// decodes the spec.
func importSpec(t *testing.T, f string) (*Blueprint, *mspec.Spec) {
	t.Helper()
	bp, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	m, err := mapfile.Load(mapfile.Path(f))
	if err != nil {
		t.Fatal(err)
	}
	out, err := ToSpecYAML(bp, m)
	if err != nil {
		t.Fatal(err)
	}
	spec, diags := mspec.Parse(strings.TrimSuffix(f, ".json")+".yaml", out)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	return bp, spec
}

// actionText is an action as the round trip compares it (the maps' order
// aside).
func actionText(a *Action) string {
	sorted := func(kvs []KV) []KV {
		kvs = slices.Clone(kvs)
		slices.SortFunc(kvs, func(a, b KV) int { return strings.Compare(a.Key, b.Key) })
		return kvs
	}
	v, _ := json.Marshal(a.Value)
	b, _ := json.Marshal([]any{a.Type, a.Target, string(v), a.HasValue, a.ValueFrom, a.ComputeUnit, sorted(a.InputMap), sorted(a.OutputMap), a.Event, sorted(a.PayloadMap)})
	return string(b)
}

// gateText is a gate as the round trip compares it: translated to expr.
func gateText(t *testing.T, bp *Blueprint, id string) string {
	g := bp.Gate(id)
	if g.Type == GateCompute {
		return "compute " + g.ComputeUnit
	}
	x, err := gate.Translate(g.Expression, propertyTypesOf(bp))
	if err != nil {
		t.Fatalf("gate %s: %v", id, err)
	}
	return x
}

// import, then FromSpec, gives back every test blueprint: the same states,
// entry and terminals, the transitions in the same order with the same
// sources, targets, events, gates (up to translation) and actions. The
// transitions of terminal states are the exception: import drops them
// (a terminal state ends the run) and warns.
func TestImportThenFromSpecRoundTrips(t *testing.T) {
	for _, f := range blueprints(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			orig, spec := importSpec(t, f)
			out, err := FromSpec(spec)
			if err != nil {
				t.Fatal(err)
			}
			sameBlueprint(t, orig, out)
		})
	}
}

// A spec written by hand is written as a blueprint too: next: is the DONE
// list the driver fires on entering a state, on: the events a state waits
// for, top-level events transitions from "*".
func TestFromSpecOfAHandWrittenSpec(t *testing.T) {
	src := `lpp: 1
name: door
description: a door
context:
  opened: {type: int, default: 0, doc: times opened}
  who: {type: string, nullable: true}
initial: closed
states:
  closed:
    note: the door is closed
    on:
      OPEN:
        - {to: open, when: 'event.payload.who != nil && opened < 3', set: {who: event.payload.who, opened: '1'}, note: opening}
  open:
    next: [{to: done}]
  done: {final: true}
events:
  OPEN:
    payload: {who: {type: string, required: false}}
  SLAM:
    transitions:
      - {from: '*', to: done, set: {who: nil}}
`
	spec, diags := mspec.Parse("door.yaml", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	out, err := FromSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "$schema": "lpp/v0.2.0",
  "id": "door",
  "name": "door",
  "version": "1.0.0",
  "description": "a door",
  "context_schema": {
    "properties": {
      "opened": {
        "type": "integer",
        "description": "times opened",
        "default": 0
      },
      "who": {
        "type": "string"
      }
    }
  },
  "states": {
    "closed": {
      "description": "the door is closed"
    },
    "open": {},
    "done": {}
  },
  "entry_state": "closed",
  "terminal_states": {
    "done": {}
  },
  "gates": {
    "opening_1": {
      "type": "expression",
      "expression": "event.payload.who is not None"
    },
    "opening_2": {
      "type": "expression",
      "expression": "opened < 3"
    }
  },
  "actions": {
    "opening_1": {
      "type": "set",
      "target": "who",
      "value_from": "event.payload.who"
    },
    "opening_2": {
      "type": "set",
      "target": "opened",
      "value": 1
    },
    "any_done_3_1": {
      "type": "set",
      "target": "who",
      "value": null
    }
  },
  "transitions": [
    {
      "id": "opening",
      "from": "closed",
      "to": "open",
      "on_event": "OPEN",
      "gates": [
        "opening_1",
        "opening_2"
      ],
      "actions": [
        "opening_1",
        "opening_2"
      ]
    },
    {
      "id": "open_done_2",
      "from": "open",
      "to": "done",
      "on_event": "DONE"
    },
    {
      "id": "any_done_3",
      "from": "*",
      "to": "done",
      "on_event": "SLAM",
      "actions": [
        "any_done_3_1"
      ]
    }
  ]
}
`
	if string(out) != want {
		t.Errorf("got:\n%s", out)
	}
	if _, diags := Parse("door.json", out); diags.HasErrors() {
		t.Errorf("the blueprint does not read: %v", diags.Err())
	}
}

// What L++ cannot say is refused, naming the state, the transition and,
// in a guard, the column.
func TestFromSpecRefuses(t *testing.T) {
	tests := []struct{ name, states, want string }{
		{"an action on entering a state", "  a: {do: log, with: {message: hi}, next: [{to: b}]}\n",
			`s.yaml:6:11: cannot write state "a" as L++: it runs log on entering; L++ runs actions on transitions (move it to a transition's helper state, or write it as a compute unit)`},
		{"a guard beyond the dialect", "  a:\n    next:\n      - {to: b, when: 'n > 1 && string(n) matches \"1+\"', note: t1}\n",
			`s.yaml:8:9: cannot write state "a", transition "t1" as L++: column 20 of its guard "n > 1 && string(n) matches \"1+\"": the operator matches has no L++ equivalent (write it as a compute gate)`},
		{"a computed set", "  a:\n    next:\n      - {to: b, set: {n: n + 1}, note: t1}\n",
			`s.yaml:8:23: cannot write state "a", transition "t1" as L++: set n: n + 1: an L++ set takes a literal, a variable or event.payload.NAME (write a computation as a compute action)`},
		{"a state's set", "  a: {set: {n: '2'}, next: [{to: b}]}\n",
			`s.yaml:6:13: cannot write state "a" as L++: it sets variables on entering; L++ sets them on transitions (move the set to the transitions into it)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "lpp: 1\nname: s\ncontext: {n: {type: int, default: 0}}\ninitial: a\nstates:\n" + tt.states + "  b: {final: true}\n"
			spec, diags := mspec.Parse("s.yaml", []byte(src))
			if diags.HasErrors() {
				t.Fatal(diags.Err())
			}
			_, err := FromSpec(spec)
			var fe *FromSpecError
			if !errors.As(err, &fe) || err.Error() != tt.want {
				t.Fatalf("FromSpec: %v\nwant %s", err, tt.want)
			}
		})
	}
}

// sameBlueprint holds that out, a blueprint FromSpec wrote, is orig as
// docs/lpp.md says: the same states, terminals, entry, $schema and id, the
// transitions in the same order (but those out of a terminal state, which
// the import drops) with the same gates up to translation and the same
// actions (but those lpp skips, which the import drops), the same display.
func sameBlueprint(t *testing.T, orig *Blueprint, out []byte) {
	t.Helper()
	back, diags := Parse("back.json", out)
	if diags.HasErrors() {
		t.Fatalf("the written blueprint is invalid:\n%s\n%s", diags.Err(), out)
	}
	ids := func(bp *Blueprint) (states, terms []string) {
		for _, s := range bp.States {
			states = append(states, s.ID+": "+s.Description)
		}
		for _, s := range bp.Terminals {
			terms = append(terms, s.ID+" "+string(compactJSON(s.Raw)))
		}
		return
	}
	s1, t1 := ids(orig)
	s2, t2 := ids(back)
	if !slices.Equal(s1, s2) || !slices.Equal(t1, t2) || orig.Entry != back.Entry || orig.Schema != back.Schema || orig.ID != back.ID {
		t.Errorf("states %v, terminals %v, entry %s, schema %s, id %s;\nwant %v, %v, %s, %s, %s", s2, t2, back.Entry, back.Schema, back.ID, s1, t1, orig.Entry, orig.Schema, orig.ID)
	}
	var want []*Transition
	for _, tr := range orig.Transitions {
		if !orig.IsTerminal(tr.From) {
			want = append(want, tr)
		}
	}
	if len(back.Transitions) != len(want) {
		t.Fatalf("%d transitions, want %d:\n%s", len(back.Transitions), len(want), out)
	}
	for i, w := range want {
		g := back.Transitions[i]
		acts := slices.DeleteFunc(slices.Clone(w.Actions), func(id string) bool { return orig.Action(id).Skipped })
		if g.ID != w.ID || g.From != w.From || g.To != w.To || g.Event != w.Event || !slices.Equal(g.Gates, w.Gates) || !slices.Equal(g.Actions, acts) {
			t.Errorf("transition %d: %+v\nwant %+v", i, *g, *w)
			continue
		}
		for _, id := range w.Gates {
			if a, b := gateText(t, back, id), gateText(t, orig, id); a != b {
				t.Errorf("transition %s: gate %s translates to %s, want %s", w.ID, id, a, b)
			}
		}
		for _, id := range acts {
			if a, b := actionText(back.Action(id)), actionText(orig.Action(id)); a != b {
				t.Errorf("transition %s: action %s is %s, want %s", w.ID, id, a, b)
			}
		}
	}
	if orig.Display != "" && string(compactJSON(orig.Display)) != string(compactJSON(back.Display)) {
		t.Errorf("display %s, want %s", back.Display, orig.Display)
	}
}

// TestAnImportedBlueprintWithDeadPartsExportsBack: a spec import lpp wrote
// is validated as its blueprint is (lpp.IsImported, lpp.AsImported): a
// transition an earlier unguarded one shadows, a state no path reaches and
// a dead end are warnings, so it is written back (rich.json, trap2.json of
// the audit: export refused them, "the spec is invalid (3 errors)").
func TestAnImportedBlueprintWithDeadPartsExportsBack(t *testing.T) {
	tests := []struct {
		file     string
		warnings []string
	}{
		{"rich.json", []string{
			`transition of event "RESET" to "review" can never fire: the unguarded transition to "idle" above always fires first`,
			`transition of event "REJECT" to "failed" can never fire: the unguarded transition to "failed" above always fires first`,
			`state "orphan" is unreachable from the initial state "idle"`}},
		{"trap2.json", []string{
			`no final state can be reached from state "a"`,
			`state "b" has no way out: it is not final and has no next transitions`}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			orig, err := Load(filepath.Join("testdata", "roundtrip", tt.file))
			require.NoError(t, err)
			// validated without a mapping (machine's registry has no script.run: each unit a no-op)
			text, err := ToSpecYAML(orig, &mapfile.Mapping{Unmapped: true})
			require.NoError(t, err)
			require.True(t, IsImported(text))
			spec, diags := mspec.Parse("x.spec.yaml", text)
			require.False(t, diags.HasErrors(), "%s", diags.Err())
			raw := validate.Validate(spec, machine.NewBuiltinRegistry())
			require.True(t, raw.HasErrors(), "as a hand-written spec, it has errors")
			vd := AsImported(raw)
			require.False(t, vd.HasErrors(), "%s", vd.Errors().PrettyAll(text))
			var got []string
			for _, d := range vd.Warnings() {
				got = append(got, d.Msg)
			}
			for _, w := range tt.warnings {
				assert.Contains(t, got, w)
			}
			// written back with one (an unmapped unit's action is a no-op the spec cannot give back)
			text, err = ToSpecYAML(orig, &mapfile.Mapping{Units: map[string]mapfile.Unit{"impl:json.load": {Script: "scripts/impl.py", Function: "json.load"}, "chk:gate": {Script: "scripts/chk.py", Function: "gate"}}})
			require.NoError(t, err)
			spec, diags = mspec.Parse("x.spec.yaml", text)
			require.False(t, diags.HasErrors(), "%s", diags.Err())
			out, err := FromSpec(spec)
			require.NoError(t, err)
			sameBlueprint(t, orig, out)
		})
	}
}

// TestOnlyASpecImportLppWroteIsImported: the # lpp-blueprint: line counts
// among the comments a spec starts with, and only when it decodes.
func TestOnlyASpecImportLppWroteIsImported(t *testing.T) {
	assert.True(t, IsImported([]byte("# Generated\n\n# lpp-blueprint: {\"id\":\"x\"}\nlpp: 1\n")))
	assert.False(t, IsImported([]byte("lpp: 1\n# lpp-blueprint: {\"id\":\"x\"}\n")))
	assert.False(t, IsImported([]byte("# lpp-blueprint: {not json\nlpp: 1\n")))
	assert.False(t, IsImported([]byte("lpp: 1\nname: x\n")))
}

// TestAnAutoTransitionOfAStateWhereDoneAlwaysFiresIsWrittenBack: the driver
// fires a state's unguarded DONE on entering it, so its AUTO transitions
// never fired and were left out of the spec, and of export --format lpp.
// The state now lists them in on: (a pending AUTO is taken before DONE).
func TestAnAutoTransitionOfAStateWhereDoneAlwaysFiresIsWrittenBack(t *testing.T) {
	src := `{"$schema":"lpp/v0.2.0","id":"da","name":"da","version":"1",
"context_schema":{"properties":{"n":{"type":"integer"}}},
"states":{"s":{},"u":{}},"entry_state":"s","terminal_states":{"end":{}},
"gates":{"big":{"type":"expression","expression":"n > 2"}},
"actions":{"one":{"type":"set","target":"n","value":1}},
"transitions":[{"id":"go","from":"s","to":"u","on_event":"GO"},
{"id":"a","from":"u","to":"s","on_event":"AUTO","gates":["big"],"actions":["one"]},
{"id":"d","from":"u","to":"end","on_event":"DONE"}]}`
	orig, diags := Parse("da.json", []byte(src))
	require.False(t, diags.HasErrors(), "%s", diags.Err())
	text, err := ToSpecYAML(orig, &mapfile.Mapping{Start: []string{"START"}, Auto: []string{"DONE", "AUTO"}})
	require.NoError(t, err)
	spec, diags := mspec.Parse("da.spec.yaml", text)
	require.False(t, diags.HasErrors(), "%s", diags.Err())
	out, err := FromSpec(spec)
	require.NoError(t, err)
	sameBlueprint(t, orig, out)
}
