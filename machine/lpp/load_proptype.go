package lpp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/lppctl/lppctl/machine/lpp/jsonpos"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Property types. lpp's loader does not read context_schema, and its
// compiler starts every property None whatever its type, so a blueprint
// whose property has no type, a Python or JSON Schema spelling of one
// ("int", "dict", ["string", "null"]) or a type nothing names ("any") is
// one lpp reads and runs. lppctl's variables have one of six types:
// an evident spelling is read as its L++ type; otherwise the property is
// typed from its use, as a property the blueprint does not declare
// (implicitProperties), and from its default first. Each is a warning;
// the type is written back as the blueprint wrote it (TypeSrc).

// typeAliases are the spellings of L++'s types that people and models
// write (Python's names, JSON Schema's, a few common others).
var typeAliases = map[string]string{
	"int": "integer", "long": "integer",
	"float": "number", "double": "number", "decimal": "number",
	"bool": "boolean",
	"str":  "string", "text": "string",
	"dict": "object", "map": "object",
	"list": "array", "tuple": "array",
}

// untypedProp is a declared property whose type lppctl takes from its use.
type untypedProp struct {
	key         string
	pos         mspec.Pos
	span        int
	why         string // what the blueprint wrote, for the warning
	description string
	def         *jsonpos.Node
	src         string // the "type" value's JSON text, "" when there is none
	enum        []any
	index       int // its place in bp.Context among the declared properties
}

// propertyType reads a property's "type" (t nil when absent): the L++
// type lppctl gives it, "" when its use must tell, with what the
// blueprint wrote when it is not one of the six.
func (d *decoder) propertyType(t *jsonpos.Node, what string) (typ, why string) {
	if t == nil {
		return "", "has no type"
	}
	if t.Kind == jsonpos.String && slices.Contains(propertyTypes, t.Str) {
		return t.Str, ""
	}
	if t.Kind == jsonpos.String {
		if a, ok := typeAliases[strings.ToLower(t.Str)]; ok {
			return a, fmt.Sprintf("has the type %q", t.Str)
		}
		if a := strings.ToLower(t.Str); slices.Contains(propertyTypes, a) {
			return a, fmt.Sprintf("has the type %q", t.Str)
		}
		return "", fmt.Sprintf("has the type %q", t.Str)
	}
	if t.Kind == jsonpos.Array { // JSON Schema's union: every lppctl property is nullable already
		var named []string
		for _, it := range t.Items {
			if it.Kind != jsonpos.String {
				return "", "has the type " + d.shortJSON(t)
			}
			if it.Str == "null" {
				continue
			}
			a := it.Str
			if b, ok := typeAliases[strings.ToLower(a)]; ok {
				a = b
			}
			if !slices.Contains(named, a) {
				named = append(named, a)
			}
		}
		if len(named) == 1 && slices.Contains(propertyTypes, named[0]) {
			return named[0], "has the type " + d.shortJSON(t)
		}
		return "", "has the type " + d.shortJSON(t)
	}
	return "", "has the type " + t.Describe()
}

// shortJSON is n's JSON text, cut for a message.
func (d *decoder) shortJSON(n *jsonpos.Node) string {
	var b bytes.Buffer
	s := string(d.src[n.Off:n.End])
	if json.Compact(&b, d.src[n.Off:n.End]) == nil {
		s = b.String()
	}
	if r := []rune(s); len(r) > 60 {
		s = string(r[:57]) + "..."
	}
	return s
}

// aliasWarning is the warning of a property whose type lppctl reads as typ.
func (d *decoder) aliasWarning(t *jsonpos.Node, what, why, typ string) {
	d.warnf(t.Pos, 1, fmt.Sprintf(`write "type": %q`, typ),
		"%s %s, which is not an L++ type: lppctl reads it as %s (lpp reads no property type, and every lppctl property is nullable)", what, why, typ)
}

// untypedProperty records a property whose type its use tells; the
// property is declared when implicitProperties has seen every use.
func (d *decoder) untypedProperty(bp *Blueprint, m *jsonpos.Member, what, why string) {
	u := &untypedProp{key: m.Key, pos: m.KeyPos, span: len([]rune(m.Key)) + 2, why: why, def: m.Val.Get("default"), index: len(bp.Context)}
	u.description = d.optString(m.Val, "description")
	if t := m.Val.Get("type"); t != nil {
		u.src = d.keptRaw(t, "the type of "+what)
		u.pos, u.span = t.Pos, 1
	}
	if e := m.Val.Get("enum"); e != nil && e.Kind == jsonpos.Array {
		for _, it := range e.Items {
			if len(d.nonFiniteIn(it)) == 0 {
				u.enum = append(u.enum, it.Value())
			}
		}
	}
	d.untyped = append(d.untyped, u)
}

// declareUntyped declares the properties untypedProperty recorded, typed
// from the default, else from typeOf (their use), else string.
func (d *decoder) declareUntyped(bp *Blueprint, typeOf func(string) string) {
	for i, u := range d.untyped {
		typ, from := "", ""
		if u.def != nil && u.def.Kind != jsonpos.Null && len(d.nonFiniteIn(u.def)) == 0 {
			typ, from = literalType(u.def.Value()), "from its default"
		}
		if typ == "" {
			typ, from = typeOf(u.key), "from its use"
		}
		if typ == "" {
			typ, from = "string", "string (nothing tells its type)"
		} else {
			from = typ + " " + from
		}
		p := &Property{Name: d.newPropID(bp, u.key), Type: typ, Description: u.description, Pos: u.pos, TypePos: u.pos, TypeSrc: u.src, Untyped: true}
		if typ == "string" {
			p.Enum = u.enum
		}
		if u.def != nil && u.def.Kind != jsonpos.Null && typeAccepts(typ, u.def) && len(d.nonFiniteIn(u.def)) == 0 {
			p.Default, p.HasDefault = u.def.Value(), true
		}
		at := min(u.index+i, len(bp.Context)) // in its place among the declared ones
		bp.Context = slices.Insert(bp.Context, at, p)
		d.warnf(u.pos, u.span, fmt.Sprintf(`write "type": %q, or the type it holds (one of %s)`, typ, strings.Join(propertyTypes, ", ")),
			"property %q %s, which lpp does not check (its loader reads no property type): lppctl types it %s, nullable", u.key, u.why, from)
	}
}
