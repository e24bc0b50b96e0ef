package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lppctl/lppctl/internal/textx"
)

// DocFile is the name of a skill's prose file inside its folder.
const DocFile = "skills.md"

// Names of the sections the Skills Agent learns into.
const (
	SectionSuccess  = "Success Cases"
	SectionFailure  = "Failure Cases"
	SectionFeedback = "Human Feedback"
)

// SkillDoc is a skill's skills.md as read from disk.
type SkillDoc struct {
	Path string // the file, dir/skills.md
	Name string // the skill's name: the folder's base name
	Text string // the whole file
}

// OpenSkill reads dir/skills.md. A missing file is an error wrapping ErrNotFound.
func OpenSkill(dir string) (*SkillDoc, error) {
	name := filepath.Base(filepath.Clean(dir))
	path := filepath.Join(dir, DocFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cannot open skill %q: no %s in %s: %w", name, DocFile, dir, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot open skill %q: %w", name, err)
	}
	return &SkillDoc{Path: path, Name: name, Text: string(data)}, nil
}

// Section returns the body of the "## name" section (matched case-insensitively):
// the text after its heading line up to the next level-1 or level-2 heading
// outside a code fence, with surrounding blank lines trimmed. It returns ""
// when the section is absent.
func (d *SkillDoc) Section(name string) string {
	s, ok := findSection(d.Text, name)
	if !ok {
		return ""
	}
	return strings.Trim(d.Text[s.bodyStart:s.bodyEnd], "\r\n")
}

// HasEntry reports whether an entry with the given ID was already appended.
func (d *SkillDoc) HasEntry(id string) bool { return hasEntry(d.Text, id) }

// hasEntry reports whether text holds the marker line of entry id. Only a
// whole line counts: text an entry quotes can never hide a later entry.
func hasEntry(text, id string) bool {
	m := entryMarker(id)
	for off := 0; off < len(text); {
		i := strings.Index(text[off:], m)
		if i < 0 {
			return false
		}
		at := off + i
		end := at + len(m)
		if (at == 0 || text[at-1] == '\n') && (end == len(text) || text[end] == '\n' || strings.HasPrefix(text[end:], "\r\n")) {
			return true
		}
		off = end
	}
	return false
}

// SuccessCase is what the Skills Agent records when a step passes evaluation.
type SuccessCase struct {
	Step        int
	Instruction string
	ToolCalls   []ToolCallSummary
	KeyOutputs  map[string]string
	// KeyNames maps a key of KeyOutputs to the name the evaluator gave it
	// when they differ; it is shown after the key.
	KeyNames map[string]string
}

// ToolCallSummary is one tool call of a step. Args is the call's arguments as
// JSON; it is shortened when rendered (see ShortenArgs).
type ToolCallSummary struct {
	Tool string
	Args string
	// Outcome is "" for a call that ran, else a word for what happened
	// ("blocked", "failed"), written after the call.
	Outcome string
}

// FailureCase is what the Skills Agent records when a step fails evaluation.
type FailureCase struct {
	Step        int
	Instruction string
	Feedback    string
}

// AppendSuccess appends a success case to the "## Success Cases" section of
// the skills.md at path. See appendEntry for the guarantees.
func AppendSuccess(path, id string, at time.Time, c SuccessCase) error {
	var b strings.Builder
	fmt.Fprintf(&b, "- **Step:** %d\n", c.Step)
	writeField(&b, "Instruction", c.Instruction)
	if len(c.ToolCalls) == 0 {
		b.WriteString("- **Tool calls:** none\n")
	} else {
		b.WriteString("- **Tool calls:**\n")
		for _, tc := range c.ToolCalls {
			line := "  - " + codeSpan(tc.Tool)
			if args := ShortenArgs(tc.Args); args != "" {
				line += " " + args
			}
			if o := textx.OneLine(tc.Outcome); o != "" {
				line += " → " + o
			}
			b.WriteString(line + "\n")
		}
	}
	if len(c.KeyOutputs) == 0 {
		b.WriteString("- **Key outputs:** none\n")
	} else {
		b.WriteString("- **Key outputs:**\n")
		keys := make([]string, 0, len(c.KeyOutputs))
		for k := range c.KeyOutputs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			name := codeSpan(k)
			if orig, ok := c.KeyNames[k]; ok && orig != k {
				from := codeSpan(orig)
				if textx.OneLine(orig) == "" {
					from = "an empty name"
				}
				name += " (from " + from + ")"
			}
			fmt.Fprintf(&b, "  - %s = %s\n", name, entryText(shortenValue(strings.TrimSpace(c.KeyOutputs[k]), keyOutputMax), "    "))
		}
	}
	return appendEntry(path, SectionSuccess, id, at, b.String())
}

