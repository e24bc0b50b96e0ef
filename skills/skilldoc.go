package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
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
	return strings.Trim(d.Text[s.bodyStart:s.bodyEnd], "\n")
}

// HasEntry reports whether an entry with the given ID was already appended.
func (d *SkillDoc) HasEntry(id string) bool {
	return strings.Contains(d.Text, entryMarker(id))
}

// SuccessCase is what the Skills Agent records when a step passes evaluation.
type SuccessCase struct {
	Step        int
	Instruction string
	ToolCalls   []ToolCallSummary
	KeyOutputs  map[string]string
}

// ToolCallSummary is one tool call of a step. Args is the call's arguments as
// JSON; it is shortened when rendered (see ShortenArgs).
type ToolCallSummary struct {
	Tool string
	Args string
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
			args := ShortenArgs(tc.Args)
			if args == "" {
				fmt.Fprintf(&b, "  - `%s`\n", oneLine(tc.Tool))
			} else {
				fmt.Fprintf(&b, "  - `%s` %s\n", oneLine(tc.Tool), args)
			}
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
			fmt.Fprintf(&b, "  - `%s` = %s\n", oneLine(k), indentContinuation(c.KeyOutputs[k], "    "))
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
	body := indentContinuation(text, "  ")
	if body == "" {
		body = "(empty)"
	}
	return appendEntry(path, SectionFeedback, id, at, "- "+body+"\n")
}

func writeField(b *strings.Builder, label, text string) {
	text = indentContinuation(text, "  ")
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

// oneLine collapses all whitespace runs (newlines included) into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

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
	unlock, err := lockDir(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("cannot append to %s: %w", path, err)
	}
	defer unlock()
	removeStaleTemps(path) // a writer killed before its rename left one
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot append to %s: %w", path, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("cannot append to %s: %w", path, err)
	}
	text := string(data)
	if strings.Contains(text, entryMarker(id)) {
		return nil
	}
	entry := "### [" + at.UTC().Format("2006-01-02 15:04") + " UTC]\n" + entryMarker(id) + "\n" + body
	out := insertEntry(text, sec, entry)
	if err := writeFileAtomic(path, []byte(out), 0o644); err != nil {
		return fmt.Errorf("cannot append to %s: %w", path, err)
	}
	return nil
}

// insertEntry returns text with entry (ending in "\n") placed after the last
// non-blank line of section sec, separated by blank lines from its
// neighbours, creating the section at the end when missing.
func insertEntry(text, sec, entry string) string {
	s, ok := findSection(text, sec)
	if !ok {
		var b strings.Builder
		b.WriteString(text)
		switch {
		case text == "":
		case strings.HasSuffix(text, "\n\n"):
		case strings.HasSuffix(text, "\n"):
			b.WriteString("\n")
		default:
			b.WriteString("\n\n")
		}
		b.WriteString("## " + sec + "\n\n" + entry)
		return b.String()
	}
	// Insert after the last non-blank line of the section (or its heading).
	at := s.bodyEnd
	for at > s.bodyStart && isBlankLineBefore(text, at) {
		at = lineStartBefore(text, at)
	}
	var b strings.Builder
	b.WriteString(text[:at])
	if at > 0 && text[at-1] != '\n' {
		b.WriteString("\n")
	}
	b.WriteString("\n")
	b.WriteString(entry)
	rest := text[at:]
	if rest != "" && !strings.HasPrefix(rest, "\n") {
		b.WriteString("\n")
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

type section struct{ bodyStart, bodyEnd int }

// findSection locates "## name" outside code fences. The body runs from the
// line after the heading to the next level-1 or level-2 heading (or the end).
func findSection(text, name string) (section, bool) {
	var s section
	found := false
	inFence := false
	fence := ""
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		next := len(text)
		if end >= 0 {
			next = off + end + 1
		}
		line := strings.TrimRight(text[off:next], "\r\n")
		if f := fenceOpener(line); f != "" {
			if !inFence {
				inFence, fence = true, f
			} else if strings.HasPrefix(strings.TrimLeft(line, " "), fence) {
				inFence = false
			}
		} else if !inFence {
			if level, title := atxHeading(line); level == 1 || level == 2 {
				if found {
					s.bodyEnd = off
					return s, true
				}
				if level == 2 && strings.EqualFold(title, name) {
					found = true
					s.bodyStart = next
				}
			}
		}
		off = next
	}
	if found {
		s.bodyEnd = len(text)
	}
	return s, found
}

// fenceOpener returns "```" or "~~~" when line opens or closes a code fence.
func fenceOpener(line string) string {
	trimmed := strings.TrimLeft(line, " ")
	if len(line)-len(trimmed) > 3 {
		return ""
	}
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(trimmed, f) {
			return f
		}
	}
	return ""
}

// atxHeading returns the level and title of an ATX heading starting at
// column 0 ("## Title ##" → 2, "Title"), or 0.
func atxHeading(line string) (int, string) {
	level := 0
	for level < len(line) && line[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(line) && line[level] != ' ' && line[level] != '\t') {
		return 0, ""
	}
	title := strings.TrimSpace(line[level:])
	title = strings.TrimSpace(strings.TrimRight(title, "#"))
	return level, title
}

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
		return cutRunes(oneLine(args), argsTotalMax)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(shortenValue(v)); err != nil {
		return cutRunes(oneLine(args), argsTotalMax)
	}
	return cutRunes(strings.TrimSpace(buf.String()), argsTotalMax)
}

func shortenValue(v any) any {
	switch v := v.(type) {
	case string:
		if n := utf8.RuneCountInString(v); n > argStringMax {
			r := []rune(v)
			return string(r[:argStringKeep]) + "…(+" + strconv.Itoa(n-argStringKeep) + " chars)"
		}
		return v
	case []any:
		out := make([]any, 0, min(len(v), argArrayMax+1))
		for i, e := range v {
			if i == argArrayMax {
				out = append(out, "…(+"+strconv.Itoa(len(v)-argArrayMax)+" more)")
				break
			}
			out = append(out, shortenValue(e))
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = shortenValue(e)
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
