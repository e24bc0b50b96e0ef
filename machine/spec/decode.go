package spec

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lppctl/lppctl/machine/spec/yamlsrc"
	"gopkg.in/yaml.v3"
)

// Load reads and decodes the spec file at path. The returned diagnostics hold
// every decoding problem found; the error is only for a file that cannot be read.
// Call Validate for the semantic checks.
func Load(path string) (*Spec, Diagnostics, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read spec: %w", err)
	}
	spec, diags := Parse(path, src)
	return spec, diags, nil
}

// Parse decodes a spec from src; file names it in diagnostics. It never panics:
// whatever it cannot decode becomes a diagnostic, and the returned spec holds
// what could be decoded (it is nil only when src is not a YAML mapping).
func Parse(file string, src []byte) (spec *Spec, diags Diagnostics) {
	d := &decoder{file: file}
	defer func() {
		if r := recover(); r != nil { // yaml.v3 has panicked on hostile input before; never let it out
			d.errorf(Pos{}, 0, "cannot decode spec: %v", r)
			spec, diags = nil, d.diags
		}
	}()
	if p, what, ok := badText(src); !ok {
		d.errorf(p, 1, "%s", what)
		switch {
		case bytes.HasPrefix(src, []byte{0xff, 0xfe}) || bytes.HasPrefix(src, []byte{0xfe, 0xff}):
			d.hintLast("the file is UTF-16: save it as UTF-8")
		case strings.HasPrefix(what, "the spec is not UTF-8"):
			d.hintLast("save the file as UTF-8")
		default:
			d.hintLast("remove it; write it in a double-quoted string as an escape (\\t, \\u0007) if it is meant")
		}
		return nil, d.diags
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&doc); err != nil {
		if err.Error() == "EOF" {
			d.errorf(Pos{Line: 1, Col: 1}, 0, "the spec is empty")
			d.hintLast("start with `lpp: 1`, a `name`, `initial` and `states`")
			return nil, d.diags
		}
		d.yamlError(err, src)
		return nil, d.diags
	}
	var more yaml.Node
	if err := dec.Decode(&more); err == nil && len(more.Content) > 0 && more.Content[0].Tag != "!!null" {
		p := documentStart(src, more.Content[0].Line)
		d.errorf(p, 3, "the file holds more than one YAML document: a spec is one document")
		d.hintLast("remove this `---` and what follows it, or put each spec in a file of its own")
	} else if err != nil && err != io.EOF {
		d.yamlError(err, src)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		d.errorf(pos(root), 0, "the spec must be a mapping of keys (lpp, name, context, initial, states, ...), not %s", kindName(root))
		return nil, d.diags
	}
	d.customTags(root, "", false)
	spec = &Spec{File: file, Source: src}
	d.spec(root, spec)
	spec.index()
	return spec, d.diags
}

// badText finds the first thing in src that YAML cannot read as text: a
// byte that is not UTF-8, or a control character (C0 but tab, LF and CR;
// DEL; C1 but NEL). It returns its position (lines counted as YAML counts
// them) and a description; ok is true when there is none.
func badText(src []byte) (p Pos, what string, ok bool) {
	p = Pos{Line: 1, Col: 1}
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return p, fmt.Sprintf("the spec is not UTF-8 text: invalid byte 0x%02x", src[i]), false
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f || r >= 0x80 && r < 0xa0 && r != 0x85:
			return p, fmt.Sprintf("the spec holds a control character (U+%04X), which YAML does not allow", r), false
		}
		switch {
		case r == '\r' && i+1 < len(src) && src[i+1] == '\n':
			p.Col++ // the LF ends the line
		case r == '\n' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029:
			p.Line++
			p.Col = 1
		default:
			p.Col++
		}
		i += size
	}
	return p, "", true
}

// documentStart returns the position of the `---` that starts the document
// whose first node is on line (the line itself when there is none).
func documentStart(src []byte, line int) Pos {
	for l := line; l >= 1; l-- {
		if t := SourceLine(src, l); t == "---" || strings.HasPrefix(t, "--- ") || strings.HasPrefix(t, "---\t") {
			return Pos{Line: l, Col: 1}
		}
	}
	return Pos{Line: line, Col: 1}
}

