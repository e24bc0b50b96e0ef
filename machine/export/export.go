package export

import (
	"bytes"
	"errors"
	"fmt"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrUnknownFormat is wrapped by Export's error for a format it does not know.
var ErrUnknownFormat = errors.New("unknown export format")

// ExportFormats lists the formats Export writes, the default first.
var ExportFormats = []string{"mermaid", "mermaid-flowchart", "dot"}

// ExportOptions tune a diagram.
type ExportOptions struct {
	// Path is the states a run went through, in order (e.g. read from its
	// journal). Its states are highlighted, and so is, for each consecutive
	// pair, the transition between them (in formats that can style edges).
	Path []string
	// ShowSet adds each transition's `set:` to its edge label.
	ShowSet bool
}

// Guards and notes longer than these are shortened on diagrams.
const (
	maxGuardLen  = 64
	maxAssignLen = 30
	maxNoteLen   = 60
	maxNameLen   = 64 // state and event names (Mermaid formats; DOT keeps them whole)
)

// Export draws the spec as a diagram: "mermaid" (a Mermaid stateDiagram-v2
// with guards on the edge labels, `a --> b : [guard]`), "mermaid-flowchart"
// (a Mermaid flowchart) or "dot" (Graphviz). The output depends only on the
// spec and opts, so diagrams never disagree with what runs. Export never
// fails on a spec Parse returned, valid or not; it fails only for an unknown
// format (wrapping ErrUnknownFormat) or a nil spec.
func Export(spec *mspec.Spec, format string, opts ExportOptions) ([]byte, error) {
	if spec == nil {
		return nil, errors.New("cannot export: no spec")
	}
	g := newDiagram(spec, opts)
	switch format {
	case "mermaid", "":
		return g.mermaidState(), nil
	case "mermaid-flowchart":
		return g.mermaidFlowchart(), nil
	case "dot":
		return g.dot(), nil
	}
	return nil, fmt.Errorf("cannot export: %w %q (formats: %s)", ErrUnknownFormat, format, strings.Join(ExportFormats, ", "))
}

type edgeKind int

const (
	edgeNext edgeKind = iota
	edgeError
	edgeEvent
)

// dedge is one edge of a diagram.
type dedge struct {
	from, to string
	kind     edgeKind
	label    string // plain text, not yet escaped
	taken    bool   // on the highlighted path
}

// anyEvent is an event that applies from every non-final state; diagrams draw
// it once, as a note or a node, rather than as an edge from every state.
type anyEvent struct {
	ev    *mspec.Event
	label string
}

type diagram struct {
	spec    *mspec.Spec
	opts    ExportOptions
	edges   []*dedge
	anyEvs  []anyEvent
	visited map[string]bool
	errOnly map[string]bool // states entered only through on_error routes
}

func newDiagram(spec *mspec.Spec, opts ExportOptions) *diagram {
	g := &diagram{spec: spec, opts: opts, visited: map[string]bool{}, errOnly: map[string]bool{}}
	for _, st := range spec.States {
		for _, t := range st.Next {
			g.edges = append(g.edges, &dedge{from: st.Name, to: t.To, kind: edgeNext, label: g.transitionLabel(t.When, t.Set)})
		}
		if t := st.OnError; t != nil {
			label := "on_error"
			if sets := g.setLabel(t.Set); sets != "" {
				label += " / " + sets
			}
			g.edges = append(g.edges, &dedge{from: st.Name, to: t.To, kind: edgeError, label: label})
		}
		for _, on := range st.On {
			for _, t := range on.Transitions {
				label := shorten(on.Event, maxNameLen)
				if l := g.transitionLabel(t.When, t.Set); l != "" {
					label += " " + l
				}
				g.edges = append(g.edges, &dedge{from: st.Name, to: t.To, kind: edgeEvent, label: label})
			}
		}
	}
	for _, ev := range spec.Events {
		label := shorten(ev.Name, maxNameLen)
		if l := g.transitionLabel(ev.When, ev.Set); l != "" {
			label += " " + l
		}
		if len(ev.From) == 0 {
			g.anyEvs = append(g.anyEvs, anyEvent{ev: ev, label: label})
			continue
		}
		for _, from := range ev.From {
			g.edges = append(g.edges, &dedge{from: from, to: ev.To, kind: edgeEvent, label: label})
		}
	}
	// States reached only on error (never the initial state).
	in := map[string][2]int{} // [non-error, error] incoming edges
	for _, e := range g.edges {
		c := in[e.to]
		if e.kind == edgeError {
			c[1]++
		} else {
			c[0]++
		}
		in[e.to] = c
	}
	for _, ae := range g.anyEvs {
		c := in[ae.ev.To]
		c[0]++
		in[ae.ev.To] = c
	}
	for _, st := range spec.States {
		if c := in[st.Name]; c[1] > 0 && c[0] == 0 && st.Name != spec.Initial {
			g.errOnly[st.Name] = true
		}
	}
	// The highlighted path.
	for i, name := range opts.Path {
		g.visited[name] = true
		if i == 0 {
			continue
		}
		prev := opts.Path[i-1]
		var best *dedge
		for _, e := range g.edges {
			if e.from == prev && e.to == name && (best == nil || e.kind < best.kind) {
				best = e
			}
		}
		if best != nil {
			best.taken = true
		}
	}
	return g
}

// transitionLabel renders "[guard] / x = expr" (parts left out when empty).
func (g *diagram) transitionLabel(when string, set []*mspec.Assign) string {
	var parts []string
	if when != "" {
		parts = append(parts, "["+shortenExpr(when, maxGuardLen)+"]")
	}
	if sets := g.setLabel(set); sets != "" {
		parts = append(parts, "/ "+sets)
	}
	return strings.Join(parts, " ")
}

func (g *diagram) setLabel(set []*mspec.Assign) string {
	if !g.opts.ShowSet || len(set) == 0 {
		return ""
	}
	parts := make([]string, len(set))
	for i, a := range set {
		parts[i] = a.Var + " = " + shortenExpr(a.Expr, maxAssignLen)
	}
	return strings.Join(parts, ", ")
}

var spaceRE = regexp.MustCompile(`\s+`)

// shortenExpr puts an expression on one line and shortens it to at most max
// characters: long string literals become "...", then the tail is cut with "…".
func shortenExpr(s string, max int) string {
	s = strings.TrimSpace(spaceRE.ReplaceAllString(s, " "))
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return shorten(elideStrings(s, 12), max)
}

// elideStrings replaces the string literals of an expression longer than
// max characters (quotes included) with "...".
func elideStrings(s string, max int) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		q := s[i]
		if q != '"' && q != '\'' && q != '`' {
			b.WriteByte(q)
			continue
		}
		j := i + 1
		for j < len(s) && s[j] != q {
			if s[j] == '\\' && q != '`' {
				j++
			}
			j++
		}
		if j >= len(s) { // unterminated: keep the rest as it is
			b.WriteString(s[i:])
			break
		}
		if lit := s[i : j+1]; len(lit) > max {
			b.WriteString("...")
		} else {
			b.WriteString(lit)
		}
		i = j
	}
	return b.String()
}

