package replyschema

import (
	"encoding/json"
	"fmt"
	"github.com/lppctl/lppctl/actions/replyjson"
	"math/big"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	mspec "github.com/lppctl/lppctl/machine/spec"

	"gopkg.in/yaml.v3"
)

// Schema is a JSON Schema an llm.generate reply must satisfy.
type Schema struct {
	raw      *jsonschema.Schema
	resolved *jsonschema.Resolved
	text     string // the schema as JSON, for the prompt
}

// Load reads llm.generate's schema parameter: an inline map, or the
// path of a JSON or YAML file found like a prompt template (the spec's
// folder, then the project root) and read with read (name as the spec
// gives it, found where it was found: the caller refuses files the model
// may not see). It fails on a value that is not a JSON Schema, including
// one with keywords JSON Schema does not have.
func Load(v any, specDir, root string, read func(name, found string) ([]byte, error)) (*Schema, error) {
	var data []byte
	switch x := v.(type) {
	case map[string]any:
		if err := keywordKinds(x, nil); err != nil {
			return nil, err
		}
		b, err := json.Marshal(x)
		if err != nil {
			return nil, fmt.Errorf("the schema cannot be written as JSON: %w", err)
		}
		data = b
	case string:
		found, tried, err := mspec.LocateFile(x, specDir, root)
		if err != nil {
			return nil, fmt.Errorf("cannot read schema: %w", err)
		}
		if found == "" {
			return nil, fmt.Errorf("schema file %q not found (looked for %s)", x, strings.Join(tried, ", "))
		}
		if read == nil {
			return nil, fmt.Errorf("cannot read schema file %s: no reader was given for files a spec names", found)
		}
		src, err := read(x, found)
		if err != nil {
			return nil, fmt.Errorf("cannot read schema file %s: %w", found, err)
		}
		var doc any
		if err := yaml.Unmarshal(src, &doc); err != nil { // YAML reads JSON too
			// yaml's messages can quote the file; the file may be anything.
			return nil, fmt.Errorf("schema file %s is neither JSON nor YAML (%s); its content is not shown", filepath.Base(found), yamlWhere(err))
		}
		m, ok := doc.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("schema file %s must hold a JSON Schema object, not %s", filepath.Base(found), replyjson.Describe(doc))
		}
		if err := keywordKinds(m, nil); err != nil {
			return nil, fmt.Errorf("schema file %s: %w", filepath.Base(found), err)
		}
		b, err := json.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("schema file %s cannot be written as JSON: %w", filepath.Base(found), err)
		}
		data = b
	default:
		return nil, fmt.Errorf("schema must be a JSON Schema written as a YAML map, or a file name, not %s", replyjson.Describe(v))
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("not a JSON Schema: %s", strings.TrimPrefix(err.Error(), "jsonschema: "))
	}
	if err := unknownKeywords(&s, nil); err != nil {
		return nil, err
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("not a JSON Schema: %s", strings.TrimPrefix(err.Error(), "jsonschema.Schema: "))
	}
	return &Schema{raw: &s, resolved: rs, text: string(data)}, nil
}

// schemaKeywords are the keywords the schema library knows (for "did you mean").
var schemaKeywords = []string{"$id", "$schema", "$ref", "$comment", "$defs", "definitions", "$anchor", "title", "description",
	"default", "examples", "type", "enum", "const", "multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
	"minLength", "maxLength", "pattern", "prefixItems", "items", "minItems", "maxItems", "additionalItems", "uniqueItems",
	"contains", "minContains", "maxContains", "minProperties", "maxProperties", "required", "dependentRequired", "properties",
	"patternProperties", "additionalProperties", "propertyNames", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
	"dependentSchemas", "format"}

// specTypeNames maps the spec's type names (and Python's) to JSON Schema's.
var specTypeNames = map[string]string{"int": "integer", "float": "number", "double": "number", "bool": "boolean",
	"list": "array", "map": "object", "dict": "object", "str": "string"}

// schemaTypes are JSON Schema's type names.
var schemaTypes = []string{"string", "integer", "number", "boolean", "object", "array", "null"}

