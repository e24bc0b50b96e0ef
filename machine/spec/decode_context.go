package spec

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

var VarKeys = []string{"type", "default", "enum", "doc", "nullable", "range", "input"}

// context decodes the context: section, the typed run variables.
func (d *decoder) context(n *yaml.Node, s *Spec) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if d.badKey(k, "context") {
			continue
		}
		name := k.Value
		if seen[name] {
			d.errorf(pos(k), span(k), "duplicate context variable %q", name)
			continue
		}
		seen[name] = true
		if !IdentRE.MatchString(name) {
			if m := colonKeyRE.FindStringSubmatch(name); m != nil && v.Kind == yaml.ScalarNode {
				d.errorf(pos(k), len([]rune(m[1]))+1, "context variable name %q is not an identifier: a colon is missing after %q", name, m[1])
				d.hintLast(fmt.Sprintf("write `%s: %s: %s`", m[1], m[2], v.Value))
				continue
			}
			d.errorf(pos(k), span(k), "context variable name %q is not an identifier", name)
			d.hintLast("use letters, digits and underscores, starting with a letter")
			continue
		}
		if name == VarState || name == VarLastError {
			d.errorf(pos(k), span(k), "context variable %q is reserved (the interpreter sets it)", name)
			continue
		}
		if why := exprReserved(name); why != "" {
			d.errorf(pos(k), span(k), "context variable %q %s", name, why)
			d.hintLast("rename it, e.g. " + name + "_value")
			continue
		}
		cv := &Var{Name: name, Pos: pos(k), TypePos: pos(v), DefPos: pos(k)}
		var defNode *yaml.Node
		switch v.Kind {
		case yaml.ScalarNode: // short form: `retries: int`
			if v.Tag == "!!null" {
				d.errorf(pos(k), span(k), "context variable %q has no type", name)
				d.hintLast("write `" + name + ": TYPE` (one of " + typeList() + ")")
				continue
			}
			cv.Type = Type(v.Value)
		case yaml.MappingNode:
			f := d.fields(v, fmt.Sprintf("context variable %q", name), VarKeys...)
			if t, ok := f["type"]; ok {
				cv.TypePos = pos(t.val)
				if t.val.Kind != yaml.ScalarNode || t.val.Tag == "!!null" {
					d.errorf(pos(t.val), span(t.val), "type of %q must be a type name, not %s", name, kindName(t.val))
					d.hintLast("use one of " + typeList())
					continue
				}
				cv.Type = Type(t.val.Value)
			} else {
				d.errorf(pos(k), span(k), "context variable %q has no type", name)
				d.hintLast("add `type:` (one of " + typeList() + ")")
				continue
			}
			if dv, ok := f["default"]; ok {
				defNode = dv.val
				cv.DefPos = pos(dv.val)
			}
			if e, ok := f["enum"]; ok {
				cv.EnumPos = pos(e.val)
				if e.val.Kind != yaml.SequenceNode {
					d.errorf(pos(e.val), span(e.val), "enum of %q must be a list of strings", name)
				} else {
					for _, item := range e.val.Content {
						if item.Kind != yaml.ScalarNode || item.Tag == "!!null" {
							d.errorf(pos(item), span(item), "enum of %q must be a list of strings", name)
							continue
						}
						if Contains(cv.Enum, item.Value) {
							d.errorf(pos(item), span(item), "duplicate value %q in the enum of %q", item.Value, name)
							continue
						}
						cv.Enum = append(cv.Enum, item.Value)
					}
				}
			}
			if doc, ok := f["doc"]; ok {
				cv.Doc, _ = d.str(doc.val, "doc")
			}
			if r, ok := f["range"]; ok {
				cv.Range = d.varRange(r.val, name)
			}
			d.nullable(f, cv)
			d.input(f, cv)
		default:
			d.errorf(pos(v), span(v), "context variable %q must be a type name or a mapping with type and default, not %s", name, kindName(v))
			continue
		}
		if cv.Type == TypeAny {
			// any types payload fields only: "did you mean int?" misled.
			d.errorf(cv.TypePos, len(cv.Type), "context variable %q cannot be of type any: only a payload field can", name)
			d.hintLast("give it one of " + typeList() + " (a `set` from a field of type any checks the value against it), with `nullable: true` if it may hold null")
		} else if !isValidVarType(cv.Type) {
			d.errorf(cv.TypePos, len(cv.Type), "unknown type %q for context variable %q", cv.Type, name)
			if h := typeDidYouMean(string(cv.Type), typeNames()); h != "" {
				d.hintLast(h)
			} else {
				d.hintLast("use one of " + typeList())
			}
			cv.Type = TypeAny
		}
		if len(cv.Enum) > 0 && cv.Type != TypeString && cv.Type != TypeAny {
			d.errorf(cv.EnumPos, 1, "enum is only allowed on string variables, and %q is %s", name, cv.Type)
		}
		cv.Default = cv.initial()
		defOK := true
		if defNode != nil && cv.Type != TypeAny && !cv.nullDefault(defNode) {
			val, err := d.nodeValue(defNode)
			if err == nil {
				val, err = cv.Type.Coerce(val)
			}
			if err != nil {
				at, n := valueErrorAt(defNode, err)
				d.errorf(at, n, "default of %q: %v", name, err)
				d.hintLast(nullHint(cv, defNode))
				defOK = false
			} else {
				cv.Default = val
			}
		}
		if len(cv.Enum) > 0 && defOK {
			if sv, ok := cv.Default.(string); ok && !Contains(cv.Enum, sv) {
				d.errorf(cv.DefPos, span(orNode(defNode, k)), "default %q of %q is not one of its enum values %s", sv, name, QuoteList(cv.Enum))
				if h := didYouMean(sv, cv.Enum); h != "" {
					d.hintLast(h)
				}
			}
		}
		s.Context = append(s.Context, cv)
	}
}

func orNode(a, b *yaml.Node) *yaml.Node {
	if a != nil {
		return a
	}
	return b
}

func typeNames() []string {
	out := make([]string, len(VarTypes))
	for i, t := range VarTypes {
		out[i] = string(t)
	}
	return out
}

func typeList() string { return strings.Join(typeNames(), ", ") }

// typeSynonyms are the names other formats (JSON Schema, Python, SQL) give
// the spec's types.
var typeSynonyms = map[string]Type{
	"integer": TypeInt, "long": TypeInt, "number": TypeFloat, "double": TypeFloat, "decimal": TypeFloat,
	"boolean": TypeBool, "str": TypeString, "text": TypeString, "array": TypeList, "object": TypeMap, "dict": TypeMap,
}

// typeDidYouMean is a "did you mean" among names for the unknown type t:
// its synonym, else the closest spelling.
func typeDidYouMean(t string, names []string) string {
	if syn, ok := typeSynonyms[strings.ToLower(t)]; ok {
		return fmt.Sprintf("did you mean %q?", syn)
	}
	return didYouMean(t, names)
}