// shorten cuts s to at most max characters, ending with "…" when cut.
func shorten(s string, max int) string {
	s = strings.TrimSpace(spaceRE.ReplaceAllString(s, " "))
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:max-1]), " ") + "…"
}

// mermaidReserved are words Mermaid's grammars treat specially; states with
// these names get another id (the name stays the label).
var mermaidReserved = map[string]bool{
	"end": true, "state": true, "note": true, "class": true, "classdef": true, "style": true,
	"default": true, "graph": true, "flowchart": true, "subgraph": true, "click": true,
	"direction": true, "linkstyle": true, "as": true, "hide": true, "scale": true, "fork": true,
	"join": true, "choice": true, "concurrent": true, "left": true, "right": true, "of": true,
	"call": true, "href": true, "callback": true, "accdescr": true, "acctitle": true,
	"statediagram": true, "root": true, "start": true, "stop": true, "td": true, "tb": true,
	"bt": true, "lr": true, "rl": true,
	// Members of JavaScript's Object.prototype: Mermaid keeps states in
	// plain objects, and a state with one of these ids breaks its layout.
	"__proto__": true, "constructor": true, "hasownproperty": true, "isprototypeof": true,
	"propertyisenumerable": true, "tolocalestring": true, "tostring": true, "valueof": true,
	"__definegetter__": true, "__definesetter__": true, "__lookupgetter__": true, "__lookupsetter__": true,
}