// AppendFailure appends a failure case to the "## Failure Cases" section of
// the skills.md at path. See appendEntry for the guarantees.
func AppendFailure(path, id string, at time.Time, c FailureCase) error {
	var b strings.Builder
	fmt.Fprintf(&b, "- **Step:** %d\n", c.Step)
	writeField(&b, "Instruction", c.Instruction)
	writeField(&b, "Evaluator feedback", c.Feedback)
	return appendEntry(path, SectionFailure, id, at, b.String())
}

// AppendFeedback appends what a person typed to the "## Human Feedback"
// section of the skills.md at path. See appendEntry for the guarantees.
func AppendFeedback(path, id string, at time.Time, text string) error {
	body := entryText(text, "  ")
	if body == "" {
		body = "(empty)"
	}
	return appendEntry(path, SectionFeedback, id, at, "- "+body+"\n")
}

func writeField(b *strings.Builder, label, text string) {
	text = entryText(text, "  ")
	if text == "" {
		text = "(none)"
	}
	fmt.Fprintf(b, "- **%s:** %s\n", label, text)
}

// indentContinuation trims text and indents every line after the first, so
// that no line of an entry starts at column 0: prose can then never open a
// heading or a code fence that would end the section early.
func indentContinuation(text, indent string) string {
	text = strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
	return strings.ReplaceAll(text, "\n", "\n"+indent)
}

// entryText is indentContinuation for the text of an entry (an instruction,
// feedback, a key output): besides the indentation, a line that Markdown (or
// a model reading the file) could take for structure — a heading ("## Failure
// Cases", "### [2025-01-02 03:04 UTC]"), a code fence, an HTML comment (an
// entry marker), a Setext underline (=== or ---), a tag (</skill>,
// <primary_directive>: the planner reads the file inside <skill>...</skill>)
// — is escaped with a backslash, so no text can end a section, open a fence,
// fake an entry or close the planner prompt's block around the file.
func entryText(text, indent string) string {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n") // a lone CR ends a line in Markdown too
	lines := strings.Split(indentContinuation(text, ""), "\n")
	for i, l := range lines {
		t := strings.TrimLeft(l, " \t")
		if strings.HasPrefix(t, "#") || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") || strings.HasPrefix(t, "<!--") || setextLevel(strings.TrimSpace(t)) > 0 || opensWithTag(t) {
			l = l[:len(l)-len(t)] + "\\" + t
		}
		if i > 0 {
			l = indent + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// codeSpan renders s on one line as inline code, with a fence of backticks
// longer than any run inside it; an empty s is "(empty)".
func codeSpan(s string) string {
	s = textx.OneLine(s)
	if s == "" {
		return "(empty)"
	}
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// entryMarker is the HTML comment that carries an entry's ID.
func entryMarker(id string) string { return "<!-- lppctl:entry " + id + " -->" }

// checkEntryID rejects IDs that cannot live inside an HTML comment on one line.
func checkEntryID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("entry ID is empty: %w", ErrInvalid)
	case strings.TrimSpace(id) != id || strings.ContainsAny(id, " \t"):
		return fmt.Errorf("entry ID %q contains whitespace: %w", id, ErrInvalid)
	case strings.Contains(id, "--") || strings.Contains(id, ">"):
		return fmt.Errorf("entry ID %q contains \"--\" or \">\": %w", id, ErrInvalid)
	case hasControl(id, false):
		return fmt.Errorf("entry ID %q contains a control character: %w", id, ErrInvalid)
	case len(id) > 200:
		return fmt.Errorf("entry ID is %d bytes long; the limit is 200: %w", len(id), ErrInvalid)
	}
	return nil
}

// appendEntry adds one entry, under a "### [YYYY-MM-DD HH:MM UTC]" heading
// followed by the ID marker, at the end of section sec of the skills.md at
// path. The section is created at the end of the file when missing; every
// other byte of the file stays as it was. The write is atomic and happens
// under an exclusive lock on the skill's folder. Appending an ID already
// present anywhere in the file does nothing, so a caller that crashed after
// the write but before recording it can safely redo it.
func appendEntry(path, sec, id string, at time.Time, body string) error {
	if err := checkEntryID(id); err != nil {
		return fmt.Errorf("cannot append to %s: %w", path, err)
	}
	shown := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // a linked skills.md: replace the file, keep the link
	}
	unlock, err := lockDir(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("cannot append to %s: %w", shown, err)
	}
	defer unlock()
	removeStaleTemps(path) // a writer killed before its rename left one
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot append to %s: %w", shown, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("cannot append to %s: %w", shown, err)
	}
	text := string(data)
	if hasEntry(text, id) {
		return nil
	}
	entry := "### [" + at.UTC().Format("2006-01-02 15:04") + " UTC]\n" + entryMarker(id) + "\n" + body
	out := insertEntry(text, sec, entry)
	if err := writeFileAtomic(path, []byte(out), 0o644); err != nil {
		return fmt.Errorf("cannot append to %s: %w", shown, err)
	}
	return nil
}

