package lpp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine/lpp/mapfile"
	"gopkg.in/yaml.v3"
)

// injectBase is a blueprint with a place for every kind of text the
// translation writes into the spec: identity, descriptions, ids, events,
// properties, defaults, enums, literals, gates, units, maps, emits,
// unknown keys, display, terminal contracts and payload fields.
const injectBase = `{"$schema": "lpp/v0.2.0", "id": "clean", "name": "x", "version": "1", "description": "d",
 "context_schema": {"properties": {"s": {"type": "string", "description": "p", "default": "z", "enum": ["z", "v"]},
   "r": {"type": "string"}, "q": {"type": "string"}}},
 "states": {"idle": {"description": "i"}, "work": {"description": "w", "name": "n"}},
 "gates": {"g": {"type": "expression", "expression": "s is None or s == 'z'"}},
 "actions": {
   "a": {"type": "set", "target": "s", "value": "v"},
   "p": {"type": "set", "target": "q", "value_from": "event.payload.f"},
   "c": {"type": "compute", "compute_unit": "ns:op", "input_map": {"i": "s"}, "output_map": {"r": "out"}},
   "e": {"type": "emit", "event": "OUT", "payload_map": {"v": "s"}}},
 "transitions": [
  {"id": "t1", "from": "idle", "to": "work", "on_event": "START", "actions": ["a", "p", "c", "e"], "description": "t"},
  {"id": "t2", "from": "work", "to": "idle", "on_event": "BACK", "gates": ["g"]},
  {"id": "t3", "from": "work", "to": "done", "on_event": "FINISH"}],
 "display": {"rules": [{"template": "T"}]},
 "extra": "k",
 "entry_state": "idle", "terminal_states": {"done": {"description": "c", "output_schema": {"r": {"type": "string", "non_null": true}}}}}`

// hostile are texts that would break a YAML line or quoting if written as
// they are: every rune YAML reads as a line break, quotes, flow and block
// indicators, comments, tags, directives, controls.
var hostile = []string{
	"x'\ny: 1", "x\"\ny: 1", "x\n  do: llm.generate", "a}, {to: pwn", "a'}, {to: 'pwn", "#c", "x: y", "- a",
	"a\u2028b", "a\u2029b", "a\u0085b", "a\rb", "a\r\nlimits: {max_transitions: 1}",
	"1\u2028events: {PWN: [{from: '*', to: done, set: {s: '\"pwned\"'}}]}\u2028#",
	"1\u2029limits: {max_transitions: 1}\u2029#", "1\u0085evil: 1\u0085#", "1\rlimits: {max_transitions: 1}\r#",
	"x\\'", "{{.event}}", "'", "\"", "\\", "|", ">", "&a", "*a", "!!python/object", "%YAML", "? a", "@a", "`a",
	"\x00", "\t", "a\u00a0b", "a #b", "a: b: c", "\x1b[31m", "\ufeff", "a\u000bb\u000cc",
}

