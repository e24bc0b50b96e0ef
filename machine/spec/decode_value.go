package spec

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Limits on YAML values, so that a hostile spec (an alias that contains
// itself, a "billion laughs" of nested aliases) is an error, not a hang or a
// crash.
const (
	maxValueDepth = 64      // nesting of lists and maps in one value
	maxValueNodes = 100_000 // nodes produced by all values of a spec, aliases expanded
)

// nodeValue converts a YAML node to a plain Go value (int, float64, bool,
// string, []any, map[string]any, nil).
func (d *decoder) nodeValue(n *yaml.Node) (any, error) {
	return d.value(n, 0, false)
}

// value converts n; aliased tells that n is reached through an alias: only
// those nodes count against maxValueNodes (the others are bounded by the
// file's size), so an alias bomb in one value does not make every later value
// an error.
func (d *decoder) value(n *yaml.Node, depth int, aliased bool) (any, error) {
	if depth > maxValueDepth {
		if aliased {
			return nil, fmt.Errorf("the value nests deeper than %d levels (is an alias inside itself?)", maxValueDepth)
		}
		return nil, fmt.Errorf("the value nests deeper than %d levels", maxValueDepth)
	}
	if aliased {
		d.nodes++
		if d.nodes > maxValueNodes {
			return nil, fmt.Errorf("the spec's aliases expand to more than %d nodes (aliases of aliases?)", maxValueNodes)
		}
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, fmt.Errorf("unknown alias")
		}
		v, err := d.value(n.Alias, depth+1, true)
		if err != nil && !aliased {
			err = &aliasError{use: n, err: err} // the alias written in the value
		}
		return v, err
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return nil, nil
		case "!!int":
			i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
			if err != nil {
				return nil, fmt.Errorf("%q is not a valid int", n.Value)
			}
			return int(i), nil
		case "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, fmt.Errorf("%q is not a valid float", n.Value)
			}
			return f, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, fmt.Errorf("%q is not a valid bool", n.Value)
			}
			return b, nil
		}
		return n.Value, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := d.value(c, depth+1, aliased)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			if _, dup := out[n.Content[i].Value]; dup {
				return nil, fmt.Errorf("duplicate key %q at line %d", n.Content[i].Value, n.Content[i].Line)
			}
			v, err := d.value(n.Content[i+1], depth+1, aliased)
			if err != nil {
				return nil, err
			}
			out[n.Content[i].Value] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported YAML node")
}

// boolHint says how to write the boolean n is not.
func boolHint(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		switch v := strings.ToLower(n.Value); {
		case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 && (v == "true" || v == "false"):
			return fmt.Sprintf("write %s without quotes: in quotes it is a text", v)
		case Contains([]string{"yes", "y", "on"}, v):
			return "write true: yes, y and on are text in the YAML a spec is read as (1.2), not booleans"
		case Contains([]string{"no", "n", "off"}, v):
			return "write false: no, n and off are text in the YAML a spec is read as (1.2), not booleans"
		}
	}
	return "write true or false"
}
