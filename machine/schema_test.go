package machine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"gopkg.in/yaml.v3"
)

// schemaFile is the committed schema: that of lppctl's registry.
const schemaFile = "../docs/spec.schema.json"

// TestSchemaEnumeratesTheRegisteredActions: with a registry, `do` lists
// its action names (sorted) so editors complete them; without one it takes
// any string. (cmd/lppctl keeps docs/spec.schema.json, the schema of
// lppctl's own registry, generated.)
func TestSchemaEnumeratesTheRegisteredActions(t *testing.T) {
	do := func(b []byte) map[string]any {
		var root struct {
			Definitions map[string]struct {
				Properties map[string]map[string]any `json:"properties"`
			} `json:"definitions"`
		}
		if err := json.Unmarshal(b, &root); err != nil {
			t.Fatal(err)
		}
		return root.Definitions["state"].Properties["do"]
	}
	reg := NewBuiltinRegistry()
	reg.MustRegister(Action{Name: "a_first", Run: func(context.Context, *Call) error { return nil }})
	got := fmt.Sprint(do(mspec.JSONSchemaFor(reg))["enum"])
	if want := "[a_first emit fail log noop wait]"; got != want {
		t.Errorf("do enumerates %s, want %s", got, want)
	}
	if e, ok := do(mspec.JSONSchema())["enum"]; ok {
		t.Errorf("without a registry do enumerates %v, want any string", e)
	}
}

func resolvedSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(mspec.JSONSchema(), &s); err != nil {
		t.Fatalf("the schema is not valid JSON Schema: %v", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("cannot resolve the schema: %v", err)
	}
	return rs
}

// yamlInstance decodes YAML into the JSON data model the schema validates.
func yamlInstance(t *testing.T, src []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(src, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// schemaSpecFiles are the specs that must match the schema: the project's
// own (specs/, specs/examples/) and the valid test specs.
func schemaSpecFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, glob := range []string{"../specs/*.yaml", "../specs/*/*.yaml", "testdata/specs/*.yaml"} {
		m, _ := filepath.Glob(glob)
		for _, f := range m {
			if src, err := os.ReadFile(f); err == nil && !bytes.Contains(src, []byte("\nreplies:")) { // scripted replies, not a spec
				files = append(files, f)
			}
		}
	}
	if len(files) < 4 {
		t.Fatalf("want the project's specs, got %v", files)
	}
	return files
}

func TestValidSpecsMatchTheSchema(t *testing.T) {
	rs := resolvedSchema(t)
	for _, f := range schemaSpecFiles(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := rs.Validate(yamlInstance(t, src)); err != nil {
			t.Errorf("%s does not match the schema: %v", f, err)
		}
	}
}

func TestSchemaRejectsShapeErrors(t *testing.T) {
	rs := resolvedSchema(t)
	base := "lpp: 1\nname: t\ninitial: a\nstates:\n  a: {final: true}\n"
	tests := []struct{ name, src string }{
		{"unknown top-level key", base + "intial: a\n"},
		{"unknown state key", strings.Replace(base, "{final: true}", "{final: true, nxet: a}", 1)},
		{"wrong version", strings.Replace(base, "lpp: 1", "lpp: 2", 1)},
		{"missing states", "lpp: 1\nname: t\ninitial: a\n"},
		{"unknown variable type", base + "context: {n: integer}\n"},
		{"transition without to", strings.Replace(base, "{final: true}", "{next: [{when: x}]}", 1)},
		{"reserved variable", base + "context: {state: string}\n"},
		{"keyword variable", base + "context: {nil: int}\n"},
		{"no states", "lpp: 1\nname: t\ninitial: a\nstates: {}\n"},
		{"blank name", strings.Replace(base, "name: t", `name: " "`, 1)},
		{"version as a string", strings.Replace(base, "lpp: 1", `lpp: "1"`, 1)},
		{"max_transitions as a string", base + "limits: {max_transitions: \"5\"}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := rs.Validate(yamlInstance(t, []byte(tt.src))); err == nil {
				t.Errorf("the schema accepts:\n%s", tt.src)
			}
		})
	}
}