// injectPlaces puts a text into one field of the blueprint (decoded as a
// map), or of the mapping's driver lists.
var injectPlaces = map[string]func(bp map[string]any, m *mapfile.Mapping, s string){
	"id":          func(bp map[string]any, _ *mapfile.Mapping, s string) { bp["id"] = s },
	"name":        func(bp map[string]any, _ *mapfile.Mapping, s string) { bp["name"] = s },
	"version":     func(bp map[string]any, _ *mapfile.Mapping, s string) { bp["version"] = s },
	"description": func(bp map[string]any, _ *mapfile.Mapping, s string) { bp["description"] = s },
	"state description": func(bp map[string]any, _ *mapfile.Mapping, s string) {
		obj(bp, "states", "work")["description"] = s
	},
	"state name": func(bp map[string]any, _ *mapfile.Mapping, s string) { obj(bp, "states", "work")["name"] = s },
	"state id": func(bp map[string]any, _ *mapfile.Mapping, s string) {
		states := obj(bp, "states")
		states[s] = states["work"]
		delete(states, "work")
		for _, t := range trans(bp) {
			for _, k := range []string{"from", "to"} {
				if t[k] == "work" {
					t[k] = s
				}
			}
		}
	},
	"transition id":          func(bp map[string]any, _ *mapfile.Mapping, s string) { trans(bp)[0]["id"] = s },
	"transition description": func(bp map[string]any, _ *mapfile.Mapping, s string) { trans(bp)[0]["description"] = s },
	"event":                  func(bp map[string]any, _ *mapfile.Mapping, s string) { trans(bp)[2]["on_event"] = s },
	"property name": func(bp map[string]any, _ *mapfile.Mapping, s string) {
		obj(bp, "context_schema", "properties")[s] = map[string]any{"type": "string", "description": s}
	},
	"property description": func(bp map[string]any, _ *mapfile.Mapping, s string) {
		obj(bp, "context_schema", "properties", "s")["description"] = s
	},
	"default": func(bp map[string]any, _ *mapfile.Mapping, s string) {
		p := obj(bp, "context_schema", "properties", "s")
		p["default"], p["enum"] = s, []any{s, "v"}
	},
	"set value": func(bp map[string]any, _ *mapfile.Mapping, s string) { obj(bp, "actions", "a")["value"] = s },
	"gate literal": func(bp map[string]any, _ *mapfile.Mapping, s string) {
		obj(bp, "gates", "g")["expression"] = "s == " + pyQuote(s)
	},
	"gate id": func(bp map[string]any, _ *mapfile.Mapping, s string) {
		gates := obj(bp, "gates")
		gates[s] = gates["g"]
		delete(gates, "g")
		trans(bp)[1]["gates"] = []any{s}
	},
	"action id": func(bp map[string]any, _ *mapfile.Mapping, s string) {
		acts := obj(bp, "actions")
		acts[s] = acts["a"]
		delete(acts, "a")
		trans(bp)[0]["actions"] = []any{s, "p", "c", "e"}
	},
	"payload field": func(bp map[string]any, _ *mapfile.Mapping, s string) {
		obj(bp, "actions", "p")["value_from"] = "event.payload." + s
	},
	"unit": func(bp map[string]any, m *mapfile.Mapping, s string) {
		s = strings.ReplaceAll(s, ":", ";") // a unit of two colons is another construct (a no-op)
		obj(bp, "actions", "c")["compute_unit"] = "ns:" + s
		m.Units["ns:"+s] = mapfile.Unit{Script: "u.py", Function: "f"}
	},
	"unit script": func(_ map[string]any, m *mapfile.Mapping, s string) {
		m.Units["ns:op"] = mapfile.Unit{Script: s, Function: s}
	},
	"input key": func(bp map[string]any, _ *mapfile.Mapping, s string) {
		obj(bp, "actions", "c")["input_map"] = map[string]any{s: "s"}
	},
	"output key": func(bp map[string]any, _ *mapfile.Mapping, s string) {
		obj(bp, "actions", "c")["output_map"] = map[string]any{"r": s}
	},
	"emit event": func(bp map[string]any, _ *mapfile.Mapping, s string) { obj(bp, "actions", "e")["event"] = s },
	"emit payload key": func(bp map[string]any, _ *mapfile.Mapping, s string) {
		obj(bp, "actions", "e")["payload_map"] = map[string]any{s: "s"}
	},
	"unknown key": func(bp map[string]any, _ *mapfile.Mapping, s string) { bp[s] = s },
	"display": func(bp map[string]any, _ *mapfile.Mapping, s string) {
		bp["display"] = map[string]any{"rules": []any{map[string]any{"template": s}}}
	},
	"contract description": func(bp map[string]any, _ *mapfile.Mapping, s string) {
		obj(bp, "terminal_states", "done")["description"] = s
	},
	"output field": func(bp map[string]any, _ *mapfile.Mapping, s string) {
		obj(bp, "terminal_states", "done")["output_schema"] = map[string]any{s: map[string]any{"type": "string", "non_null": true}}
	},
	"driver event": func(_ map[string]any, m *mapfile.Mapping, s string) {
		m.Start = append(m.Start, s)
		m.Auto = append(m.Auto, s)
	},
}

func obj(v map[string]any, path ...string) map[string]any {
	for _, k := range path {
		v = v[k].(map[string]any)
	}
	return v
}

func trans(bp map[string]any) []map[string]any {
	var out []map[string]any
	for _, t := range bp["transitions"].([]any) {
		out = append(out, t.(map[string]any))
	}
	return out
}

// pyQuote writes s as a Python string literal (JSON's escapes are
// Python's).
func pyQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// specVocabulary are the keys a spec's YAML has by name; every other key
// (a state, a variable, an event, a payload field, a set target) is a name
// the translation chose.
var specVocabulary = []string{"lpp", "name", "description", "context", "initial", "states", "events", "limits",
	"invariants", "type", "nullable", "default", "enum", "doc", "note", "do", "with", "set", "final",
	"final_requires", "on", "next", "to", "when", "from", "transitions", "payload", "required", "script", "input",
	"output", "event", "message", "value", "lpp", "warn", "on_error", "max_transitions"}

// skeleton is the shape of a YAML node: each mapping's keys (a name the
// translation chose as "·", spec keywords by name) with their values'
// shapes, in sorted order (names the translation chose sort differently).
func skeleton(n *yaml.Node) string {
	switch n.Kind {
	case yaml.DocumentNode:
		return skeleton(n.Content[0])
	case yaml.MappingNode:
		parts := make([]string, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := "·"
			if slices.Contains(specVocabulary, n.Content[i].Value) {
				k = n.Content[i].Value
			}
			parts = append(parts, k+":"+skeleton(n.Content[i+1]))
		}
		slices.Sort(parts)
		return "{" + strings.Join(parts, ",") + "}"
	case yaml.SequenceNode:
		parts := make([]string, len(n.Content))
		for i, c := range n.Content {
			parts[i] = skeleton(c)
		}
		slices.Sort(parts)
		return "[" + strings.Join(parts, ",") + "]"
	}
	return "s"
}

