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

// ListedAsSpec tells a spec from the other YAML files of a folder of specs
// (a demo.yaml of scripted replies, a gateway policy), as lppctl validate
// DIR and the UI's Specs page list them: a mapping with states: or lpp:,
// an empty file, or one that does not parse as YAML (validating it
// reports why). YAML's line breaks are \n, \r\n and a lone \r alike.
func ListedAsSpec(src []byte) bool {
	var top map[string]yaml.Node
	if err := yaml.Unmarshal(src, &top); err != nil {
		return true
	}
	_, states := top["states"]
	_, lpp := top["lpp"]
	return states || lpp || len(top) == 0
}
