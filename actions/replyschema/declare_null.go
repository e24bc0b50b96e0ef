package replyschema

import (
	"slices"
	"strconv"
	"strings"

	"github.com/lppctl/lppctl/machine"
)

// DeclareNotNull marks NotNull the variables of llm.generate's map
// whose field an inline schema keeps from being null (the model checker
// then gives them no null outcome). A field the reply leaves out keeps its
// variable's value, so only a null in the reply writes null: the field's
// schema excludes it when its type is not "null" nor a list holding
// "null", or its enum or const holds no null, or each schema of an anyOf
// or a oneOf excludes null (one of an allOf does). A schema in a file comes
// here as a map (machine.Action.WritesOfIn); a field it cannot find stays
// nullable.
func DeclareNotNull(p map[string]any, writes []machine.VarSpec) {
	eachMapped(p, writes, func(w *machine.VarSpec, schema map[string]any, ptr string) {
		if s := schemaAt(schema, ptr); s != nil && !schemaAllowsNull(s) {
			w.NotNull = true
		}
	})
}

// eachMapped calls f with each variable of llm.generate's map, the inline
// schema and the JSON pointer the variable takes its value from (nothing
// without a schema given as a map).
func eachMapped(p map[string]any, writes []machine.VarSpec, f func(w *machine.VarSpec, schema map[string]any, ptr string)) {
	schema, ok := p["schema"].(map[string]any)
	if !ok {
		return
	}
	mapping, _ := p["map"].(map[string]any)
	for i := range writes {
		if ptr, ok := mapping[writes[i].Name].(string); ok {
			f(&writes[i], schema, ptr)
		}
	}
}

// schemaAt returns the schema of the value at the JSON pointer ptr of a
// value valid against schema (nil when the schema does not say).
func schemaAt(schema map[string]any, ptr string) map[string]any {
	if ptr == "" {
		return schema
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		var next any
		if props, ok := schema["properties"].(map[string]any); ok {
			next = props[tok]
		}
		if next == nil {
			if _, err := strconv.Atoi(tok); err == nil {
				next = schema["items"]
			}
		}
		s, ok := next.(map[string]any)
		if !ok {
			return nil
		}
		schema = s
	}
	return schema
}

// schemaAllowsNull reports whether a value valid against s may be null:
// its own type, enum or const allow it (ownAllowsNull), every schema of its
// allOf does, and one of its anyOf (and of its oneOf) does. A schema that
// does not say (no type, a $ref) allows it.
func schemaAllowsNull(s map[string]any) bool {
	if !ownAllowsNull(s) {
		return false
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, b := range all {
			if m, ok := b.(map[string]any); ok && !schemaAllowsNull(m) {
				return false
			}
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		branches, ok := s[k].([]any)
		if !ok || len(branches) == 0 {
			continue
		}
		if !slices.ContainsFunc(branches, func(b any) bool {
			m, ok := b.(map[string]any)
			return !ok || schemaAllowsNull(m)
		}) {
			return false
		}
	}
	return true
}

// ownAllowsNull reports whether s's own type, enum or const let a value be
// null (true when it has none of them).
func ownAllowsNull(s map[string]any) bool {
	if c, ok := s["const"]; ok {
		return c == nil
	}
	if e, ok := s["enum"].([]any); ok {
		for _, v := range e {
			if v == nil {
				return true
			}
		}
		return false
	}
	switch t := s["type"].(type) {
	case string:
		return t == "null"
	case []any:
		for _, v := range t {
			if v == "null" {
				return true
			}
		}
		return false
	}
	return true
}