// insertEntry returns text with entry (its lines ending in "\n") placed
// after the last non-blank line of section sec, separated by blank lines from
// its neighbours, creating the section at the end when missing. The inserted
// bytes use the file's line ending (CRLF when its first line ends so); a code
// fence or HTML comment left open at the end of the file is closed first, so
// the entry is never swallowed by it.
func insertEntry(text, sec, entry string) string {
	nl := "\n"
	if i := strings.IndexByte(text, '\n'); i > 0 && text[i-1] == '\r' {
		nl = "\r\n"
	}
	sc := scanDoc(text)
	s, ok := sc.section(sec)
	var b strings.Builder
	if !ok {
		b.WriteString(text)
		switch {
		case strings.TrimPrefix(text, bom) == "":
		case strings.HasSuffix(text, "\n\n") || strings.HasSuffix(text, "\n\r\n"):
		case strings.HasSuffix(text, "\n"):
			b.WriteString(nl)
		default:
			b.WriteString(nl + nl)
		}
		if c := sc.closer; c != "" {
			b.WriteString(c + nl + nl)
		}
		b.WriteString(strings.ReplaceAll("## "+sec+"\n\n"+entry, "\n", nl))
		return b.String()
	}
	// Insert after the last non-blank line of the section (or its heading).
	at := s.bodyEnd
	for at > s.bodyStart && isBlankLineBefore(text, at) {
		at = lineStartBefore(text, at)
	}
	b.WriteString(text[:at])
	if at > 0 && text[at-1] != '\n' {
		b.WriteString(nl)
	}
	if s.bodyEnd == len(text) && sc.closer != "" {
		b.WriteString(sc.closer + nl)
	}
	b.WriteString(nl)
	b.WriteString(strings.ReplaceAll(entry, "\n", nl))
	rest := text[at:]
	if rest != "" && !strings.HasPrefix(rest, "\n") && !strings.HasPrefix(rest, "\r\n") {
		b.WriteString(nl)
	}
	b.WriteString(rest)
	return b.String()
}

// isBlankLineBefore reports whether the line ending just before offset at
// (at is a line start, or the end of text) is blank.
func isBlankLineBefore(text string, at int) bool {
	start := lineStartBefore(text, at)
	return strings.TrimSpace(text[start:at]) == ""
}

// lineStartBefore returns the start of the line that ends just before at.
func lineStartBefore(text string, at int) int {
	end := at
	if end > 0 && text[end-1] == '\n' {
		end--
	}
	return strings.LastIndexByte(text[:end], '\n') + 1
}

