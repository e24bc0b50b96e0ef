package lpp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/lpp/mapfile"
	"github.com/lppctl/lppctl/machine/validate"
)

// bpJSON builds a v0.2.0 blueprint from its parts (JSON members, without
// the outer braces).
func bpJSON(parts ...string) string {
	return `{"$schema": "lpp/v0.2.0", "id": "x", ` + strings.Join(parts, ", ") + `, "name": "x", "version": "1"}`
}

// TestBlueprintsReadAsLppsLoaderReadsThem: what lpp's loader accepts
// (lpp-format.md §16) reads without an error, with the warnings that say
// where lppctl or lpp differ, and translates into a spec that decodes and
// validates; the spec holds what the construct means.
func TestBlueprintsReadAsLppsLoaderReadsThem(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		warnings []string // substrings, each of some warning
		spec     []string // substrings of the translated spec
	}{
		{"a terminal state only under terminal_states is a state",
			bpJSON(`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {"done": {"description": "ok"}}`,
				`"transitions": [{"id": "t", "from": "a", "to": "done", "on_event": "GO"}]`),
			nil, []string{"  done:\n", "final: true"}},
		{"ids that are not identifiers are mapped, and keep their spelling in the diagram",
			bpJSON(`"states": {"to-state": {}}`, `"entry_state": "to-state"`, `"terminal_states": {"all-done": {}}`,
				`"transitions": [{"id": "t", "from": "to-state", "to": "all-done", "on_event": "TO-STATE_DONE"}]`),
			nil, []string{"  to_state:\n", "TO_STATE_DONE:", "to: all_done"}},
		{"properties lppctl reserves are renamed",
			bpJSON(`"context_schema": {"properties": {"event": {"type": "string"}, "state": {"type": "string"}}}`,
				`"gates": {"g": {"type": "expression", "expression": "state == 'x'"}}`,
				`"actions": {"w": {"type": "set", "target": "event", "value": "e"}}`,
				`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {"b": {}}`,
				`"transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO", "gates": ["g"], "actions": ["w"]}]`),
			nil, []string{"lpp_event: {type: string", "lpp_state: {type: string", `lpp_state == "x"`, `lpp_event: '"e"'`}},
		{"undeclared names become implicit nullable properties, typed from their use",
			bpJSON(`"gates": {"g": {"type": "expression", "expression": "mode == 'fast' and n > 2"}}`,
				`"actions": {"w": {"type": "set", "target": "flag", "value": true}}`,
				`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {"b": {}}`,
				`"transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO", "gates": ["g"], "actions": ["w"]}]`),
			[]string{`"flag" is not declared in context_schema: lppctl declares it, nullable and typed boolean`,
				`"mode" is not declared in context_schema and nothing writes it: lpp evaluates a gate reading it false until the caller sets it`,
				`lppctl run --var mode=VALUE`},
			[]string{"flag: {type: bool, nullable: true}", "mode: {type: string, nullable: true}", "'n': {type: float, nullable: true}"}},
		{"_state reads the blueprint state the run rests in",
			bpJSON(`"gates": {"g": {"type": "expression", "expression": "_state == 'a'"}}`,
				`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {"b": {}}`,
				`"transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO", "gates": ["g"]}]`),
			nil, []string{`lpp_current_state: {type: string, nullable: true, default: 'a'`, `when: 'lpp_current_state == "a"'`, `lpp_current_state: '"b"'`}},
		{"an action's read of _state is the state the transition leaves; the target is written after the last step",
			bpJSON(`"context_schema": {"properties": {"prev": {"type": "string"}, "n": {"type": "number"}}}`,
				`"actions": {"p": {"type": "set", "target": "prev", "value_from": "_state"}, "one": {"type": "set", "target": "n", "value": 1},`+
					` "q": {"type": "set", "target": "n", "value_from": "n"}}`,
				`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {"b": {}}`,
				`"transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO", "actions": ["p"]},`+
					` {"id": "u", "from": "a", "to": "b", "on_event": "UP", "actions": ["one", "q", "p"]}]`),
			nil, []string{`{to: b, set: {lpp_current_state: '"b"', prev: 'lpp_current_state'}, note: 't'}`,
				`set: {'n': 'n', prev: 'lpp_current_state'}`, `- {to: b, set: {lpp_current_state: '"b"'}}`}},
		{"a write of _state is read by the later actions of the transition, then the target is written (it wrote a property _state)",
			bpJSON(`"context_schema": {"properties": {"prev": {"type": "string"}}}`,
				`"actions": {"m": {"type": "set", "target": "_state", "value": "x"}, "p": {"type": "set", "target": "prev", "value_from": "_state"}}`,
				`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {"b": {}}`,
				`"transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO", "actions": ["m", "p"]}]`),
			nil, []string{`{to: a__t_1, note: 't (then a__t_1)'}`, `set: {lpp_current_state: '"x"'}`,
				"set: {prev: 'lpp_current_state'}\n    next:\n      - {to: b, set: {lpp_current_state: '\"b\"'}}"}},
		{"an undeclared name written or read through a dotted path is a dict, as lpp creates it",
			bpJSON(`"gates": {"g": {"type": "expression", "expression": "cfg.k == 1 and meta.v is None"}}`,
				`"actions": {"w": {"type": "set", "target": "cfg.k", "value": 1}, "u": {"type": "compute", "compute_unit": "c:s", "output_map": {"out.score": "score"}}}`,
				`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {"b": {}}`,
				`"transitions": [{"id": "t", "from": "a", "to": "a", "on_event": "GO", "actions": ["w", "u"]}, {"id": "f", "from": "a", "to": "b", "on_event": "FIN", "gates": ["g"]}]`),
			[]string{`"cfg" is not declared in context_schema: lppctl declares it, nullable and typed object from its use`,
				`"out" is not declared in context_schema: lppctl declares it, nullable and typed object from its use`,
				`"meta" is not declared in context_schema and nothing writes it: lpp evaluates a gate reading it false until the caller sets it; lppctl declares it, nullable and typed object from its use`},
			[]string{"cfg: {type: map, nullable: true}", "out: {type: map, nullable: true}", "meta: {type: map, nullable: true}"}},
		{"any ns:op is a unit name; units lpp skips are no-ops with a warning",
			bpJSON(`"actions": {"u": {"type": "compute", "compute_unit": "impl:json.load"}, "v": {"type": "compute", "compute_unit": "nocolon"},`+
				` "w": {"type": "compute", "unit": "a:b"}, "y": {"type": "compute", "compute_unit": "a:b:c"}}`,
				`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {"b": {}}`,
				`"transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO", "actions": ["u", "v", "w", "y"]}]`),
			[]string{`compute_unit of action "v" is not namespace:operation (one colon): lpp skips it, and lppctl runs it as a no-op`,
				`action "w" has no compute_unit: lpp skips it, and lppctl runs it as a no-op`,
				`compute_unit of action "y" is not namespace:operation (one colon)`},
			[]string{"compute impl:json.load: no compute mapping, needed to run it"}},
		{"dotted paths read and write into maps",
			bpJSON(`"context_schema": {"properties": {"o": {"type": "object"}, "v": {"type": "number"}}}`,
				`"actions": {"w": {"type": "set", "target": "o.k", "value": 3}, "r": {"type": "set", "target": "v", "value_from": "o.k"}}`,
				`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {"b": {}}`,
				`"transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO", "actions": ["w", "r"]}]`),
			nil, []string{`o: 'merge(o ?? {}, {"k": 3})'`, `v: 'o?.k'`}},
		{"a gate no transition uses is kept, with a warning when it does not translate",
			bpJSON(`"gates": {"g": {"type": "expression", "expression": "patterns valid"}}`,
				`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {"b": {}}`,
				`"transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO"}]`),
			[]string{`gate "g" does not translate`, "no transition uses it"}, nil},
		{"an action of an unknown type no transition runs is a warning",
			bpJSON(`"actions": {"x": {"type": "assign", "target": "a"}}`,
				`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {"b": {}}`,
				`"transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO"}]`),
			[]string{`unknown type "assign" of action "x": lpp's loader refuses it; no transition runs it`}, nil},
		{"input_map: a quoted text passes nil, a number is passed with a warning",
			bpJSON(`"actions": {"u": {"type": "compute", "compute_unit": "q:f", "input_map": {"side": "'left'", "direction": 1}}}`,
				`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {"b": {}}`,
				`"transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO", "actions": ["u"]}]`),
			[]string{`passes 'left', which lpp reads as a name: the unit receives None`, `maps "direction" to a number, not a path: lpp cannot run the action`}, nil},
		{"a transition's guard key, state on_enter and an object description",
			bpJSON(`"description": {"long": "text"}`, `"gates": {"g": {"type": "expression", "expression": "True"}}`,
				`"states": {"a": {"name": "A", "on_enter": ["x"]}}`, `"entry_state": "a"`, `"terminal_states": {"b": {}}`,
				`"actions": {"x": {"type": "set", "target": "s", "value": "v"}}`,
				`"transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO", "guard": "g"}]`),
			[]string{`"guard" of transition "t" is ignored: lpp reads only "gates", so the transition is unguarded`,
				`on_enter of state "a" is not run: lpp's runtimes never run it either`}, nil},
		{"a payload field compared with a number is a number; % on a number property is Python's",
			bpJSON(`"context_schema": {"properties": {"n": {"type": "number"}}}`,
				`"gates": {"g": {"type": "expression", "expression": "event.payload.v == 1 and n % 2 == 1"}}`,
				`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {"b": {}}`,
				`"transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO", "gates": ["g"]}]`),
			nil, []string{"v: {type: float, required: false, nullable: true}", "py_mod(n, 2) == 1"}},
		{"a compute gate's input_map is lpp's key, not an unknown one",
			bpJSON(`"gates": {"g": {"type": "compute", "compute_unit": "d:has", "input_map": {"field": "'ast'"}}}`,
				`"display": {"rules": [{"gate": "g", "template": "x"}]}`,
				`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {"b": {}}`,
				`"transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO"}]`),
			[]string{`input_map of gate "g" is not used: lppctl gives a compute gate's unit every context property and the event (lpp never runs the unit: a compute gate is true)`}, nil},
		{"an empty terminal_states is read (a machine that never ends)",
			bpJSON(`"states": {"a": {}}`, `"entry_state": "a"`, `"terminal_states": {}`,
				`"transitions": [{"id": "t", "from": "a", "to": "a", "on_event": "GO"}]`),
			[]string{"the blueprint has no terminal states: a run never ends"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bp, diags := Parse("x.json", []byte(tt.src))
			require.False(t, diags.HasErrors(), "%s", diags.Errors().PrettyAll([]byte(tt.src)))
			var warned []string
			for _, d := range diags.Warnings() {
				warned = append(warned, d.Msg+" | "+d.Hint)
			}
			all := strings.Join(warned, "\n")
			for _, w := range tt.warnings {
				assert.Contains(t, all, w)
			}
			m := mapfile.Default()
			m.Unmapped = true
			tr, err := Translate(bp, m)
			require.NoError(t, err)
			for _, s := range tt.spec {
				assert.Contains(t, string(tr.YAML), s)
			}
			spec, sd := tr.Spec()
			require.False(t, sd.HasErrors(), "%s\n%s", sd.Errors().PrettyAll(tr.YAML), tr.YAML)
			vd := tr.Remap(validate.Validate(spec, machine.NewBuiltinRegistry()))
			assert.False(t, vd.HasErrors(), "%s\n%s", vd.Errors().PrettyAll([]byte(tt.src)), tr.YAML)
		})
	}
}

