package actions

import (
	"encoding/json"
	"github.com/lppctl/lppctl/actions/replyjson"
	"github.com/lppctl/lppctl/actions/replyschema"
	"os"
	"path/filepath"
	"testing"
)

// FuzzExtractJSON: any model reply gives valid JSON found in it, or an
// error; a reply that validates is decoded and its pointers looked up
// without a panic.
func FuzzExtractJSON(f *testing.F) {
	for _, s := range []string{
		`{"a": 1}`, "Here:\n```json\n{\"a\": [1, {\"b\": 2}]}\n```\nDone.", "```\n", "``` ```",
		`prose {"a": {"b": "}"}} more`, `{"a": 1`, "", "[1, 2]", "```json\n{}\n```\n```\n[]\n```",
	} {
		f.Add(s, "/a/b")
	}
	f.Fuzz(func(t *testing.T, reply, ptr string) {
		text, err := replyjson.Extract(reply)
		if err != nil {
			return
		}
		if !json.Valid([]byte(text)) {
			t.Fatalf("extractJSON(%q) = %q, not JSON", reply, text)
		}
		v, err := replyjson.Decode(text)
		if err != nil {
			t.Fatalf("extractJSON(%q) = %q, which does not decode: %v", reply, text, err)
		}
		_, _ = replyjson.PointerGet(v, ptr)
	})
}

// FuzzLoadSchema: any schema file is a JSON Schema (whose typeAt and
// validate never panic) or an error.
func FuzzLoadSchema(f *testing.F) {
	for _, s := range []string{
		`{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}`,
		`{"type": "thing"}`, `{"type": ["string", "null"]}`, `{"items": {"type": "string"}}`,
		"type: object\nadditionalProperties: false\n", `[1]`, `{"$ref": "#/x"}`, `{`,
	} {
		f.Add(s, `{"a": 1}`)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, schema, reply string) {
		path := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(path, []byte(schema), 0o644); err != nil {
			t.Fatal(err)
		}
		rs, err := replyschema.Load("s.yaml", dir, dir, namedReader(nil, dir, dir))
		if err != nil {
			return
		}
		_, _ = rs.TypeAt("/a")
		if v, err := replyjson.Decode(reply); err == nil {
			_ = rs.Validate(v)
		}
	})
}