const bom = "\ufeff"

type section struct{ bodyStart, bodyEnd int }

// heading is a Markdown heading outside code fences and HTML comments.
type heading struct {
	level int    // 1-6
	title string // the heading's text
	start int    // offset of its first line (a Setext title's first line)
	body  int    // offset of the line after it
	entry bool   // an entry heading: "### [YYYY-MM-DD HH:MM UTC]"
}

// docScan is the heading structure of a skills.md.
type docScan struct {
	headings []heading
	closer   string // what closes a fence or comment still open at the end ("" if none)
	size     int    // the text's length
}

// entryHeadingRE matches the heading of an entry appended by appendEntry.
var entryHeadingRE = regexp.MustCompile(`^### \[\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\][ \t]*$`)

// scanDoc finds the headings of text the way CommonMark reads them at the
// top level: ATX headings ("## Title", up to 3 spaces of indentation) and
// Setext headings (a paragraph underlined with === or ---), not inside
// fenced code blocks (``` or ~~~, closed by a fence at least as long) or
// multi-line HTML comments. A byte order mark is ignored.
func scanDoc(text string) docScan {
	sc := docScan{size: len(text)}
	var (
		fenceCh   byte // the open fence's character, 0 when none
		fenceLen  int
		inComment bool
		paraStart = -1 // offset of the current paragraph's first line
		paraList  bool // the paragraph is a list item or quote: no Setext heading
		inList    bool // inside a list item: its indented lines are its content
		prevBlank = true
	)
	for off := 0; off < len(text); {
		next := len(text)
		if end := strings.IndexByte(text[off:], '\n'); end >= 0 {
			next = off + end + 1
		}
		line := strings.TrimRight(text[off:next], "\r\n")
		if off == 0 {
			line = strings.TrimPrefix(line, bom)
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		trimmed := strings.TrimSpace(line)
		blank := trimmed == ""
		switch {
		case fenceCh != 0:
			if indent <= 3 && isFenceCloser(trimmed, fenceCh, fenceLen) {
				fenceCh = 0
			}
		case inComment:
			if strings.Contains(line, "-->") {
				inComment = false
			}
		case blank:
			paraStart = -1
		case inList && (indent >= 2 || strings.HasPrefix(line, "\t")):
			// A list item's content ("- **Feedback:** a\n  ## b" as older
			// versions wrote entries): never a top-level heading or fence.
		case indent <= 3 && isListMarker(trimmed):
			inList, paraStart = true, -1
		case inList && !prevBlank && !startsBlock(line, indent, trimmed):
			// a lazy continuation of the list item's paragraph
		default:
			wasList := inList && !prevBlank
			inList = false
			switch {
			case indent <= 3 && fenceOpen(trimmed) != 0:
				fenceCh = trimmed[0]
				fenceLen = len(trimmed) - len(strings.TrimLeft(trimmed, string(fenceCh)))
				paraStart = -1
			case indent <= 3 && strings.HasPrefix(trimmed, "<!--") && !strings.Contains(trimmed[4:], "-->"):
				inComment = true
				paraStart = -1
			case wasList && setextLevel(trimmed) > 0:
				paraStart = -1 // a thematic break or text after a list: no heading
			default:
				if level, title := atxHeading(line[indent:]); indent <= 3 && level > 0 {
					sc.headings = append(sc.headings, heading{level: level, title: title, start: off, body: next, entry: entryHeadingRE.MatchString(line)})
					paraStart = -1
					break
				}
				if level := setextLevel(trimmed); indent <= 3 && level > 0 && paraStart >= 0 && !paraList {
					title := textx.OneLine(strings.TrimPrefix(text[paraStart:off], bom))
					sc.headings = append(sc.headings, heading{level: level, title: title, start: paraStart, body: next})
					paraStart = -1
					break
				}
				if paraStart < 0 {
					paraStart, paraList = off, indent > 3 || strings.HasPrefix(trimmed, ">")
				}
			}
		}
		if fenceCh == 0 && !inComment {
			prevBlank = blank
		}
		off = next
	}
	switch {
	case fenceCh != 0:
		sc.closer = strings.Repeat(string(fenceCh), fenceLen)
	case inComment:
		sc.closer = "-->"
	}
	return sc
}

// section locates the section titled name (case-insensitively; a trailing
// colon is ignored): a level-2 heading if there is one, else a heading of
// any other level. Its body runs from the line after the heading to the
// next heading of its level or above (level 2 or above for a level-1
// section), entry headings excepted.
func (sc docScan) section(name string) (section, bool) {
	want := sectionKey(name)
	found := -1
	for i, h := range sc.headings {
		if h.entry || sectionKey(h.title) != want {
			continue
		}
		if h.level == 2 {
			found = i
			break
		}
		if found < 0 {
			found = i
		}
	}
	if found < 0 {
		return section{}, false
	}
	h := sc.headings[found]
	limit := max(h.level, 2)
	s := section{bodyStart: h.body, bodyEnd: -1}
	for _, o := range sc.headings[found+1:] {
		if !o.entry && o.level <= limit {
			s.bodyEnd = o.start
			break
		}
	}
	if s.bodyEnd < 0 {
		s.bodyEnd = sc.size
	}
	return s, true
}

func sectionKey(title string) string {
	return strings.ToLower(strings.TrimSpace(strings.TrimSuffix(textx.OneLine(title), ":")))
}

// findSection locates section name in text (see docScan.section).
func findSection(text, name string) (section, bool) { return scanDoc(text).section(name) }

// fenceOpen returns the fence character when trimmed opens a code fence
// (three or more backticks or tildes; a backtick fence's info string holds
// no backtick), else 0.
func fenceOpen(trimmed string) byte {
	for _, ch := range []byte{'`', '~'} {
		n := len(trimmed) - len(strings.TrimLeft(trimmed, string(ch)))
		if n >= 3 && (ch == '~' || !strings.ContainsRune(trimmed[n:], '`')) {
			return ch
		}
	}
	return 0
}

// isFenceCloser reports whether trimmed closes a fence opened with n ch's.
func isFenceCloser(trimmed string, ch byte, n int) bool {
	rest := strings.TrimLeft(trimmed, string(ch))
	return len(trimmed)-len(rest) >= n && strings.TrimSpace(rest) == ""
}

// setextLevel returns 1 for a "===" underline, 2 for "---", else 0.
func setextLevel(trimmed string) int {
	switch {
	case trimmed == "":
		return 0
	case strings.Trim(trimmed, "=") == "":
		return 1
	case strings.Trim(trimmed, "-") == "":
		return 2
	}
	return 0
}

// isListMarker reports whether a line starts a list item ("- ", "* ", "+ ",
// "1. ", "1) ", or the marker alone).
func isListMarker(trimmed string) bool {
	for _, m := range []string{"-", "*", "+"} {
		if trimmed == m || strings.HasPrefix(trimmed, m+" ") || strings.HasPrefix(trimmed, m+"\t") {
			return setextLevel(trimmed) == 0 && strings.Trim(trimmed, "* ") != "" // not "---" or "* * *"
		}
	}
	digits := len(trimmed) - len(strings.TrimLeft(trimmed, "0123456789"))
	if digits == 0 || digits > 9 || digits == len(trimmed) || (trimmed[digits] != '.' && trimmed[digits] != ')') {
		return false
	}
	rest := trimmed[digits+1:]
	return rest == "" || rest[0] == ' ' || rest[0] == '\t'
}

// startsBlock reports whether a line starts a block that ends a paragraph:
// an ATX heading, a fence, an HTML comment or a thematic break.
func startsBlock(line string, indent int, trimmed string) bool {
	if indent > 3 {
		return false
	}
	level, _ := atxHeading(line[indent:])
	return level > 0 || fenceOpen(trimmed) != 0 || strings.HasPrefix(trimmed, "<!--") || setextLevel(trimmed) > 0
}

// atxHeading returns the level and title of an ATX heading ("## Title ##" →
// 2, "Title"), or 0; line starts at the heading's first '#'.
func atxHeading(line string) (int, string) {
	level := 0
	for level < len(line) && line[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(line) && line[level] != ' ' && line[level] != '\t') {
		return 0, ""
	}
	title := strings.TrimSpace(line[level:])
	if t := strings.TrimRight(title, "#"); t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t") {
		title = t
	}
	return level, strings.TrimSpace(title)
}