// maxIDLen bounds the ids of Mermaid diagrams: a state with a longer name
// gets a short id (the name stays its label), so that a diagram of long names
// stays under Mermaid's limit on a diagram's text (50000 characters).
const maxIDLen = 32

// mermaidIDs maps each state to a Mermaid id: its own name when safe, else
// "s_" + name (made unique), shortened when long.
func mermaidIDs(spec *mspec.Spec) map[string]string {
	ids := map[string]string{}
	taken := map[string]bool{}
	for _, st := range spec.States {
		taken[st.Name] = true
	}
	for _, st := range spec.States {
		// A name Markdown would change (__init__ is drawn as a bold "init")
		// gets an id and an escaped label too.
		if !mermaidReserved[strings.ToLower(st.Name)] && mspec.IdentRE.MatchString(st.Name) && len(st.Name) <= maxIDLen && markdownEscape(st.Name) == st.Name {
			ids[st.Name] = st.Name
			continue
		}
		ids[st.Name] = uniqueID("s_", st.Name, taken)
	}
	return ids
}

// flowchartIDs maps each state to a flowchart id: "n_" + name, shortened
// when long.
func flowchartIDs(spec *mspec.Spec) map[string]string {
	ids := map[string]string{}
	taken := map[string]bool{}
	for _, st := range spec.States {
		if id := "n_" + sanitizeID(st.Name); len(id) <= maxIDLen {
			ids[st.Name] = id
			taken[id] = true
		}
	}
	for _, st := range spec.States {
		if _, ok := ids[st.Name]; !ok {
			ids[st.Name] = uniqueID("n_", st.Name, taken)
		}
	}
	return ids
}

// uniqueID returns prefix + name, cut to maxIDLen, that taken does not hold
// (and takes it).
func uniqueID(prefix, name string, taken map[string]bool) string {
	id := prefix + sanitizeID(name)
	if len(id) > maxIDLen {
		base := id[:maxIDLen-4] + "_"
		id = base + "1"
		for n := 2; taken[id]; n++ {
			id = base + strconv.Itoa(n)
		}
	}
	for taken[id] {
		id += "_"
	}
	taken[id] = true
	return id
}

