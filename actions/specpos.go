package actions

import (
	"strconv"

	"github.com/lppctl/lppctl/actions/replyschema"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"gopkg.in/yaml.v3"
)

// specNodes finds the YAML nodes of the states' `with:` parameters in a
// spec's source, for diagnostics that point inside a parameter's value (a
// key of a map parameter). machine.Param has the positions of the parameter
// itself only.
type specNodes struct {
	with   map[string]*yaml.Node // state name → its `with:` mapping
	states map[string]*yaml.Node // state name → its mapping
}

func parseSpecNodes(src []byte) *specNodes {
	n := &specNodes{with: map[string]*yaml.Node{}, states: map[string]*yaml.Node{}}
	var doc yaml.Node
	if yaml.Unmarshal(src, &doc) != nil || len(doc.Content) == 0 {
		return n
	}
	states := mapValue(doc.Content[0], "states")
	if states == nil || states.Kind != yaml.MappingNode {
		return n
	}
	for i := 0; i+1 < len(states.Content); i += 2 {
		n.states[states.Content[i].Value] = states.Content[i+1]
		if w := mapValue(states.Content[i+1], "with"); w != nil && w.Kind == yaml.MappingNode {
			n.with[states.Content[i].Value] = w
		}
	}
	return n
}

// misspelt reports whether state's text has a key that is not a state's
// key and is nearest to key (whit for with): its value was not decoded,
// and that error is reported already.
func (n *specNodes) misspelt(state, key string) bool {
	m := n.states[state]
	if m == nil || m.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i].Value
		if mspec.Contains(mspec.StateKeys, k) {
			continue
		}
		if near, ok := mspec.DidYouMean(k, mspec.StateKeys); ok && near == key {
			return true
		}
	}
	return false
}

// schemaPos returns where, in state st's inline `schema:`, the place a
// schema error names is written: the key for a keyword that is wrong, else
// the value.
func (n *specNodes) schemaPos(st *mspec.State, e *replyschema.PathError) (mspec.Pos, int, bool) {
	node := mapValue(n.with[st.Name], "schema")
	var key *yaml.Node
	for _, seg := range e.Path {
		switch {
		case node == nil:
			return mspec.Pos{}, 0, false
		case node.Kind == yaml.MappingNode:
			key = nil
			for i := 0; i+1 < len(node.Content); i += 2 {
				if node.Content[i].Value == seg {
					key = node.Content[i]
					node = node.Content[i+1]
					break
				}
			}
			if key == nil {
				return mspec.Pos{}, 0, false
			}
		case node.Kind == yaml.SequenceNode:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(node.Content) {
				return mspec.Pos{}, 0, false
			}
			key, node = nil, node.Content[i]
		default:
			return mspec.Pos{}, 0, false
		}
	}
	if node == nil {
		return mspec.Pos{}, 0, false
	}
	if e.AtKey && key != nil {
		return nodePos(key), nodeSpan(key), true
	}
	return nodePos(node), nodeSpan(node), true
}

// mapValue returns the value of key in mapping node m, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// entry is one key of a map parameter with the positions of key and value.
type entry struct {
	Key   string
	Value any
	KPos  mspec.Pos
	VPos  mspec.Pos
	VSpan int
	// Quoted tells that the value is written in quotes, so an expression in
	// it starts one column further.
	Quoted bool
}

// entries returns the keys of state st's map parameter param, in file
// order, with their positions (the parameter's own position when the source
// cannot be read).
func (n *specNodes) entries(st *mspec.State, param string) []entry {
	p := findParam(st, param)
	if p == nil {
		return nil
	}
	m, _ := p.Value.(map[string]any)
	node := mapValue(n.with[st.Name], param)
	var out []entry
	if node != nil && node.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(node.Content); i += 2 {
			k, v := node.Content[i], node.Content[i+1]
			val, ok := m[k.Value]
			if !ok {
				continue
			}
			out = append(out, entry{Key: k.Value, Value: val, KPos: nodePos(k), VPos: nodePos(v), VSpan: nodeSpan(v),
				Quoted: v.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0})
		}
		return out
	}
	for _, k := range sortedKeys(m) {
		out = append(out, entry{Key: k, Value: m[k], KPos: p.VPos, VPos: p.VPos, VSpan: 1})
	}
	return out
}

// valuePos returns the position and span of a parameter's value.
func (n *specNodes) valuePos(st *mspec.State, p *mspec.Param) (mspec.Pos, int) {
	if v := mapValue(n.with[st.Name], p.Name); v != nil {
		return nodePos(v), nodeSpan(v)
	}
	return p.VPos, 1
}

func nodePos(n *yaml.Node) mspec.Pos { return mspec.Pos{Line: n.Line, Col: n.Column} }

func nodeSpan(n *yaml.Node) int {
	if n.Kind == yaml.ScalarNode && n.Value != "" {
		if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
			return len(n.Value) + 2
		}
		return len(n.Value)
	}
	return 1
}

// findParam returns the state's `with:` parameter name, or nil.
func findParam(st *mspec.State, name string) *mspec.Param {
	for _, p := range st.With {
		if p.Name == name {
			return p
		}
	}
	return nil
}
