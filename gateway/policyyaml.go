package gateway

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// decodePolicy decodes a policy file strictly. It returns the raw policy and
// its YAML tree (for positions), or a message naming where the file went
// wrong ("p.yaml:3:1: ...") when it is not one YAML mapping of known keys.
func decodePolicy(data []byte, name string) (*rawPolicy, *yaml.Node, string) {
	if line, col, c, ok := controlChar(data); ok {
		// yaml.v3 says only "control characters are not allowed", nowhere.
		return nil, nil, fmt.Sprintf("%s:%d:%d: the control character %U is not allowed in YAML; remove it", name, line, col, c)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			// Comments and blank lines only: nothing that is a policy.
			return nil, nil, "the file is empty (it holds only comments)"
		}
		return nil, nil, yamlMessage(name, data, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, nil, "more than one YAML document"
	}
	if len(doc.Content) == 1 {
		if top := doc.Content[0]; top.Kind != yaml.MappingNode && !(top.Kind == yaml.ScalarNode && top.Tag == "!!null") {
			return nil, nil, fmt.Sprintf("%s:%d:%d: the policy must be a mapping of keys (version: 1, safe_cli_executor: ..., safe_py_runner: ...), not %s", name, top.Line, top.Column, nodeKind(top))
		}
	}
	if msg := nullEntry(&doc, "", name); msg != "" {
		return nil, nil, msg
	}
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	var raw rawPolicy
	if err := strict.Decode(&raw); err != nil {
		return nil, nil, yamlMessage(name, data, err)
	}
	return &raw, &doc, ""
}

// controlChar finds the first ASCII control character YAML does not allow
// (all but tab, line feed and carriage return; DEL too) and its place.
func controlChar(data []byte) (line, col int, c rune, ok bool) {
	line, col = 1, 1
	for _, b := range data {
		switch {
		case b == '\n':
			line, col = line+1, 1
			continue
		case b < 0x20 && b != '\t' && b != '\r' || b == 0x7f:
			return line, col, rune(b), true
		}
		if b < 0x80 || b >= 0xc0 {
			col++ // a rune starts here
		}
	}
	return 0, 0, 0, false
}

// nullEntry finds a list entry that is null ("-" with nothing after it, or
// "~"), which yaml.v3 would drop from a list of strings without a word (a
// protected path lost), and names where it is; "" when there is none.
func nullEntry(n *yaml.Node, key, name string) string {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if m := nullEntry(c, key, name); m != "" {
				return m
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if key != "" {
				k = key + "." + k
			}
			if m := nullEntry(n.Content[i+1], k, name); m != "" {
				return m
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if c.Kind == yaml.ScalarNode && c.Tag == "!!null" {
				return fmt.Sprintf("%s:%d:%d: %s[%d]: an empty list entry (null: a \"-\" with nothing after it, or \"~\"); write the value, or remove the entry", name, c.Line, c.Column, key, i)
			}
			if m := nullEntry(c, fmt.Sprintf("%s[%d]", key, i), name); m != "" {
				return m
			}
		}
	}
	return ""
}

// nodeKind names what a YAML node is, for messages.
func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.Tag {
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "true or false"
	case "!!null":
		return "null"
	}
	return "a string"
}

// rawSections names the policy section each raw type decodes, for messages.
var rawSections = map[string]string{
	"rawPolicy":     "the policy",
	"rawLimits":     "limits",
	"rawBlocked":    "a blocked pattern",
	"rawCLI":        "safe_cli_executor",
	"rawSubCommand": "a sub-command",
	"rawParam":      "a parameter",
	"rawRunner":     "safe_py_runner",
	"rawEnv":        "safe_py_runner.env",
}

var (
	unknownFieldRE = regexp.MustCompile(`field (\S+) not found in type gateway\.(\w+)`)
	rawTypeRE      = regexp.MustCompile(`cannot unmarshal !!(\w+)(?: .*?)? into gateway\.(\w+)$`)
	lineRE         = regexp.MustCompile(`^line (\d+): `)
	scalarTypeRE   = regexp.MustCompile("cannot unmarshal !!(\\w+)(?: `(.*)`)? into ([\\w.\\[\\]]+)$")
	wholeDigits    = regexp.MustCompile(`^[-+]?[0-9]+(\.\.\.)?$`) // yaml.v3 cuts long values to "9999999..."
	goKinds        = map[string]string{"int": "a whole number", "int64": "a whole number", "uint64": "a whole number", "float64": "a number", "bool": "true or false", "string": "a string", "[]string": "a list", "map[string]string": "a mapping"}
	yamlKinds      = map[string]string{"seq": "a list", "str": "a string", "int": "a number", "float": "a number", "bool": "true or false", "null": "null", "map": "a mapping"}
)