// unknownKeywords reports the first keyword (or type name) of s or a subschema
// that JSON Schema does not define (the library keeps those in Extra): a schema written
// as {summary: string} is a mistake, not a schema that accepts everything.
func unknownKeywords(s *jsonschema.Schema, at []string) error {
	if s == nil {
		return nil
	}
	if len(s.Extra) > 0 {
		k := sortedKeys(s.Extra)[0]
		hint := didYouMean(k, schemaKeywords)
		if hint == "" {
			hint = "a property goes under properties:, e.g. {type: object, properties: {" + k + ": {type: string}}}"
		}
		return &PathError{Path: append(slices.Clip(at), k), AtKey: true, Msg: fmt.Sprintf("not a JSON Schema: %q %s is not a JSON Schema keyword; %s", k, pointer(at), hint)}
	}
	for _, t := range append([]string{s.Type}, s.Types...) {
		if t != "" && !slices.Contains(schemaTypes, t) {
			hint := didYouMean(t, schemaTypes)
			if js, ok := specTypeNames[t]; ok {
				hint = fmt.Sprintf("did you mean %q? (JSON Schema's name for the spec's %s)", js, t)
			}
			if hint == "" {
				hint = "types are " + strings.Join(schemaTypes, ", ")
			}
			return &PathError{Path: append(slices.Clip(at), "type"), Msg: fmt.Sprintf("not a JSON Schema: type %q %s is not a JSON Schema type; %s", t, pointer(at), hint)}
		}
	}
	sub := func(name ...string) []string { return append(slices.Clip(at), name...) }
	for _, k := range sortedKeys(s.Properties) {
		if err := unknownKeywords(s.Properties[k], sub("properties", k)); err != nil {
			return err
		}
	}
	// In a fixed order, so that a schema with two mistakes reports the same one every time.
	for _, g := range []struct {
		name string
		m    map[string]*jsonschema.Schema
	}{{"patternProperties", s.PatternProperties}, {"$defs", s.Defs}, {"definitions", s.Definitions}, {"dependentSchemas", s.DependentSchemas}} {
		for _, k := range sortedKeys(g.m) {
			if err := unknownKeywords(g.m[k], sub(g.name, k)); err != nil {
				return err
			}
		}
	}
	for _, g := range []struct {
		name string
		s    *jsonschema.Schema
	}{{"items", s.Items}, {"additionalItems", s.AdditionalItems}, {"contains", s.Contains}, {"additionalProperties", s.AdditionalProperties},
		{"propertyNames", s.PropertyNames}, {"not", s.Not}, {"if", s.If}, {"then", s.Then}, {"else", s.Else}} {
		if err := unknownKeywords(g.s, sub(g.name)); err != nil {
			return err
		}
	}
	for _, g := range []struct {
		name string
		l    []*jsonschema.Schema
	}{{"prefixItems", s.PrefixItems}, {"items", s.ItemsArray}, {"allOf", s.AllOf}, {"anyOf", s.AnyOf}, {"oneOf", s.OneOf}} {
		for i, x := range g.l {
			if err := unknownKeywords(x, sub(g.name, strconv.Itoa(i))); err != nil {
				return err
			}
		}
	}
	return nil
}

// Validate checks a decoded reply (from replyjson.Decode) against the schema.
func (rs *Schema) Validate(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var inst any
	if err := json.Unmarshal(b, &inst); err != nil { // the library wants float64 numbers
		return err
	}
	if err := rs.resolved.Validate(jsonView(inst)); err != nil {
		// The library names a null as the Go value it sees.
		msg := strings.ReplaceAll(rs.schemaMessage(err), "<invalid reflect.Value>", "null")
		return fmt.Errorf("%s", plainBounds(msg))
	}
	return nil
}

// NullProblem says what is wrong with a reply that is just null, when the
// schema does not allow it ("" when it does).
func (rs *Schema) NullProblem() string {
	if rs.Validate(nil) == nil {
		return ""
	}
	want := "value"
	if rs.raw.Type != "" {
		want = rs.raw.Type
	}
	return fmt.Sprintf("the reply is null; send a JSON %s valid against the schema, and nothing else", want)
}

// TypeAt returns the JSON type the schema gives the value at a JSON pointer
// ("" when the schema does not say, or allows several); it fails when the
// schema allows nothing there.
func (rs *Schema) TypeAt(ptr string) (string, error) {
	segs, err := replyjson.PointerSegments(ptr)
	if err != nil {
		return "", err
	}
	s := rs.raw
	for i, seg := range segs {
		at := "/" + strings.Join(segs[:i], "/")
		switch {
		case s.Properties[seg] != nil:
			s = s.Properties[seg]
		case s.Items != nil && isIndex(seg):
			s = s.Items
		case s.AdditionalProperties != nil && !isFalse(s.AdditionalProperties):
			s = s.AdditionalProperties
		case s.AdditionalProperties != nil || s.Type != "" && s.Type != "object" && s.Type != "array":
			return "", fmt.Errorf("the schema allows no %s: the value at %s has %s", ptr, at, schemaShape(s))
		default:
			return "", nil
		}
	}
	if s.Type != "" {
		return s.Type, nil
	}
	var types []string
	for _, t := range s.Types {
		if t != "null" {
			types = append(types, t)
		}
	}
	if len(types) == 1 {
		return types[0], nil
	}
	return "", nil
}