type decoder struct {
	file  string
	diags Diagnostics
	nodes int // value nodes decoded through aliases so far (see maxValueNodes)
}

func (d *decoder) errorf(p Pos, span int, format string, args ...any) {
	d.diags = append(d.diags, Diagnostic{Severity: SevError, File: d.file, Pos: p, Span: span, Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) hintLast(h string) {
	if h != "" && len(d.diags) > 0 {
		d.diags[len(d.diags)-1].Hint = h
	}
}

// yamlError reports a YAML syntax error where the mistake is (yamlsrc.Diagnose).
func (d *decoder) yamlError(err error, src []byte) {
	f := yamlsrc.Diagnose(err, src)
	d.errorf(Pos{Line: f.Line, Col: f.Col}, f.Span, "%s", f.Msg)
	d.hintLast(f.Hint)
}

func pos(n *yaml.Node) Pos { return Pos{Line: n.Line, Col: n.Column} }

func span(n *yaml.Node) int {
	if n.Kind == yaml.ScalarNode {
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			return utf8.RuneCountInString(n.Value) + 2
		}
		if !strings.Contains(n.Value, "\n") {
			return utf8.RuneCountInString(n.Value)
		}
	}
	return 1
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return fmt.Sprintf("%q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "an empty document"
}

// customTags reports the YAML tags of n and its children that are not
// YAML's own (`!foo`, `!000`): a spec has no use for them, and yaml.v3
// keeps their values as written, so `initial: !x` would name the state "".
// key is the mapping key n is the value of, and inSet tells that n is a
// value of a set: mapping.
func (d *decoder) customTags(n *yaml.Node, key string, inSet bool) {
	if n.Tag != "" && strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") && n.Kind != yaml.AliasNode {
		d.errorf(pos(n), len(n.Tag), "YAML tag %q is not supported", n.Tag)
		d.hintLast("remove it: a spec uses plain YAML values")
		if n.Kind == yaml.ScalarNode && n.Value == "" && IdentRE.MatchString(n.Tag[1:]) && (key == "when" || key == "expr" || inSet) {
			// `when: !done` is expr's not, which YAML reads as a tag
			d.hintLast(fmt.Sprintf("quote an expression that starts with ! (%s: '%s'), or write not (%s: not %s): YAML reads a leading ! as a tag", key, n.Tag, key, n.Tag[1:]))
			n.Tag, n.Value = "!!str", n.Tag // read on as the expression meant, not as "" (reported once)
		}
	}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 1 {
			d.customTags(c, n.Content[i-1].Value, key == "set")
			continue
		}
		d.customTags(c, "", false)
	}
}

// badKey reports a mapping key that cannot name anything: a YAML merge key
// (`<<: *anchor`) or a key that is not a scalar. It returns true when k was
// reported (the caller skips the entry).
func (d *decoder) badKey(k *yaml.Node, what string) bool {
	if k.Kind == yaml.AliasNode && k.Alias != nil && k.Alias.Kind == yaml.ScalarNode {
		// An alias of a name stands for the name, where the alias is written.
		line, col := k.Line, k.Column
		*k = *k.Alias
		k.Line, k.Column, k.Anchor = line, col, ""
	}
	switch {
	case k.Kind == yaml.ScalarNode && (k.Tag == "!!merge" || k.Value == "<<" && k.Style == 0):
		d.errorf(pos(k), 2, "YAML merge keys (<<) are not supported in %s", what)
		d.hintLast("write the keys out; an alias (*name) may stand for a whole value, not for keys")
		return true
	case k.Kind != yaml.ScalarNode:
		d.errorf(pos(k), span(k), "a key of %s must be a name, not %s", what, kindName(k))
		return true
	}
	return false
}

// field is one key of a mapping being decoded.
type field struct {
	key *yaml.Node
	val *yaml.Node
}