// keyOutputMax bounds a key output's value in a Success Case: a longer one
// keeps its first keyOutputMax characters followed by "…(+N chars)" (the
// run's L2 keeps it whole).
const keyOutputMax = 300

// Limits used by ShortenArgs.
const (
	argStringMax  = 80  // longer JSON strings are cut ...
	argStringKeep = 60  // ... to this many characters plus a marker
	argArrayMax   = 10  // longer arrays keep this many elements plus a marker
	argsTotalMax  = 400 // the rendered arguments never exceed this many characters
)

// ShortenArgs renders a tool call's JSON arguments compactly on one line for
// skills.md. The rule: every string value (at any depth) longer than 80
// characters keeps its first 60 characters followed by "…(+N chars)"; every
// array longer than 10 elements keeps its first 10 followed by the string
// "…(+N more)"; object keys are sorted; the result is cut to 400 characters
// (ending in "…") if still longer. Arguments that are not valid JSON are
// treated as plain text: whitespace collapsed, then cut like a long string
// at 400 characters. Empty or "{}" arguments render as "".
func ShortenArgs(args string) string {
	args = strings.TrimSpace(args)
	if args == "" || args == "{}" || args == "null" {
		return ""
	}
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return cutRunes(textx.OneLine(args), argsTotalMax)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(shortenJSON(v)); err != nil {
		return cutRunes(textx.OneLine(args), argsTotalMax)
	}
	return cutRunes(strings.TrimSpace(buf.String()), argsTotalMax)
}