// TestMappedNamesKeepTheirSpelling: a diagram and the messages about the
// translated spec show the blueprint's own ids.
func TestMappedNamesKeepTheirSpelling(t *testing.T) {
	src := bpJSON(`"states": {"to-state": {}, "lost-one": {}}`, `"entry_state": "to-state"`, `"terminal_states": {"all-done": {}}`,
		`"transitions": [{"id": "t", "from": "to-state", "to": "all-done", "on_event": "TO-DONE"}, {"id": "u", "from": "lost-one", "to": "all-done", "on_event": "GO"}]`)
	bp, diags := Parse("x.json", []byte(src))
	require.False(t, diags.HasErrors())
	d := Mermaid(bp)
	assert.Contains(t, d, `state "to-state" as`)
	assert.Contains(t, d, `t: TO-DONE`)
	tr, err := Translate(bp, nil)
	require.NoError(t, err)
	spec, _ := tr.Spec()
	var msgs []string
	for _, w := range tr.Remap(validate.Validate(spec, machine.NewBuiltinRegistry())) {
		msgs = append(msgs, w.Severity.String()+": "+w.Msg)
	}
	assert.Contains(t, msgs, `warning: state "lost-one" is unreachable from the initial state "to-state"`)
}

// TestRoutingLppAcceptsIsAWarning: a transition an earlier unguarded one
// shadows, and a state no path reaches, are legal in lpp: warnings of the
// blueprint (errors of a spec).
func TestRoutingLppAcceptsIsAWarning(t *testing.T) {
	src := bpJSON(`"states": {"a": {}, "lost": {}}`, `"entry_state": "a"`, `"terminal_states": {"b": {}, "c": {}}`,
		`"transitions": [{"id": "t1", "from": "a", "to": "b", "on_event": "GO"}, {"id": "t2", "from": "a", "to": "c", "on_event": "GO"},`+
			` {"id": "t3", "from": "lost", "to": "b", "on_event": "GO"}]`)
	bp, diags := Parse("x.json", []byte(src))
	require.False(t, diags.HasErrors())
	tr, err := Translate(bp, nil)
	require.NoError(t, err)
	spec, _ := tr.Spec()
	vd := tr.Remap(validate.Validate(spec, machine.NewBuiltinRegistry()))
	require.False(t, vd.HasErrors(), "%s", vd.Errors().PrettyAll([]byte(src)))
	var msgs []string
	for _, w := range vd.Warnings() {
		msgs = append(msgs, w.Msg)
	}
	all := strings.Join(msgs, "\n")
	assert.Contains(t, all, `transition of event "GO" to "c" can never fire: the unguarded transition to "b" above always fires first`)
	assert.Contains(t, all, `state "lost" is unreachable from the initial state "a"`)
}

