package spec

import "gopkg.in/yaml.v3"

// LooksLikeSpec reports whether src is a spec of ours: a YAML mapping with
// a states key. A file a spec names as a child spec that is not (a key, a
// token, any other file) is refused without any diagnostic that could
// quote its content.
func LooksLikeSpec(src []byte) bool {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil || len(doc.Content) != 1 {
		return false
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "states" {
			return true
		}
	}
	return false
}