func isIndex(seg string) bool {
	if seg == "" {
		return false
	}
	for _, r := range seg {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// isFalse reports whether s is the schema that allows nothing (false).
func isFalse(s *jsonschema.Schema) bool {
	return s.Not != nil && s.Not.Type == "" && len(s.Not.Types) == 0 && len(s.Not.Properties) == 0 && s.Not.Not == nil && len(s.Not.Extra) == 0
}

func schemaShape(s *jsonschema.Schema) string {
	if len(s.Properties) > 0 {
		return "properties " + strings.Join(sortedKeys(s.Properties), ", ")
	}
	if s.Type != "" {
		return "type " + s.Type
	}
	return "no properties"
}

// FitsVar reports whether a value of JSON Schema type jt can go into a
// context variable of type t.
func FitsVar(jt string, t mspec.Type) bool {
	switch t {
	case mspec.TypeAny:
		return true
	case mspec.TypeInt:
		return jt == "integer"
	case mspec.TypeFloat:
		return jt == "number" || jt == "integer"
	case mspec.TypeString:
		return jt == "string"
	case mspec.TypeBool:
		return jt == "boolean"
	case mspec.TypeList:
		return jt == "array"
	case mspec.TypeMap:
		return jt == "object"
	}
	return false
}

// OptionalAt returns the first object property along ptr that the schema
// does not require (a reply valid against the schema may leave it out): the
// pointer of the object that holds it and its name; ok is false when every
// property on the way is required, or the schema cannot be followed.
func (rs *Schema) OptionalAt(ptr string) (parent, name string, ok bool) {
	segs, err := replyjson.PointerSegments(ptr)
	if err != nil {
		return "", "", false
	}
	for i := range segs {
		if s := rs.at(segs[:i]); s != nil && isObjectKey(s, segs[i]) && !slices.Contains(s.Required, segs[i]) {
			return "/" + strings.Join(segs[:i], "/"), segs[i], true
		}
	}
	return "", "", false
}

// MayOmit reports whether a reply may leave out segment depth of ptr: the
// schema does not require that property of its object.
func (rs *Schema) MayOmit(ptr string, depth int) bool {
	segs, err := replyjson.PointerSegments(ptr)
	if err != nil || depth >= len(segs) {
		return false
	}
	s := rs.at(segs[:depth])
	return s != nil && isObjectKey(s, segs[depth]) && !slices.Contains(s.Required, segs[depth])
}

// at returns the schema of the value at segs (nil when it cannot be
// followed).
func (rs *Schema) at(segs []string) *jsonschema.Schema {
	s := rs.raw
	for _, seg := range segs {
		switch {
		case s.Properties[seg] != nil:
			s = s.Properties[seg]
		case s.Items != nil && isIndex(seg):
			s = s.Items
		case s.AdditionalProperties != nil && !isFalse(s.AdditionalProperties):
			s = s.AdditionalProperties
		default:
			return nil
		}
	}
	return s
}

// isObjectKey reports whether the schema s treats seg as a key of an object
// (a declared property, or one additionalProperties allows).
func isObjectKey(s *jsonschema.Schema, seg string) bool {
	return s.Properties[seg] != nil || s.AdditionalProperties != nil && !isFalse(s.AdditionalProperties) && !(s.Items != nil && isIndex(seg))
}

// yamlWhere is the "line N" of a YAML error, or "a syntax error": never the
// rest of its message, which can quote the document.
func yamlWhere(err error) string {
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		return "line " + m[1]
	}
	return "a syntax error"
}

var yamlLineRE = regexp.MustCompile(`\bline (\d+)\b`)

// boundRE finds the numbers of the library's bound messages: the value as a
// fraction (150/1) and the bound with six decimals (100.000000).
var boundRE = regexp.MustCompile(`((?:minimum|maximum|exclusiveMinimum|exclusiveMaximum|multipleOf): )(-?[0-9]+/[0-9]+)( is [a-z ]+? )(-?[0-9]+\.[0-9]+)`)

// plainBounds writes the numbers of a bound message as plain numbers:
// "maximum: 150/1 is greater than 100.000000" reads "maximum: 150 is
// greater than 100".
func plainBounds(msg string) string {
	return boundRE.ReplaceAllStringFunc(msg, func(m string) string {
		g := boundRE.FindStringSubmatch(m)
		value := g[2]
		if r, ok := new(big.Rat).SetString(g[2]); ok {
			f, _ := r.Float64()
			value = strconv.FormatFloat(f, 'f', -1, 64)
		}
		bound := g[4]
		if f, err := strconv.ParseFloat(g[4], 64); err == nil {
			bound = strconv.FormatFloat(f, 'f', -1, 64)
		}
		return g[1] + value + g[3] + bound
	})
}

// Text is the schema as JSON, for the prompt.
func (rs *Schema) Text() string { return rs.text }