// TestAnEntryStateThatIsTerminalIsAWarning: lpp's loader loads a blueprint
// whose entry state is a terminal state (every event is then refused:
// "Already in terminal state"); lppctl refused it ("initial state "done" is
// final"). Now it is a warning, and a run starts and ends there.
func TestAnEntryStateThatIsTerminalIsAWarning(t *testing.T) {
	src := bpJSON(`"states": {"idle": {}}`, `"entry_state": "done"`, `"terminal_states": {"done": {}}`,
		`"transitions": [{"id": "t1", "from": "idle", "to": "done", "on_event": "GO"}, {"id": "r", "from": "*", "to": "idle", "on_event": "RESET"}]`)
	bp, diags := Parse("x.json", []byte(src))
	require.False(t, diags.HasErrors(), "%v", diags)
	tr, err := Translate(bp, nil)
	require.NoError(t, err)
	spec, _ := tr.Spec()
	vd := tr.Remap(validate.Validate(spec, machine.NewBuiltinRegistry()))
	require.False(t, vd.HasErrors(), "%s", vd.Errors().PrettyAll([]byte(src)))
	var msgs []string
	for _, w := range vd.Warnings() {
		msgs = append(msgs, w.Where()+": "+w.Msg)
	}
	assert.Contains(t, msgs, `x.json:1:77: initial state "done" is final: a run would end there, and no other state could run`)
	// One finding for one cause: the states the terminal entry cuts off are
	// not each reported unreachable (machine/validate's initialIsFinal).
	assert.Len(t, msgs, 1)
}

