package lpp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine/lpp/mapfile"
	"gopkg.in/yaml.v3"
)

// translated imports a blueprint given by its states (all but the last
// are not terminal), transitions, gates and actions, and returns the spec
// decoded and as text.
func translated(t *testing.T, trans, gates, actions string, m *mapfile.Mapping) (map[string]any, string) {
	t.Helper()
	src := fmt.Sprintf(`{"$schema":"lpp/v0.2.0","id":"x","name":"x","version":"1",
"context_schema":{"properties":{"a":{"type":"string"},"b":{"type":"string"},"n":{"type":"integer","default":0}}},
"states":{"s":{},"u":{},"end":{}},"entry_state":"s","terminal_states":["end"],
"gates":{%s},"actions":{%s},"transitions":[%s]}`, gates, actions, trans)
	bp, diags := Parse("x.json", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	out, err := ToSpecYAML(bp, m)
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := yaml.Unmarshal(out, &spec); err != nil {
		t.Fatal(err)
	}
	return spec, string(out)
}

// at follows a path of keys and list indexes through decoded YAML.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestTranslationRules(t *testing.T) {
	const g = `"big":{"type":"expression","expression":"n > 2"},"pay":{"type":"expression","expression":"event.payload.k == 'v'"},"chk":{"type":"compute","compute_unit":"q:check"}`
	const acts = `"setA":{"type":"set","target":"a","value_from":"event.payload.a"},
"setB":{"type":"set","target":"b","value_from":"a"},"lit":{"type":"set","target":"n","value":5},
"calc":{"type":"compute","compute_unit":"q:calc","input_map":{"x":"a"},"output_map":{"n":"out"}},
"tell":{"type":"emit","event":"TOLD"}`
	mapping := &mapfile.Mapping{File: "x.lppctl.yaml", Units: map[string]mapfile.Unit{"q:check": {Script: "q.py", Function: "check"}, "q:calc": {Script: "q.py", Function: "calc"}},
		Start: []string{"START"}, Auto: []string{"DONE", "AUTO"}}
	tests := []struct {
		name  string
		trans string
		m     *mapfile.Mapping
		path  []any
		want  string
	}{
		{"own transitions keep array order in on:",
			`{"id":"t1","from":"s","to":"u","on_event":"GO","gates":["big"]},{"id":"t2","from":"s","to":"end","on_event":"GO"}`, nil,
			[]any{"states", "s", "on", "GO"}, `[{"note":"t1","to":"u","when":"(n != nil \u0026\u0026 n \u003e 2)"},{"note":"t2","to":"end"}]`},
		{"a * transition after a state's own stays top-level",
			`{"id":"own","from":"s","to":"u","on_event":"GO"},{"id":"any","from":"*","to":"end","on_event":"GO"}`, nil,
			[]any{"events", "GO", "transitions"}, `[{"from":"*","note":"any","to":"end"}]`},
		{"a * transition before a state's own is written into its list in place",
			`{"id":"any","from":"*","to":"end","on_event":"GO","gates":["big"]},{"id":"own","from":"s","to":"u","on_event":"GO"}`, nil,
			[]any{"states", "s", "on", "GO"}, `[{"note":"any","to":"end","when":"(n != nil \u0026\u0026 n \u003e 2)"},{"note":"own","to":"u"}]`},
		{"independent sets stay on the transition, payload read from the event",
			`{"id":"t","from":"s","to":"end","on_event":"GO","actions":["setA","lit"]}`, nil,
			[]any{"states", "s", "on", "GO", 0, "set"}, `{"a":"event.payload.a","n":"5"}`},
		{"a set reading what an earlier one wrote runs in a helper state after it",
			`{"id":"t","from":"s","to":"end","on_event":"GO","actions":["setA","setB"]}`, nil,
			[]any{"states", "s__t_1"}, `{"do":"noop","next":[{"to":"end"}],"note":"lppctl import: action setB (set)","set":{"b":"a"}}`},
		{"a compute action is a script.run step naming its function",
			`{"id":"t","from":"s","to":"end","on_event":"GO","actions":["calc"]}`, mapping,
			[]any{"states", "s__t_1", "with"}, `{"input":{"lpp_function":"\"calc\"","x":"a"},"lpp":true,"output":{"n":"out"},"script":"q.py"}`},
		{"an emit action of an event the blueprint takes is an emit step",
			`{"id":"t","from":"s","to":"u","on_event":"GO","actions":["tell"]},{"id":"told","from":"u","to":"end","on_event":"TOLD"}`, nil,
			[]any{"states", "s__t_1", "with"}, `{"event":"TOLD"}`},
		{"an emit action of an event for the environment is logged",
			`{"id":"t","from":"s","to":"end","on_event":"GO","actions":["tell"]}`, nil,
			[]any{"states", "s__t_1"}, `{"do":"log","next":[{"to":"end"}],"note":"lppctl import: action tell (emit TOLD to the environment: no transition of the blueprint takes it)","with":{"message":"emit TOLD"}}`},
		{"the payload a helper reads is captured on the transition",
			`{"id":"t","from":"s","to":"end","on_event":"GO","actions":["tell","setA"]}`, nil,
			[]any{"states", "s", "on", "GO", 0, "set"}, `{"lpp_payload":"{\"a\": event.payload.a}"}`},
		{"a payload field read is declared with its target's type",
			`{"id":"t","from":"s","to":"end","on_event":"GO","actions":["setA"]}`, nil,
			[]any{"events", "GO", "payload"}, `{"a":{"nullable":true,"required":false,"type":"string"}}`},
		{"compute gates are evaluated before the guards",
			`{"id":"t","from":"s","to":"end","on_event":"GO","gates":["chk","big"]},{"id":"t2","from":"s","to":"u","on_event":"GO","gates":["big"]}`, mapping,
			[]any{"states", "s__GO", "next"}, `[{"note":"t","to":"end","when":"lpp_gate_chk == true \u0026\u0026 ((n != nil \u0026\u0026 n \u003e 2))"},{"note":"t2","to":"u","when":"(n != nil \u0026\u0026 n \u003e 2)"},{"note":"no GO transition passed","to":"s"}]`},
		{"no fallback after a transition that always fires",
			`{"id":"t","from":"s","to":"end","on_event":"GO","gates":["chk"]},{"id":"t2","from":"s","to":"u","on_event":"GO"}`, mapping,
			[]any{"states", "s__GO", "next"}, `[{"note":"t","to":"end","when":"lpp_gate_chk == true"},{"note":"t2","to":"u"}]`},
		{"a state whose DONE list always fires never waits",
			`{"id":"d","from":"s","to":"end","on_event":"DONE"},{"id":"any","from":"*","to":"u","on_event":"RESET"}`, nil,
			[]any{"states", "s__wait"}, `null`},
		{"a state with an unguarded DONE and other events of its own waits for all of them (DONE is not fired)",
			`{"id":"d","from":"s","to":"end","on_event":"DONE"},{"id":"go","from":"s","to":"u","on_event":"GO"}`, nil,
			[]any{"states", "s", "on"}, `{"DONE":[{"note":"d","to":"end"}],"GO":[{"note":"go","to":"u"}]}`},
		{"when no START transition passes, the entry state waits for START",
			`{"id":"b","from":"s","to":"u","on_event":"START","gates":["big"]},{"id":"f","from":"u","to":"end","on_event":"GO"}`, nil,
			[]any{"states", "s__wait", "on"}, `{"START":[{"note":"b","to":"u","when":"(n != nil \u0026\u0026 n \u003e 2)"}]}`},
		{"DONE fires on entering a state that accepts it; it waits in its twin otherwise",
			`{"id":"d","from":"s","to":"end","on_event":"DONE","gates":["big"]},{"id":"go","from":"s","to":"u","on_event":"GO"}`, nil,
			[]any{"states", "s", "next"}, `[{"note":"d","to":"end","when":"(n != nil \u0026\u0026 n \u003e 2)"},{"note":"no DONE transition passed: wait","to":"s__wait"}]`},
		{"the twin waits for the state's other events",
			`{"id":"d","from":"s","to":"end","on_event":"DONE","gates":["big"]},{"id":"go","from":"s","to":"u","on_event":"GO"}`, nil,
			[]any{"states", "s__wait", "on"}, `{"GO":[{"note":"go","to":"u"}]}`},
		{"the twin also waits for the driver's event, sent again with a payload its gates read",
			`{"id":"d","from":"s","to":"end","on_event":"DONE","gates":["pay"]},{"id":"go","from":"s","to":"u","on_event":"GO"}`, nil,
			[]any{"states", "s__wait", "on"}, `{"DONE":[{"note":"d","to":"end","when":"(event.payload.k != nil \u0026\u0026 event.payload.k == \"v\")"}],"GO":[{"note":"go","to":"u"}]}`},
		{"a state where the driver fires DONE waits for AUTO in its twin (it failed: accepts no other event)",
			`{"id":"d","from":"s","to":"end","on_event":"DONE","gates":["big"]},{"id":"a","from":"s","to":"u","on_event":"AUTO"}`, nil,
			[]any{"states", "s__wait", "on"}, `{"AUTO":[{"note":"a","to":"u"}]}`},
		{"a state with nothing else to wait for fails when no DONE transition passes",
			`{"id":"d","from":"s","to":"end","on_event":"DONE","gates":["big"]}`, nil,
			[]any{"states", "s__wait", "with"}, `{"message":"no DONE transition of state s passed and it accepts no other event"}`},
		{"a top-level * transition's helper states are written",
			`{"id":"own","from":"s","to":"u","on_event":"GO"},{"id":"own2","from":"u","to":"end","on_event":"GO"},{"id":"any","from":"*","to":"end","on_event":"GO","actions":["calc"]}`, mapping,
			[]any{"states", "any__any_1", "next"}, `[{"to":"end"}]`},
		{"START fires when the run starts, in the entry state when nothing enters it again",
			`{"id":"b","from":"s","to":"u","on_event":"START"},{"id":"f","from":"u","to":"end","on_event":"GO"}`, nil,
			[]any{"states", "s", "next"}, `[{"note":"b","to":"u"}]`},
		{"START fires when the run starts, from lpp_start when a transition enters the entry state",
			`{"id":"b","from":"s","to":"u","on_event":"START"},{"id":"back","from":"u","to":"s","on_event":"GO"}`, nil,
			[]any{"states", "lpp_start"}, `{"do":"noop","next":[{"note":"b","to":"u"}],"note":"lppctl import: fires START","on":{"START":[{"note":"b","to":"u"}]}}`},
		{"a START queued with the run is taken with its payload, else the driver fires it without one",
			`{"id":"b","from":"s","to":"u","on_event":"START","actions":["setA"]},{"id":"f","from":"u","to":"end","on_event":"GO"}`, nil,
			[]any{"states", "s"}, `{"do":"noop","next":[{"note":"b","set":{"a":"lpp_payload?.a"},"to":"u"}],"on":{"START":[{"note":"b","set":{"a":"event.payload.a"},"to":"u"}]},"set":{"lpp_payload":"{}"}}`},
		{"a START queued with the run is taken with its payload in lpp_start too",
			`{"id":"b","from":"s","to":"u","on_event":"START","actions":["setA"]},{"id":"back","from":"u","to":"s","on_event":"GO"}`, nil,
			[]any{"states", "lpp_start"}, `{"do":"noop","next":[{"note":"b","set":{"a":"lpp_payload?.a"},"to":"u"}],"note":"lppctl import: fires START","on":{"START":[{"note":"b","set":{"a":"event.payload.a"},"to":"u"}]},"set":{"lpp_payload":"{}"}}`},
		{"a driver's list through compute gates waits in the twin when none passes (the twin was missing)",
			`{"id":"d","from":"s","to":"end","on_event":"DONE","gates":["chk"]},{"id":"go","from":"s","to":"u","on_event":"GO"}`, mapping,
			[]any{"states", "s__wait", "on", "GO"}, `[{"note":"go","to":"u"}]`},
		{"the compute gates of an event copy the payload fields the other gates read (it copied none)",
			`{"id":"t","from":"s","to":"end","on_event":"GO","gates":["chk","pay"]},{"id":"t2","from":"s","to":"u","on_event":"GO"}`, mapping,
			[]any{"states", "s", "on", "GO"}, `[{"note":"evaluate the compute gates of GO","set":{"lpp_payload":"{\"k\": event.payload.k}"},"to":"s__GO_gate_chk"}]`},
		{"another event of the entry state queued with the run is taken before START (it was left out of the spec)",
			`{"id":"b","from":"s","to":"u","on_event":"START"},{"id":"l","from":"s","to":"end","on_event":"LOAD"}`, nil,
			[]any{"states", "s", "on", "LOAD"}, `[{"note":"l","to":"end"}]`},
		{"the compute gates of an event copy the payload fields the transition's sets read (it copied none)",
			`{"id":"t","from":"s","to":"end","on_event":"GO","gates":["chk"],"actions":["setA"]},{"id":"t2","from":"s","to":"u","on_event":"GO"}`, mapping,
			[]any{"states", "s", "on", "GO"}, `[{"note":"evaluate the compute gates of GO","set":{"lpp_payload":"{\"a\": event.payload.a}"},"to":"s__GO_gate_chk"}]`},
		{"the entry state entered again waits for START like any event",
			`{"id":"b","from":"s","to":"u","on_event":"START"},{"id":"back","from":"u","to":"s","on_event":"GO"}`, nil,
			[]any{"states", "s", "on"}, `{"START":[{"note":"b","to":"u"}]}`},
		{"START that fails in an entry state entered again waits for START and its other events, DONE included (it fired DONE)",
			`{"id":"b","from":"s","to":"u","on_event":"START","gates":["big"]},{"id":"d","from":"s","to":"end","on_event":"DONE","gates":["big"]},{"id":"back","from":"u","to":"s","on_event":"GO"}`, nil,
			[]any{"states", "lpp_start", "next", 1}, `{"note":"no START transition passed: wait in s","to":"s__start"}`},
		{"the entry state's START waiting state lists START and DONE",
			`{"id":"b","from":"s","to":"u","on_event":"START","gates":["big"]},{"id":"d","from":"s","to":"end","on_event":"DONE","gates":["big"]},{"id":"back","from":"u","to":"s","on_event":"GO"}`, nil,
			[]any{"states", "s__start", "on"}, `{"DONE":[{"note":"d","to":"end","when":"(n != nil \u0026\u0026 n \u003e 2)"}],"START":[{"note":"b","to":"u","when":"(n != nil \u0026\u0026 n \u003e 2)"}]}`},
		{"a START through compute gates that fails in an entry state entered again waits for START",
			`{"id":"b","from":"s","to":"u","on_event":"START","gates":["chk"]},{"id":"d","from":"s","to":"end","on_event":"DONE","gates":["big"]},{"id":"back","from":"u","to":"s","on_event":"GO"}`, mapping,
			[]any{"states", "s__START", "next", 1}, `{"note":"no START transition passed","to":"s__start"}`},
		{"START that fails in an entry state entered again, where the driver fires nothing, waits in the entry state",
			`{"id":"b","from":"s","to":"u","on_event":"START","gates":["big"]},{"id":"back","from":"u","to":"s","on_event":"GO"}`, nil,
			[]any{"states", "lpp_start", "next", 1}, `{"note":"no START transition passed: enter s","to":"s"}`},
		{"an entry state whose START always fires lists its AUTO once (it was written twice: a duplicate event)",
			`{"id":"b","from":"s","to":"u","on_event":"START"},{"id":"a","from":"s","to":"end","on_event":"AUTO","gates":["big"]}`, nil,
			[]any{"states", "s", "on"}, `{"AUTO":[{"note":"a","to":"end","when":"(n != nil \u0026\u0026 n \u003e 2)"}],"START":[{"note":"b","to":"u"}]}`},
		{"an AUTO taken in a state whose DONE always fires goes back to it when its compute gates fail (it went to a twin never written)",
			`{"id":"d","from":"s","to":"end","on_event":"DONE"},{"id":"a","from":"s","to":"u","on_event":"AUTO","gates":["chk"]}`, mapping,
			[]any{"states", "s__AUTO", "next", 1}, `{"note":"no AUTO transition passed","to":"s"}`},
		{"the mapping's driver rule overrides the default",
			`{"id":"d","from":"s","to":"end","on_event":"DONE"}`, &mapfile.Mapping{Units: mapping.Units, Auto: []string{}},
			[]any{"states", "s", "on", "DONE"}, `[{"note":"d","to":"end"}]`},
		{"terminal states are final",
			`{"id":"t","from":"s","to":"end","on_event":"GO"}`, nil,
			[]any{"states", "end", "final"}, `true`},
		{"every property is nullable",
			`{"id":"t","from":"s","to":"end","on_event":"GO"}`, nil,
			[]any{"context", "a"}, `{"nullable":true,"type":"string"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := cmpMapping(tt.m, mapping)
			spec, text := translated(t, tt.trans, g, acts, m)
			if got := js(at(spec, tt.path...)); got != tt.want {
				t.Errorf("%v:\n got %s\nwant %s\n%s", tt.path, got, tt.want, text)
			}
		})
	}
}

func cmpMapping(m, def *mapfile.Mapping) *mapfile.Mapping {
	if m != nil {
		return m
	}
	return def
}

func TestTranslationDeclaresEmittedEvents(t *testing.T) {
	_, text := translated(t, `{"id":"t","from":"s","to":"u","on_event":"GO","actions":["tell"]},{"id":"told","from":"u","to":"end","on_event":"TOLD"}`, ``, `"tell":{"type":"emit","event":"TOLD"}`, nil)
	if !strings.Contains(text, "\n  TOLD: # emitted by the blueprint\n") {
		t.Fatalf("TOLD is not declared:\n%s", text)
	}
}
