package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Note is a line an action (or the interpreter) records about a step, with
// its severity. In the journal a plain note is a JSON string, as notes were
// before they had a severity, and a warning is an object with an optional
// severity field: {"text": "...", "severity": "warning"}. Journals written
// before warnings existed read as plain notes.
type Note struct {
	Text     string
	Severity NoteSeverity
}

// NoteSeverity says how much a note needs a person's attention.
type NoteSeverity string

// Note severities.
const (
	NoteInfo    NoteSeverity = ""        // what the action did
	NoteWarning NoteSeverity = "warning" // something is wrong, but the action went on
)

// IsWarning reports whether the note is a warning.
func (n Note) IsWarning() bool { return n.Severity == NoteWarning }

// String renders the note for people: its text, after "warning: " when it
// is one.
func (n Note) String() string {
	if n.Severity == NoteInfo {
		return n.Text
	}
	return string(n.Severity) + ": " + n.Text
}

// noteObject is a note with a severity, as journaled.
type noteObject struct {
	Text     string       `json:"text"`
	Severity NoteSeverity `json:"severity,omitempty"`
}

// MarshalJSON writes a plain note as a string, any other as an object.
func (n Note) MarshalJSON() ([]byte, error) {
	if n.Severity == NoteInfo {
		return json.Marshal(n.Text)
	}
	return json.Marshal(noteObject(n))
}

// UnmarshalJSON reads a note written as a string or as an object.
func (n *Note) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		*n = Note{}
		return json.Unmarshal(b, &n.Text)
	}
	var o noteObject
	if err := json.Unmarshal(b, &o); err != nil {
		return fmt.Errorf("cannot read note %s: it must be a string or {\"text\": ..., \"severity\": ...}", shorten(string(b), 60))
	}
	*n = Note(o)
	return nil
}

var noteSpaceRE = regexp.MustCompile(`\s+`)

// shorten cuts s to at most max characters, ending with "…" when cut (as
// the exporters shorten their labels).
func shorten(s string, max int) string {
	s = strings.TrimSpace(noteSpaceRE.ReplaceAllString(s, " "))
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:max-1]), " ") + "…"
}