// fields walks a mapping node, reporting duplicate and unknown keys (with a
// "did you mean"), and returns the known ones by name.
func (d *decoder) fields(n *yaml.Node, what string, known ...string) map[string]field {
	out := make(map[string]field, len(n.Content)/2)
	var dups []*yaml.Node // the keys given again
	at := 0               // where in d.diags the first one's error goes
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if d.badKey(k, what) {
			continue
		}
		name := k.Value
		if _, dup := out[name]; dup {
			if len(dups) == 0 {
				at = len(d.diags)
			}
			dups = append(dups, k)
			continue
		}
		if !Contains(known, name) {
			if key, fixed, ok := ColonLeftOut(name, v.Value, known); ok && v.Kind == yaml.ScalarNode {
				d.errorf(pos(k), len([]rune(key))+1, "unknown key %q in %s: a colon is missing after %q", name, what, key)
				d.hintLast("write `" + fixed + "`")
				continue
			}
			d.errorf(pos(k), span(k), "unknown key %q in %s", name, what)
			if h := didYouMean(name, known); h != "" {
				d.hintLast(h)
			} else {
				d.hintLast("known keys: " + strings.Join(known, ", "))
			}
			continue
		}
		out[name] = field{key: k, val: v}
	}
	if len(dups) > 0 {
		d.diags = slices.Insert(d.diags, at, duplicateKeys(d.file, what, dups, n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle == 0))
	}
	return out
}

// duplicateKeys is the one error for the keys of a mapping given again:
// several of them in a block mapping are most often a second item of a
// list whose first line (`- to: ...`) was lost, so that its keys joined
// the item above.
func duplicateKeys(file, what string, dups []*yaml.Node, block bool) Diagnostic {
	k := dups[0]
	d := Diagnostic{Severity: SevError, File: file, Pos: pos(k), Span: span(k),
		Msg: fmt.Sprintf("duplicate key %q in %s", k.Value, what), Hint: "remove one of them"}
	if len(dups) == 1 {
		return d
	}
	names := make([]string, len(dups))
	for i, k := range dups {
		names[i] = strconv.Quote(k.Value)
	}
	list := strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	d.Msg = fmt.Sprintf("duplicate keys %s in %s: from line %d, keys given above are given again", list, what, k.Line)
	d.Hint = "remove one of each"
	if block {
		d.Hint = fmt.Sprintf("if they are another item's, its first line (a `- ` line, such as `- to: ...`) is missing before line %d; else remove one of each", k.Line)
	}
	return d
}

func Contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// mappingExamples show how the top-level mappings and a state's with and
// set are written, for one that is not a mapping.
var mappingExamples = map[string]string{
	"context":    "name each variable with its type: `context: {retries: int, verdict: {type: string, default: \"\"}}`",
	"states":     "name each state: `states: {work: {do: noop, next: done}, done: {final: true}}`",
	"events":     "name each event: `events: {CANCEL: {from: \"*\", to: failed}}`",
	"limits":     "e.g. `limits: {max_transitions: 100}`",
	"with":       "name each parameter: `with: {message: hello}`",
	"set":        "name each variable with its expression: `set: {retries: retries + 1}`",
	"invariants": "name each invariant: `invariants: {few_retries: retries <= 3}` (final_requires: takes a list, invariants: does not)",
}

func (d *decoder) wantMapping(n *yaml.Node, what string) bool {
	if n.Kind == yaml.MappingNode {
		return true
	}
	d.errorf(pos(n), span(n), "%s must be a mapping, not %s", what, kindName(n))
	if n.Kind == yaml.AliasNode {
		d.hintLast(fmt.Sprintf("write %s out: an alias (*%s) may stand for a name or a value inside it, not for all of it", what, n.Value))
	} else if m := plainPairRE.FindStringSubmatch(n.Value); m != nil && n.Kind == yaml.ScalarNode && n.Style == 0 {
		d.hintLast(fmt.Sprintf("a colon is missing after %q? write `%s: %s`", m[1], m[1], m[2]))
	} else if h, ok := mappingExamples[what]; ok {
		d.hintLast(h)
	}
	return false
}

