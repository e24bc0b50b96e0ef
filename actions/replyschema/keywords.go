package replyschema

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lppctl/lppctl/actions/replyjson"
)

// PathError is a mistake at one place of a schema: Path holds the keys
// (and list indexes) from the schema's top to it, so that a caller holding
// the schema's source can point there. AtKey tells that the last key
// itself is wrong (a keyword JSON Schema does not have), not its value.
type PathError struct {
	Path  []string
	AtKey bool
	Msg   string
}

func (e *PathError) Error() string { return e.Msg }

// pointer renders path as a JSON pointer ("at the top" for none).
func pointer(path []string) string {
	if len(path) == 0 {
		return "at the top"
	}
	return "at /" + strings.Join(path, "/")
}

// The value kinds of the keywords the library reads. A value of another
// kind made json.Unmarshal fail with the library's Go field names
// (".schemaWithoutMethods.properties...minimum of type float64") and no
// place.
var (
	numberKeywords  = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
	countKeywords   = []string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains"}
	stringKeywords  = []string{"$id", "$schema", "$ref", "$comment", "$anchor", "title", "description", "pattern", "format"}
	schemaKeywords1 = []string{"items", "additionalItems", "additionalProperties", "not", "if", "then", "else", "propertyNames", "contains"}
	schemaLists     = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	schemaMaps      = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)

// keywordKinds checks the kind of every keyword's value of the schema v
// (a decoded YAML or JSON value), and of its subschemas, before the
// library reads it.
func keywordKinds(v any, path []string) error {
	if _, ok := v.(bool); ok {
		return nil // true and false are schemas
	}
	m, ok := v.(map[string]any)
	if !ok {
		return &PathError{Path: path, Msg: fmt.Sprintf("not a JSON Schema: the schema %s must be a mapping of keywords, not %s", pointer(path), replyjson.Describe(v))}
	}
	for _, k := range sortedKeys(m) {
		x, at := m[k], append(slices.Clip(path), k)
		wrong := func(want string) error {
			return &PathError{Path: at, Msg: fmt.Sprintf("not a JSON Schema: %s %s must be %s, not %s", k, pointer(path), want, describeValue(x))}
		}
		switch {
		case slices.Contains(numberKeywords, k):
			if _, ok := number(x); !ok {
				return wrong("a number")
			}
		case slices.Contains(countKeywords, k):
			if f, ok := number(x); !ok || f < 0 || f != math.Trunc(f) {
				return wrong("a whole number, 0 or more")
			}
		case slices.Contains(stringKeywords, k):
			if _, ok := x.(string); !ok {
				return wrong("a string")
			}
		case k == "uniqueItems":
			if _, ok := x.(bool); !ok {
				return wrong("true or false")
			}
		case k == "required":
			if !stringList(x) {
				return wrong("a list of property names")
			}
		case k == "type":
			if _, ok := x.(string); !ok && !stringList(x) {
				return wrong("a type name or a list of them")
			}
		case k == "enum":
			if _, ok := x.([]any); !ok {
				return wrong("a list of values")
			}
		case k == "items":
			if l, ok := x.([]any); ok {
				if err := schemaList(l, at); err != nil {
					return err
				}
			} else if err := keywordKinds(x, at); err != nil {
				return err
			}
		case slices.Contains(schemaKeywords1, k):
			if err := keywordKinds(x, at); err != nil {
				return err
			}
		case slices.Contains(schemaLists, k):
			l, ok := x.([]any)
			if !ok {
				return wrong("a list of schemas")
			}
			if err := schemaList(l, at); err != nil {
				return err
			}
		case slices.Contains(schemaMaps, k):
			sm, ok := x.(map[string]any)
			if !ok {
				return wrong("a mapping of names to schemas")
			}
			for _, name := range sortedKeys(sm) {
				if err := keywordKinds(sm[name], append(slices.Clip(at), name)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func schemaList(l []any, at []string) error {
	for i, sub := range l {
		if err := keywordKinds(sub, append(slices.Clip(at), strconv.Itoa(i))); err != nil {
			return err
		}
	}
	return nil
}

// number returns a decoded number as a float64.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func stringList(v any) bool {
	l, ok := v.([]any)
	if !ok {
		return false
	}
	for _, x := range l {
		if _, ok := x.(string); !ok {
			return false
		}
	}
	return true
}

// describeValue names a value's kind and, for a scalar, the value.
func describeValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return strconv.FormatBool(x)
	case int, int64, uint64:
		return fmt.Sprintf("the integer %v", x)
	case float64:
		return fmt.Sprintf("the number %v", x)
	}
	return replyjson.Describe(v)
}