// TestExportKeepsTheBlueprintsSpelling: written back (export --format
// lpp), a blueprint's mapped and reserved names, its terminal-only states
// and its undeclared properties are as it wrote them.
func TestExportKeepsTheBlueprintsSpelling(t *testing.T) {
	src := bpJSON(`"context_schema": {"properties": {"event": {"type": "string"}, "my-prop": {"type": "number"}}}`,
		`"actions": {"w": {"type": "set", "target": "event", "value": "e"}, "u": {"type": "set", "target": "undeclared", "value": 1}}`,
		`"states": {"to-state": {}}`, `"entry_state": "to-state"`, `"terminal_states": {"all-done": {}}`,
		`"transitions": [{"id": "t", "from": "to-state", "to": "all-done", "on_event": "TO-DONE", "actions": ["w", "u"]}]`)
	bp, diags := Parse("x.json", []byte(src))
	require.False(t, diags.HasErrors())
	tr, err := Translate(bp, nil)
	require.NoError(t, err)
	spec, sd := tr.Spec()
	require.False(t, sd.HasErrors())
	out, err := FromSpec(spec)
	require.NoError(t, err)
	back, diags := Parse("back.json", out)
	require.False(t, diags.HasErrors(), "%s\n%s", diags.Errors().PrettyAll(out), out)
	var states, props []string
	for _, s := range back.States {
		states = append(states, back.Spelling(s.ID))
	}
	for _, p := range back.Context {
		if !p.Implicit {
			props = append(props, back.Spelling(p.Name))
		}
	}
	assert.Equal(t, []string{"to-state", "all-done"}, states)
	assert.Equal(t, []string{"event", "my-prop"}, props)
	assert.Contains(t, string(out), `"on_event": "TO-DONE"`)
	assert.Contains(t, string(out), `"target": "event"`)
	assert.Contains(t, string(out), `"terminal_states": {
    "all-done": {}`)
	assert.NotContains(t, string(out), `"undeclared": {`)
}

