package machine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"gopkg.in/yaml.v3"
)

const schemaFile = "../docs/spec.schema.json"

// TestCommittedSchemaIsGenerated keeps docs/spec.schema.json equal to JSONSchema() (-update rewrites it).
func TestCommittedSchemaIsGenerated(t *testing.T) {
	checkGolden(t, schemaFile, JSONSchema())
}

func resolvedSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(JSONSchema(), &s); err != nil {
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

func TestValidSpecsMatchTheSchema(t *testing.T) {
	rs := resolvedSchema(t)
	files, _ := filepath.Glob("testdata/specs/*.yaml")
	for _, f := range files {
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := rs.Validate(yamlInstance(t, []byte(tt.src))); err == nil {
				t.Errorf("the schema accepts:\n%s", tt.src)
			}
		})
	}
}
