package validate

import (
	mspec "github.com/lppctl/lppctl/machine/spec"
	"gopkg.in/yaml.v3"
)

// writePos finds where state st's parameters name the variable an action
// writes: a parameter whose value is the name (`result: ticket`), else a key
// of a map parameter (`output: {ticket: text}`, `map: {ticket: /t}`). It
// returns the state's `do:` when no parameter names it (an action that
// always writes it), so the error stays on the state.
func (v *validator) writePos(st *mspec.State, name string) (mspec.Pos, int) {
	for _, p := range st.With {
		if s, ok := p.Value.(string); ok && s == name {
			return p.VPos, valueSpan(v.spec.Source, p.VPos)
		}
	}
	for _, p := range st.With {
		m, ok := p.Value.(map[string]any)
		if !ok {
			continue
		}
		if _, ok := m[name]; !ok {
			continue
		}
		if k := v.withKeyNode(st.Name, p.Name, name); k != nil {
			return mspec.NodePos(k), len(name)
		}
		return p.VPos, 1
	}
	return st.DoPos, len(st.Do)
}

// withKeyNode returns the key node `key` of the map parameter param of
// state's with:, or nil when the source does not give it (an alias, text
// that does not parse).
func (v *validator) withKeyNode(state, param, key string) *yaml.Node {
	if v.srcRoot == nil {
		var doc yaml.Node
		if yaml.Unmarshal(v.spec.Source, &doc) != nil || len(doc.Content) == 0 {
			doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
		}
		v.srcRoot = doc.Content[0]
	}
	m := mappingValue(mappingValue(mappingValue(mappingValue(v.srcRoot, "states"), state), "with"), param)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i]
		}
	}
	return nil
}

// mappingValue returns the value of key in the mapping m, or nil.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
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