func sanitizeID(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf && mspec.IsIdentByte(byte(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// Mermaid label escaping. Labels stay as close to the spec's text as Mermaid
// allows, without Mermaid's entity codes (#quot; #59; ...), so the exported
// source reads like the spec and renders the same everywhere (those codes only
// decode when the page is served as UTF-8). The rules come from rendering
// every character class with the real renderer (TestExportedMermaidRendersInChromium):
//
//   - `;` ends a statement in a state diagram, so it becomes `；` (U+FF1B);
//     in a quoted flowchart label only `#word;` (an entity code) is broken up.
//   - `%%` starts a comment or an %%{init}%% directive anywhere: `% %`.
//   - `<` right before a letter, `/`, `!` or `?` looks like an HTML tag and is
//     stripped by the sanitizer: a space goes after it.
//   - a line holding `direction` then a space then TB, LR... is read as a
//     direction statement, whatever else is on it (the diagram comes out
//     empty): a zero-width space (U+200B) goes after `direction`.
//   - in a state diagram, labels, notes and state names are Markdown, and
//     Mermaid does not read its escapes the same way in every diagram (a
//     long or multi-line label is not Markdown; "\\\ " lost one more
//     backslash in a diagram rendered after another): so nothing is escaped
//     with a backslash; a `*` or `_` that could start or end emphasis (not
//     between two spaces, for `*`; not between two letters or digits, for
//     `_`) becomes `＊` or `＿` (U+FF0A, U+FF3F), so `__init__` and
//     `x*2 > y*3` are not drawn bold or italic, and a backslash becomes `＼`
//     (U+FF3C). `&` right before a letter or `#` would start an HTML entity,
//     which the browser decodes even without
//     its `;` (`&lt` is drawn `<`): a space goes after it. `::` is a
//     parse error: it becomes `:∶` (U+2236).
//   - inside a quoted flowchart label `"` `<` `>` `&` are HTML entities, a
//     backtick (a Markdown string) becomes `ˋ` (U+02CB), and the backslash of
//     `\n` (which Mermaid draws as a line break) becomes `＼` (U+FF3C).
//
// A node's self-loops are drawn as one edge with one label per line: Mermaid
// draws only the last label of several loops on one node.

var (
	tagStartRE    = regexp.MustCompile(`<([A-Za-z/!?])`)
	entityStartRE = regexp.MustCompile(`&([A-Za-z#])`)
	entityCodeRE  = regexp.MustCompile(`#(\w+);`)
	directionRE   = regexp.MustCompile(`direction(\s)`)
)

// mermaidCommon applies the rules shared by every Mermaid label.
func mermaidCommon(s string) string {
	s = strings.TrimSpace(spaceRE.ReplaceAllString(s, " "))
	for strings.Contains(s, "%%") {
		s = strings.ReplaceAll(s, "%%", "% %")
	}
	return directionRE.ReplaceAllString(s, "direction\u200b$1")
}

// mermaidText escapes text for a state diagram label, note or comment.
func mermaidText(s string) string {
	s = mermaidCommon(s)
	s = markdownEscape(s)
	s = strings.ReplaceAll(s, ";", "；")
	for strings.Contains(s, "::") {
		s = strings.ReplaceAll(s, "::", ":∶")
	}
	s = entityStartRE.ReplaceAllString(s, "& $1")
	return tagStartRE.ReplaceAllString(s, "< $1")
}

// markdownEscape escapes s for a state diagram's Markdown (see above).
func markdownEscape(s string) string {
	if !strings.ContainsAny(s, `\*_`) {
		return s
	}
	isSpace := func(i int) bool { return i < 0 || i >= len(s) || s[i] == ' ' }
	isAlnum := func(i int) bool {
		if i < 0 || i >= len(s) {
			return false
		}
		if c := s[i]; c >= utf8.RuneSelf {
			return true // a letter of another script, most likely
		}
		return mspec.IsIdentByte(s[i]) && s[i] != '_'
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString("＼")
			continue
		case c == '*' && !(isSpace(i-1) && isSpace(i+1)):
			b.WriteString("＊")
			continue
		case c == '_' && !(isAlnumRun(s, i, isAlnum)):
			b.WriteString("＿")
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// isAlnumRun reports whether the run of underscores around s[i] sits
// between two letters or digits (`max_retries`, `a__b`), where it cannot
// delimit emphasis.
func isAlnumRun(s string, i int, isAlnum func(int) bool) bool {
	j, k := i, i
	for j > 0 && s[j-1] == '_' {
		j--
	}
	for k+1 < len(s) && s[k+1] == '_' {
		k++
	}
	return isAlnum(j-1) && isAlnum(k+1)
}

// mermaidNote escapes text for a state diagram note, where a colon after the
// first one ends the parse: it becomes `∶` (U+2236).
func mermaidNote(s string) string { return strings.ReplaceAll(mermaidText(s), ":", "∶") }

// mermaidQuoted escapes text for a quoted flowchart label ("...").
func mermaidQuoted(s string) string {
	s = mermaidCommon(s)
	s = entityCodeRE.ReplaceAllString(s, "#$1；")
	s = strings.ReplaceAll(s, "&", "&amp;")
	s = strings.ReplaceAll(s, `"`, "&quot;")
	s = strings.ReplaceAll(s, "<", "&lt;")
	s = strings.ReplaceAll(s, ">", "&gt;")
	s = strings.ReplaceAll(s, `\n`, "＼n")
	return strings.ReplaceAll(s, "`", "ˋ")
}

// medge is an edge of a Mermaid diagram: a dedge, or a node's self-loops
// merged into one (Mermaid draws only the last label of several loops on one
// node).
type medge struct {
	from, to string
	kind     edgeKind
	labels   []string // plain text, not yet escaped; drawn one per line
	taken    bool
}

// mermaidEdges returns the edges to draw in a Mermaid diagram, in order: a
// node's self-loops become one edge where the first of them is.
func (g *diagram) mermaidEdges() []*medge {
	var out []*medge
	loops := map[string]*medge{}
	for _, e := range g.edges {
		if e.from == e.to {
			if m := loops[e.from]; m != nil {
				if e.label != "" {
					m.labels = append(m.labels, e.label)
				}
				m.taken = m.taken || e.taken
				continue
			}
		}
		m := &medge{from: e.from, to: e.to, kind: e.kind, taken: e.taken}
		if e.label != "" {
			m.labels = []string{e.label}
		}
		if e.from == e.to {
			loops[e.from] = m
		}
		out = append(out, m)
	}
	return out
}

// mermaidLabel escapes each label with esc and puts them one per line.
func mermaidLabel(labels []string, esc func(string) string) string {
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = esc(l)
	}
	return strings.Join(parts, "<br/>")
}

// mermaidState renders a Mermaid stateDiagram-v2.
func (g *diagram) mermaidState() []byte {
	spec := g.spec
	ids := mermaidIDs(spec)
	id := func(name string) string {
		if x, ok := ids[name]; ok {
			return x
		}
		return "s_" + sanitizeID(name) + "_undefined"
	}
	var b bytes.Buffer
	b.WriteString("stateDiagram-v2\n")
	if spec.Name != "" {
		fmt.Fprintf(&b, "    %%%% spec %s\n", mermaidText(shorten(spec.Name, 80)))
	}
	for _, st := range spec.States {
		if ids[st.Name] != st.Name {
			fmt.Fprintf(&b, "    state \"%s\" as %s\n", mermaidText(shorten(st.Name, maxNameLen)), ids[st.Name])
		}
	}
	if spec.Initial != "" {
		fmt.Fprintf(&b, "    [*] --> %s\n", id(spec.Initial))
	}
	for _, e := range g.mermaidEdges() {
		fmt.Fprintf(&b, "    %s --> %s", id(e.from), id(e.to))
		if len(e.labels) > 0 {
			fmt.Fprintf(&b, " : %s", mermaidLabel(e.labels, mermaidText))
		}
		b.WriteByte('\n')
	}
	for _, st := range spec.States {
		if st.Final {
			fmt.Fprintf(&b, "    %s --> [*]\n", id(st.Name))
		}
	}
	for _, st := range spec.States {
		if st.Note != "" {
			fmt.Fprintf(&b, "    note right of %s : %s\n", id(st.Name), mermaidNote(shorten(st.Note, maxNoteLen)))
		}
	}
	for _, ae := range g.anyEvs {
		if spec.State(ae.ev.To) == nil {
			continue
		}
		fmt.Fprintf(&b, "    note left of %s : %s\n", id(ae.ev.To), mermaidNote("event "+ae.label+" from any state"))
	}
	g.mermaidClasses(&b, id)
	return b.Bytes()
}

// mermaidClasses writes the classDefs and class assignments shared by both Mermaid formats.
func (g *diagram) mermaidClasses(b *bytes.Buffer, id func(string) string) {
	var errOnly, visited []string
	for _, st := range g.spec.States {
		if g.errOnly[st.Name] {
			errOnly = append(errOnly, id(st.Name))
		}
		if g.visited[st.Name] {
			visited = append(visited, id(st.Name))
		}
	}
	if len(errOnly) > 0 {
		b.WriteString("    classDef errorRoute fill:#fdecea,stroke:#c0392b,color:#7b241c\n")
		fmt.Fprintf(b, "    class %s errorRoute\n", strings.Join(errOnly, ","))
	}
	if len(visited) > 0 {
		b.WriteString("    classDef visited fill:#d5f5e3,stroke:#1e8449,stroke-width:3px\n")
		fmt.Fprintf(b, "    class %s visited\n", strings.Join(visited, ","))
	}
}

// mermaidFlowchart renders a Mermaid flowchart.
func (g *diagram) mermaidFlowchart() []byte {
	spec := g.spec
	ids := flowchartIDs(spec)
	id := func(name string) string {
		if x, ok := ids[name]; ok {
			return x
		}
		return "n_" + sanitizeID(name) + "_undefined"
	}
	var b bytes.Buffer
	b.WriteString("flowchart TD\n")
	if spec.Name != "" {
		fmt.Fprintf(&b, "    %%%% spec %s\n", mermaidText(shorten(spec.Name, 80)))
	}
	b.WriteString("    start_((\" \"))\n")
	for _, st := range spec.States {
		label := mermaidQuoted(shorten(st.Name, maxNameLen))
		if st.Note != "" {
			label += "<br/><small>" + mermaidQuoted(shorten(st.Note, maxNoteLen)) + "</small>"
		}
		if st.Final {
			fmt.Fprintf(&b, "    %s(((\"%s\")))\n", id(st.Name), label)
		} else {
			fmt.Fprintf(&b, "    %s[\"%s\"]\n", id(st.Name), label)
		}
	}
	for i, ae := range g.anyEvs {
		fmt.Fprintf(&b, "    ev_%d{{\"%s\"}}\n", i, mermaidQuoted("event "+ae.label+" from any state"))
	}
	var taken []string
	link := 0
	if spec.Initial != "" {
		fmt.Fprintf(&b, "    start_ --> %s\n", id(spec.Initial))
		if len(g.opts.Path) > 0 && g.opts.Path[0] == spec.Initial {
			taken = append(taken, "0")
		}
		link++
	}
	for _, e := range g.mermaidEdges() {
		arrow := "-->"
		switch e.kind {
		case edgeError:
			arrow = "-.->"
		case edgeEvent:
			arrow = "==>"
		}
		if len(e.labels) > 0 {
			fmt.Fprintf(&b, "    %s %s|\"%s\"| %s\n", id(e.from), arrow, mermaidLabel(e.labels, mermaidQuoted), id(e.to))
		} else {
			fmt.Fprintf(&b, "    %s %s %s\n", id(e.from), arrow, id(e.to))
		}
		if e.taken {
			taken = append(taken, fmt.Sprint(link))
		}
		link++
	}
	for i, ae := range g.anyEvs {
		fmt.Fprintf(&b, "    ev_%d ==> %s\n", i, id(ae.ev.To))
		link++
	}
	b.WriteString("    classDef initial fill:#222,stroke:#222\n")
	b.WriteString("    class start_ initial\n")
	var finals []string
	for _, st := range spec.States {
		if st.Final {
			finals = append(finals, id(st.Name))
		}
	}
	if len(finals) > 0 {
		b.WriteString("    classDef final fill:#eaf2f8,stroke:#1b4f72,stroke-width:2px\n")
		fmt.Fprintf(&b, "    class %s final\n", strings.Join(finals, ","))
	}
	if len(g.anyEvs) > 0 {
		b.WriteString("    classDef event fill:#fef9e7,stroke:#b7950b\n")
		evs := make([]string, len(g.anyEvs))
		for i := range g.anyEvs {
			evs[i] = fmt.Sprintf("ev_%d", i)
		}
		fmt.Fprintf(&b, "    class %s event\n", strings.Join(evs, ","))
	}
	g.mermaidClasses(&b, id)
	if len(taken) > 0 {
		fmt.Fprintf(&b, "    linkStyle %s stroke:#1e8449,stroke-width:3px\n", strings.Join(taken, ","))
	}
	return b.Bytes()
}

var dotEntityRE = regexp.MustCompile(`&(#?[A-Za-z0-9]+;)`)

// dotString quotes s as a Graphviz string.
func dotString(s string) string {
	s = strings.TrimSpace(spaceRE.ReplaceAllString(s, " "))
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `"`, `\"`)
	s = dotEntityRE.ReplaceAllString(s, "&amp;$1") // Graphviz decodes HTML entities (&lt; &#35;) in every string
	return `"` + s + `"`
}

// dot renders a Graphviz digraph.
func (g *diagram) dot() []byte {
	spec := g.spec
	var b bytes.Buffer
	name := spec.Name
	if name == "" {
		name = "spec"
	}
	fmt.Fprintf(&b, "digraph %s {\n", dotString(name))
	b.WriteString("    rankdir=TB;\n")
	b.WriteString("    node [shape=box, style=rounded, fontname=\"Helvetica\"];\n")
	b.WriteString("    edge [fontname=\"Helvetica\", fontsize=10];\n")
	if spec.Initial != "" {
		b.WriteString("    \"[*]\" [shape=point, width=0.2, label=\"\"];\n")
	}
	for _, st := range spec.States {
		attrs := []string{}
		if st.Final {
			attrs = append(attrs, "shape=doublecircle")
		}
		if st.Note != "" {
			attrs = append(attrs, "tooltip="+dotString(st.Note), "xlabel="+dotString(shorten(st.Note, maxNoteLen)))
		}
		switch {
		case g.visited[st.Name]:
			attrs = append(attrs, `style="rounded,filled"`, `fillcolor="#d5f5e3"`, `color="#1e8449"`, "penwidth=2")
		case g.errOnly[st.Name]:
			attrs = append(attrs, `style="rounded,filled"`, `fillcolor="#fdecea"`, `color="#c0392b"`)
		}
		if len(attrs) == 0 {
			fmt.Fprintf(&b, "    %s;\n", dotString(st.Name))
		} else {
			fmt.Fprintf(&b, "    %s [%s];\n", dotString(st.Name), strings.Join(attrs, ", "))
		}
	}
	for i, ae := range g.anyEvs {
		fmt.Fprintf(&b, "    \"event:%d\" [shape=hexagon, style=dashed, label=%s];\n", i, dotString("event "+ae.label+" from any state"))
	}
	if spec.Initial != "" {
		attrs := ""
		if len(g.opts.Path) > 0 && g.opts.Path[0] == spec.Initial {
			attrs = ` [color="#1e8449", penwidth=2.5]`
		}
		fmt.Fprintf(&b, "    \"[*]\" -> %s%s;\n", dotString(spec.Initial), attrs)
	}
	for _, e := range g.edges {
		var attrs []string
		if e.label != "" {
			attrs = append(attrs, "label="+dotString(e.label))
		}
		switch e.kind {
		case edgeError:
			attrs = append(attrs, "style=dashed", "fontcolor=red")
			if !e.taken {
				attrs = append(attrs, "color=red")
			}
		case edgeEvent:
			attrs = append(attrs, "style=bold")
		}
		if e.taken {
			attrs = append(attrs, `color="#1e8449"`, "penwidth=2.5")
		}
		fmt.Fprintf(&b, "    %s -> %s", dotString(e.from), dotString(e.to))
		if len(attrs) > 0 {
			fmt.Fprintf(&b, " [%s]", strings.Join(attrs, ", "))
		}
		b.WriteString(";\n")
	}
	for i, ae := range g.anyEvs {
		fmt.Fprintf(&b, "    \"event:%d\" -> %s [style=bold];\n", i, dotString(ae.ev.To))
	}
	b.WriteString("}\n")
	return b.Bytes()
}