// injected translates the base blueprint with s placed by place, written
// with raw runes (JSON escapes only what it must) or JSON-escaped.
func injected(t *testing.T, place func(map[string]any, *mapfile.Mapping, string), s string, raw bool) (*Translation, bool) {
	t.Helper()
	var bp map[string]any
	if err := json.Unmarshal([]byte(injectBase), &bp); err != nil {
		t.Fatal(err)
	}
	m := &mapfile.Mapping{Units: map[string]mapfile.Unit{"ns:op": {Script: "u.py", Function: "op"}}, Start: []string{"START"}, Auto: []string{"DONE", "AUTO"}}
	place(bp, m, s)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(bp); err != nil {
		t.Fatal(err)
	}
	src := b.Bytes()
	if raw { // Go escapes these two always; a blueprint may hold them raw
		src = bytes.ReplaceAll(bytes.ReplaceAll(src, []byte(`\u2028`), []byte("\u2028")), []byte(`\u2029`), []byte("\u2029"))
	}
	b2, diags := Parse("bp.json", src)
	if diags.HasErrors() {
		return nil, false // refused: nothing is written
	}
	tr, err := Translate(b2, m)
	if err != nil {
		t.Fatalf("a loaded blueprint does not translate: %v", err)
	}
	return tr, true
}

// TestNoBlueprintTextBreaksASpecLine places texts that break YAML lines or
// quoting in every field the translation writes into the spec (comments
// included), and holds that the spec holds no line break but the ones the
// translation writes, that it decodes to exactly the keys of the spec of
// a harmless text in that place, and that its metadata line still reads
// as JSON. A U+2028 in version once added an events: key to the spec
// (its "Generated by" comment wrote version raw).
func TestNoBlueprintTextBreaksASpecLine(t *testing.T) {
	places := make([]string, 0, len(injectPlaces))
	for k := range injectPlaces {
		places = append(places, k)
	}
	slices.Sort(places)
	translated := 0
	for _, where := range places {
		place := injectPlaces[where]
		base, ok := injected(t, place, "plain", false)
		if !ok {
			t.Fatalf("%s: the base blueprint does not load", where)
		}
		var want yaml.Node
		if err := yaml.Unmarshal(base.Text(), &want); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		for i, s := range hostile {
			for _, raw := range []bool{false, true} {
				name := fmt.Sprintf("%s/%d/raw=%v", where, i, raw)
				tr, ok := injected(t, place, s, raw)
				if !ok {
					continue
				}
				translated++
				for _, text := range [][]byte{tr.YAML, tr.Text()} {
					if i := bytes.IndexFunc(text, func(r rune) bool { return r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029 }); i >= 0 {
						t.Fatalf("%s: a line break the translation did not write, at byte %d:\n%s", name, i, text)
					}
					var got yaml.Node
					if err := yaml.Unmarshal(text, &got); err != nil {
						t.Fatalf("%s: the spec is not YAML: %v\n%s", name, err, text)
					}
					if g, w := skeleton(&got), skeleton(&want); g != w {
						t.Fatalf("%s: the spec's keys are not the translation's:\n got %s\nwant %s\n%s", name, g, w, text)
					}
				}
				if _, err := metaLine(tr.YAML); err != nil {
					t.Fatalf("%s: %v\n%s", name, err, tr.YAML)
				}
			}
		}
	}
	if translated < len(places)*len(hostile) { // most must load, or the test tests little
		t.Fatalf("only %d of %d hostile blueprints load", translated, 2*len(places)*len(hostile))
	}
}

// metaLine decodes the spec's "# lpp-blueprint:" line.
func metaLine(text []byte) (meta, error) {
	var md meta
	for _, line := range strings.Split(string(text), "\n") {
		if s, ok := strings.CutPrefix(line, metaPrefix); ok {
			err := json.Unmarshal([]byte(s), &md)
			return md, err
		}
	}
	return md, fmt.Errorf("no %q line", metaPrefix)
}

// TestBlueprintIdentityIsKeptWhateverItHolds: the identity the metadata
// line keeps is the blueprint's, line breaks and all.
func TestBlueprintIdentityIsKeptWhateverItHolds(t *testing.T) {
	for _, s := range hostile {
		tr, ok := injected(t, injectPlaces["version"], s, true)
		if !ok {
			continue
		}
		md, err := metaLine(tr.YAML)
		if err != nil {
			t.Fatal(err)
		}
		if md.Version != s {
			t.Errorf("version %q is kept as %q", s, md.Version)
		}
	}
}