// TestSchemaKeysMatchTheDecoder compares, for every mapping of the format,
// the keys the schema lists with the keys the decoder accepts, both ways.
func TestSchemaKeysMatchTheDecoder(t *testing.T) {
	var root map[string]any
	if err := json.Unmarshal(mspec.JSONSchema(), &root); err != nil {
		t.Fatal(err)
	}
	get := func(v any, path ...any) any {
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
	defs := []any{"definitions"}
	tests := []struct {
		where   string
		decoder []string
		schema  []any // path to a "properties" object
	}{
		{"the spec", mspec.TopKeys, []any{"properties"}},
		{"a context variable", mspec.VarKeys, append(defs, "variable", "oneOf", 1, "properties")},
		{"a state", mspec.StateKeys, append(defs, "state", "properties")},
		{"a transition", mspec.TransitionKeys, append(defs, "transition", "oneOf", 1, "properties")},
		{"an on_error route", mspec.ErrorRouteKeys, append(defs, "errorRoute", "oneOf", 1, "properties")},
		{"an event transition", mspec.EventKeys, append(defs, "eventTransition", "properties")},
		{"an event", mspec.EventDeclKeys, append(defs, "event", "oneOf", 2, "properties")},
		{"a payload field", mspec.PayloadFieldKeys, append(defs, "payloadField", "oneOf", 1, "properties")},
		{"limits", mspec.LimitKeys, []any{"properties", "limits", "properties"}},
	}
	for _, tt := range tests {
		props, ok := get(root, tt.schema...).(map[string]any)
		if !ok {
			t.Errorf("%s: no properties at %v in the schema", tt.where, tt.schema)
			continue
		}
		for _, k := range tt.decoder {
			if _, ok := props[k]; !ok {
				t.Errorf("%s: the decoder accepts %q, the schema does not list it", tt.where, k)
			}
		}
		for k := range props {
			if !mspec.Contains(tt.decoder, k) {
				t.Errorf("%s: the schema lists %q, the decoder does not accept it", tt.where, k)
			}
		}
		if ap, ok := get(root, append(tt.schema[:len(tt.schema)-1:len(tt.schema)-1], "additionalProperties")...).(bool); !ok || ap {
			t.Errorf("%s: the schema must reject unknown keys (additionalProperties: false), as the decoder does", tt.where)
		}
	}
	// And the decoder really accepts each listed key where it belongs: a
	// spec using every one of them decodes without an unknown-key error.
	src := []byte(`lpp: 1
name: all
description: every key
context:
  n: {type: int, default: 0, enum: [], doc: d}
initial: a
states:
  a:
    do: log
    with: {message: m}
    set: {n: n + 1}
    next: [{to: b, when: n > 0, set: {n: "0"}, note: x, warn: y}, b]
    on_error: {to: b, set: {n: "1"}, note: x, warn: y}
    note: x
  b: {final: true}
    on:
      GO: [{to: b, when: event.payload.k > 0, set: {n: event.payload.k}, note: x, warn: y}]
events:
  E: {from: a, to: b, when: n > 0, set: {n: "2"}, note: x}
  GO:
    payload: {k: int, j: {type: string, required: false, default: "", enum: [""], doc: d}}
    note: x
    transitions: [{from: a, to: b, when: n > 0, set: {n: "2"}, note: x}]
limits: {max_transitions: 5}
`)
	_, diags := mspec.Parse("all.yaml", src)
	for _, d := range diags {
		if strings.Contains(d.Msg, "unknown key") {
			t.Errorf("the decoder rejects a key of the format: %s", d)
		}
	}
}

// TestSpecsMatchTheSchemaInAjv validates the project's specs against the
// committed schema with Ajv (strict mode, so the schema itself is checked
// as draft-07 too), the validator editors use, when it is installed (cd
// machine/testdata/mermaid && npm ci).
func TestSpecsMatchTheSchemaInAjv(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		skipRenderer(t, "node is not installed")
	}
	if _, err := os.Stat("testdata/mermaid/node_modules/ajv"); err != nil {
		skipRenderer(t, "ajv is not installed: cd machine/testdata/mermaid && npm ci")
	}
	dir := t.TempDir()
	args := []string{"testdata/mermaid/schema.mjs", schemaFile}
	for i, f := range schemaSpecFiles(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(yamlInstance(t, src))
		out := filepath.Join(dir, fmt.Sprintf("%02d-%s.json", i, filepath.Base(f)))
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, out)
	}
	// A spec the schema must reject, so a schema that accepts anything fails.
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"lpp":1,"name":"x","initial":"a","states":{"a":{"final":true,"nxt":"a"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, append(args, bad)...).CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(args)-1 {
		t.Fatalf("ajv: %v\n%s", err, out)
	}
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasPrefix(l, "ok ") {
			t.Errorf("ajv rejects a spec: %s", l)
		}
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "FAIL ") || !strings.Contains(last, "additional properties") {
		t.Errorf("ajv accepts a state with an unknown key: %s", last)
	}
}

// skipRenderer skips a test that needs an outside program, unless
// LPPCTL_REQUIRE_RENDERERS is set (CI sets it after installing them): then
// a missing program is a failure, so the check cannot silently vanish.
func skipRenderer(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("LPPCTL_REQUIRE_RENDERERS") != "" {
		t.Fatalf("%s (LPPCTL_REQUIRE_RENDERERS is set)", why)
	}
	t.Skip(why)
}
