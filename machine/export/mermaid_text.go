package export

import mspec "github.com/lppctl/lppctl/machine/spec"

// MermaidText escapes text for a Mermaid stateDiagram-v2 edge label, as the
// spec diagrams do (other packages that draw state diagrams use it).
func MermaidText(s string) string { return mermaidText(s) }

// MermaidID reports whether name can be a state diagram id as it is (an
// identifier, not a Mermaid keyword, unchanged by Markdown, not too long).
func MermaidID(name string) bool {
	return !mermaidReserved[toLowerASCII(name)] && mspec.IdentRE.MatchString(name) && len(name) <= maxIDLen && markdownEscape(name) == name
}

func toLowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
