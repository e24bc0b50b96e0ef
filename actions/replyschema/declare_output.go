package replyschema

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/lppctl/lppctl/machine"
)

// maxInstances bounds the replies DeclareOutputValues declares.
const maxInstances = 32

// DeclareOutputValues declares the values llm.generate's output variable
// takes when an inline schema is given: the JSON text of a reply valid
// against it (the output holds the JSON the reply carries, never other
// text). The values are a small set of valid replies: one with each
// required field at its first value (an enum's or const's first, false, 0
// or its minimum, "", [], an object built the same way), and one per value
// of each field that has few (an enum's, a const, true and false, 0 and
// 1) with the others as in the first. Each is checked against the schema;
// none declared when none passes (the variable then takes the values of a
// string, "" and "other" among them, as without a schema).
func DeclareOutputValues(p map[string]any, writes []machine.VarSpec) {
	raw, ok := p["schema"].(map[string]any)
	if !ok {
		return
	}
	name, _ := p["output"].(string)
	i := slices.IndexFunc(writes, func(w machine.VarSpec) bool { return w.Name == name })
	if name == "" || i < 0 {
		return
	}
	schema, err := Load(raw, "", "", nil)
	if err != nil {
		return
	}
	var vals []any
	seen := map[string]bool{}
	for _, inst := range instances(raw) {
		if schema.Validate(inst) != nil {
			continue
		}
		b, err := json.Marshal(inst)
		if err != nil || seen[string(b)] {
			continue
		}
		seen[string(b)] = true
		vals = append(vals, string(b))
		if len(vals) == maxInstances {
			break
		}
	}
	if len(vals) > 0 {
		writes[i].Values = vals
	}
}

// instances returns a first instance of s and its variants (see
// DeclareOutputValues).
func instances(s map[string]any) []any {
	base, ok := firstInstance(s, 0)
	if !ok {
		return nil
	}
	out := []any{base}
	obj, isObj := base.(map[string]any)
	props, _ := s["properties"].(map[string]any)
	if !isObj {
		return append(out, fewValues(s)...)
	}
	for _, k := range sortedKeys(props) {
		ps, _ := props[k].(map[string]any)
		for _, v := range fewValues(ps) {
			variant := map[string]any{}
			for kk, vv := range obj {
				variant[kk] = vv
			}
			variant[k] = v
			out = append(out, variant)
		}
	}
	return out
}

// fewValues returns the values of a schema that has few: an enum's, a
// const, true and false, 0 and 1.
func fewValues(s map[string]any) []any {
	if c, ok := s["const"]; ok {
		return []any{c}
	}
	if e, ok := s["enum"].([]any); ok {
		return e
	}
	switch schemaType(s) {
	case "boolean":
		return []any{false, true}
	case "integer", "number":
		return []any{0, 1}
	}
	return nil
}

// schemaType returns s's type, the first that is not "null" of a list.
func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if x, ok := x.(string); ok && x != "null" {
				return x
			}
		}
	}
	if _, ok := s["properties"]; ok {
		return "object"
	}
	return ""
}

// firstInstance builds a value s accepts, from its required fields' first
// values; ok is false when s does not say enough.
func firstInstance(s map[string]any, depth int) (any, bool) {
	if depth > 8 {
		return nil, false
	}
	if c, ok := s["const"]; ok {
		return c, true
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0], true
	}
	switch schemaType(s) {
	case "object":
		obj := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		for _, r := range req {
			k, _ := r.(string)
			ps, ok := props[k].(map[string]any)
			if !ok {
				return nil, false
			}
			v, ok := firstInstance(ps, depth+1)
			if !ok {
				return nil, false
			}
			obj[k] = v
		}
		return obj, true
	case "array":
		n, _ := s["minItems"].(int)
		items, _ := s["items"].(map[string]any)
		arr := []any{}
		for range n {
			v, ok := firstInstance(items, depth+1)
			if !ok {
				return nil, false
			}
			arr = append(arr, v)
		}
		return arr, true
	case "string":
		n, _ := s["minLength"].(int)
		return strings.Repeat("x", n), true
	case "integer", "number":
		if m, ok := s["minimum"]; ok {
			return m, true
		}
		return 0, true
	case "boolean":
		return false, true
	}
	return nil, false
}