// yamlMessage rewrites yaml.v3's decoding errors for people: no "yaml:"
// prefix, "p.yaml:3: " instead of "line 3: ", a tab in an indentation shown
// where it is, and sections named by their policy key instead of Go type.
func yamlMessage(name string, data []byte, err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs := make([]string, len(te.Errors))
		for i, m := range te.Errors {
			msgs[i] = atLine(name, sectionNames(m))
		}
		if len(msgs) == 1 {
			return msgs[0]
		}
		return fmt.Sprintf("%d problems:\n  %s", len(msgs), strings.Join(msgs, "\n  "))
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	only := 0 // the line yaml.v3 names, if any
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		fmt.Sscan(m[1], &only)
	}
	if line, col, ok := indentTab(data, only); ok {
		return fmt.Sprintf("%s:%d:%d: a tab in the indentation; YAML indents with spaces only (%s)", name, line, col, strings.TrimPrefix(msg, lineRE.FindString(msg)))
	}
	return atLine(name, msg)
}

// atLine turns yaml.v3's "line 3: msg" into "p.yaml:3: msg".
func atLine(name, msg string) string {
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		return name + ":" + m[1] + ": " + msg[len(m[0]):]
	}
	return msg
}

// sectionNames names policy sections instead of Go types in one message.
func sectionNames(msg string) string {
	msg = unknownFieldRE.ReplaceAllStringFunc(msg, func(m string) string {
		sub := unknownFieldRE.FindStringSubmatch(m)
		return fmt.Sprintf("unknown key %q in %s", sub[1], section(sub[2]))
	})
	if sub := scalarTypeRE.FindStringSubmatch(msg); sub != nil && !strings.HasPrefix(sub[3], "gateway.") {
		want, ok := goKinds[sub[3]]
		if !ok {
			want = "another kind of value"
		}
		kind, ok := yamlKinds[sub[1]]
		if !ok {
			kind = "!!" + sub[1]
		}
		what := "the value"
		if sub[2] != "" {
			what = sub[2]
		}
		if want == "a whole number" && (sub[1] == "int" || sub[1] == "float") && wholeDigits.MatchString(sub[2]) {
			// A whole number all the same, but too large for the key (yaml.v3
			// shows only its first digits).
			return msg[:len(msg)-len(sub[0])] + fmt.Sprintf("%s is too large a number for this key; give a smaller whole number", what)
		}
		return msg[:len(msg)-len(sub[0])] + fmt.Sprintf("%s is %s, where %s belongs", what, kind, want)
	}
	return rawTypeRE.ReplaceAllStringFunc(msg, func(m string) string {
		sub := rawTypeRE.FindStringSubmatch(m)
		kind, ok := yamlKinds[sub[1]]
		if !ok {
			kind = "!!" + sub[1]
		}
		return fmt.Sprintf("%s must be a mapping of keys, not %s", section(sub[2]), kind)
	})
}

func section(goType string) string {
	if s, ok := rawSections[goType]; ok {
		return s
	}
	return "the policy"
}

// indentTab finds the first tab among a line's leading blanks (1-based),
// on line only when it is not 0.
func indentTab(data []byte, only int) (line, col int, ok bool) {
	for i, l := range strings.Split(string(data), "\n") {
		if only != 0 && i+1 != only {
			continue
		}
		for j := 0; j < len(l) && (l[j] == ' ' || l[j] == '\t'); j++ {
			if l[j] == '\t' {
				return i + 1, j + 1, true
			}
		}
	}
	return 0, 0, false
}

// positioned prefixes a policy problem ("safe_py_runner.script_dirs[1]: ...")
// with where its field is in the file ("p.yaml:40:7: "), when it is there
// (a default filled in, or a missing key, has no place).
func positioned(name string, doc *yaml.Node, problem string) string {
	field, _, ok := strings.Cut(problem, ": ")
	if !ok || doc == nil || len(doc.Content) != 1 {
		return problem
	}
	if n := locate(doc.Content[0], field); n != nil {
		return fmt.Sprintf("%s:%d:%d: %s", name, n.Line, n.Column, problem)
	}
	return problem
}

var indexRE = regexp.MustCompile(`^\[(\d+)\]`)

// locate finds the node a problem's field names: keys joined by "." (a key
// may itself hold dots or slashes: the longest matching key wins) and list
// indexes as "[i]". It returns nil when the field is not in the file.
func locate(n *yaml.Node, field string) *yaml.Node {
	for field != "" {
		switch n.Kind {
		case yaml.MappingNode:
			var best *yaml.Node
			bestLen := -1
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				if len(k) > bestLen && strings.HasPrefix(field, k) && (len(field) == len(k) || field[len(k)] == '.' || field[len(k)] == '[') {
					best, bestLen = n.Content[i+1], len(k)
					if len(field) == len(k) {
						best = n.Content[i] // the key itself: where a reader looks
					}
				}
			}
			if best == nil {
				return nil
			}
			n, field = best, strings.TrimPrefix(field[bestLen:], ".")
		case yaml.SequenceNode:
			m := indexRE.FindStringSubmatch(field)
			if m == nil {
				return nil
			}
			var i int
			fmt.Sscan(m[1], &i)
			if i >= len(n.Content) {
				return nil
			}
			n, field = n.Content[i], strings.TrimPrefix(field[len(m[0]):], ".")
		default:
			return nil
		}
	}
	return n
}