func (d *decoder) str(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		d.errorf(pos(n), span(n), "%s must be a string, not %s", what, kindName(n))
		return "", false
	}
	return n.Value, true
}

// exprText reads an expression: any scalar, taken as source text.
func (d *decoder) exprText(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		d.errorf(pos(n), span(n), "%s must be an expression (a string), not %s", what, kindName(n))
		d.hintLast(`write the expression as text, e.g. retries + 1 or '"PASS"'`)
		return "", false
	}
	if strings.TrimSpace(n.Value) == "" {
		d.errorf(pos(n), 1, "%s is empty", what)
		return "", false
	}
	return n.Value, true
}

var LimitKeys = []string{"max_transitions"}

var TopKeys = []string{"lpp", "name", "description", "context", "initial", "states", "events", "extra_payload_fields", "guard_errors", "limits", "invariants"}

func (d *decoder) spec(n *yaml.Node, s *Spec) {
	f := d.fields(n, "the spec", TopKeys...)
	if v, ok := f["lpp"]; ok {
		s.VersionPos = pos(v.val)
		ver, err := strconv.Atoi(v.val.Value)
		switch {
		case v.val.Kind != yaml.ScalarNode || v.val.Tag != "!!int" || err != nil:
			d.errorf(pos(v.val), span(v.val), "lpp must be the format version number, not %s", kindName(v.val))
			d.hintLast(fmt.Sprintf("write `lpp: %d`", FormatVersion))
		case ver != FormatVersion:
			d.errorf(pos(v.val), span(v.val), "unsupported spec format version %d", ver)
			d.hintLast(fmt.Sprintf("this lppctl reads version %d", FormatVersion))
		default:
			s.Version = ver
		}
	} else {
		d.errorf(pos(n), 1, "missing key \"lpp\" (the spec format version)")
		d.hintLast(fmt.Sprintf("add `lpp: %d` at the top", FormatVersion))
	}
	if v, ok := f["name"]; ok {
		s.Name, _ = d.str(v.val, "name")
		s.NamePos = pos(v.val)
	}
	if v, ok := f["description"]; ok {
		s.Description, _ = d.str(v.val, "description")
	}
	if v, ok := f["context"]; ok && v.val.Tag != "!!null" {
		if d.wantMapping(v.val, "context") {
			d.context(v.val, s)
		}
	}
	if v, ok := f["initial"]; ok {
		s.Initial, _ = d.str(v.val, "initial")
		s.InitialPos = pos(v.val)
	} else {
		s.InitialPos = pos(n)
	}
	if v, ok := f["states"]; ok {
		if d.wantMapping(v.val, "states") {
			d.states(v.val, s)
		}
	} else {
		d.errorf(pos(n), 1, "missing key \"states\"")
		d.hintLast("a spec needs at least one state and one final state")
	}
	if v, ok := f["events"]; ok && v.val.Tag != "!!null" {
		if d.wantMapping(v.val, "events") {
			d.events(v.val, s)
		}
	}
	if v, ok := f["extra_payload_fields"]; ok {
		d.extraPayload(v.val, s)
	}
	if v, ok := f["guard_errors"]; ok {
		d.guardErrors(v.val, s)
	}
	if v, ok := f["limits"]; ok {
		if d.wantMapping(v.val, "limits") {
			lf := d.fields(v.val, "limits", LimitKeys...)
			if m, ok := lf["max_transitions"]; ok {
				n, err := strconv.Atoi(m.val.Value)
				if m.val.Kind != yaml.ScalarNode || m.val.Tag != "!!int" || err != nil || n <= 0 {
					d.errorf(pos(m.val), span(m.val), "max_transitions must be a positive integer, not %s", kindName(m.val))
				} else {
					s.Limits.MaxTransitions = n
					s.Limits.Pos = pos(m.val)
				}
			}
		}
	}
	if v, ok := f["invariants"]; ok {
		s.Invariants = d.invariants(v.val)
	}
}

var IdentRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func QuoteList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// NodePos is where the YAML node n starts (for the validator, which reads
// positions of nodes the decoder kept).
func NodePos(n *yaml.Node) Pos { return pos(n) }