// shortenValue cuts a string longer than most runes to keep runes and a
// "…(+N chars)" marker.
func shortenValue(v string, keep int) string {
	if n := utf8.RuneCountInString(v); n > keep {
		return string([]rune(v)[:keep]) + "…(+" + strconv.Itoa(n-keep) + " chars)"
	}
	return v
}

func shortenJSON(v any) any {
	switch v := v.(type) {
	case string:
		if utf8.RuneCountInString(v) > argStringMax {
			return shortenValue(v, argStringKeep)
		}
		return v
	case []any:
		out := make([]any, 0, min(len(v), argArrayMax+1))
		for i, e := range v {
			if i == argArrayMax {
				out = append(out, "…(+"+strconv.Itoa(len(v)-argArrayMax)+" more)")
				break
			}
			out = append(out, shortenJSON(e))
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = shortenJSON(e)
		}
		return out
	default:
		return v
	}
}

// cutRunes cuts s to at most n runes, the last being "…" when cut.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// Recent returns the skill's text with each learning section (Success
// Cases, Failure Cases, Human Feedback) cut to its n most recent entries;
// in place of the older ones a line says how many were left out. Everything
// else is kept as it is. n <= 0 returns the whole text.
func (d *SkillDoc) Recent(n int) string {
	if n <= 0 {
		return d.Text
	}
	sc := scanDoc(d.Text)
	type cut struct{ from, to, dropped int }
	var cuts []cut
	for _, name := range []string{SectionSuccess, SectionFailure, SectionFeedback} {
		sec, ok := sc.section(name)
		if !ok {
			continue
		}
		var starts []int
		for _, h := range sc.headings {
			if h.entry && h.start >= sec.bodyStart && h.start < sec.bodyEnd {
				starts = append(starts, h.start)
			}
		}
		if len(starts) > n {
			cuts = append(cuts, cut{from: starts[0], to: starts[len(starts)-n], dropped: len(starts) - n})
		}
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i].from < cuts[j].from })
	var b strings.Builder
	last := 0
	for _, c := range cuts {
		b.WriteString(d.Text[last:c.from])
		fmt.Fprintf(&b, "(%d older %s left out; the %d most recent follow)\n\n", c.dropped, textx.Plural(c.dropped, "entry", "entries"), n)
		last = c.to
	}
	b.WriteString(d.Text[last:])
	return b.String()
}
