package replyschema

import (
	"slices"
	"strings"

	"github.com/lppctl/lppctl/machine"
)

// DeclareValues declares, for each variable of llm.generate's map whose
// field an inline schema requires and restricts to an enum (or a const),
// the only values the reply writes there (machine.VarSpec.Values): a
// reply that fails the schema is asked again, then fails the action, so
// the model checker gives the variable these values and no other (no
// deadlock through a verdict "" that no reply can give). A field that may
// be left out (not required at every level of its JSON pointer, or inside
// an array) keeps its variable's value, and an enum holding null declares
// nothing. A schema in a file comes here as a map: the checker reads it
// (machine.Action.WritesOfIn).
func DeclareValues(p map[string]any, writes []machine.VarSpec) {
	eachMapped(p, writes, func(w *machine.VarSpec, schema map[string]any, ptr string) {
		s := schemaAt(schema, ptr)
		if s == nil || !schemaRequires(schema, ptr) {
			return
		}
		var vals []any
		if c, ok := s["const"]; ok {
			vals = []any{c}
		} else if e, ok := s["enum"].([]any); ok && len(e) > 0 {
			vals = slices.Clone(e)
		}
		if len(vals) > 0 && !slices.Contains(vals, nil) {
			w.Values = vals
		}
	})
}

// schemaRequires reports whether a value valid against schema has the
// field at the JSON pointer ptr: each property on the way is required by
// its object's schema (an array's item may be missing).
func schemaRequires(schema map[string]any, ptr string) bool {
	if ptr == "" || !strings.HasPrefix(ptr, "/") {
		return false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		props, _ := schema["properties"].(map[string]any)
		req, _ := schema["required"].([]any)
		if !slices.Contains(req, any(tok)) { // an array's item (/list/0) is never required
			return false
		}
		next, ok := props[tok].(map[string]any)
		if !ok {
			return false
		}
		schema = next
	}
	return true
}