// TestAMappedNameNeverTakesOneTheBlueprintWrites: "a-b" is mapped, and
// a state the blueprint itself calls "a_b" keeps its name.
func TestAMappedNameNeverTakesOneTheBlueprintWrites(t *testing.T) {
	src := bpJSON(`"states": {"a-b": {}, "a_b": {}}`, `"entry_state": "a-b"`, `"terminal_states": {"end": {}}`,
		`"transitions": [{"id": "t", "from": "a-b", "to": "a_b", "on_event": "GO"}, {"id": "u", "from": "a_b", "to": "end", "on_event": "GO"}]`)
	bp, diags := Parse("x.json", []byte(src))
	require.False(t, diags.HasErrors(), "%s", diags.Errors().PrettyAll([]byte(src)))
	var ids, spelt []string
	for _, s := range bp.States {
		ids = append(ids, s.ID)
		spelt = append(spelt, bp.Spelling(s.ID))
	}
	assert.Equal(t, []string{"a_b_2", "a_b", "end"}, ids)
	assert.Equal(t, []string{"a-b", "a_b", "end"}, spelt)
	assert.Equal(t, "a_b", bp.Transitions[0].To)
}

// TestAStateThatLeadsOnlyToADeadEndIsAWarning: idle → a → b, where b has
// no transition: lpp's loader accepts it, so "no final state can be
// reached from a" is a warning of the blueprint, like b's own.
func TestAStateThatLeadsOnlyToADeadEndIsAWarning(t *testing.T) {
	src := bpJSON(`"states": {"idle": {}, "a": {}, "b": {}}`, `"entry_state": "idle"`, `"terminal_states": {"done": {}}`,
		`"transitions": [{"id": "t1", "from": "idle", "to": "a", "on_event": "GO"}, {"id": "t2", "from": "a", "to": "b", "on_event": "GO"},`+
			` {"id": "t3", "from": "idle", "to": "done", "on_event": "FINISH"}]`)
	bp, diags := Parse("trap2.json", []byte(src))
	require.False(t, diags.HasErrors())
	tr, err := Translate(bp, nil)
	require.NoError(t, err)
	spec, _ := tr.Spec()
	vd := tr.Remap(validate.Validate(spec, machine.NewBuiltinRegistry()))
	require.False(t, vd.HasErrors(), "%s", vd.Errors().PrettyAll([]byte(src)))
	var got []string
	for _, w := range vd.Warnings() {
		got = append(got, fmt.Sprintf("%d:%d: %s", w.Pos.Line, w.Pos.Col, w.Msg))
	}
	assert.Contains(t, got, `1:61: no final state can be reached from state "a"`)
	assert.Contains(t, got, `1:70: state "b" has no way out: it is not final and has no next transitions`)
}
