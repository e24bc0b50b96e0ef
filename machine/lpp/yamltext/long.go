package yamltext

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf8"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// LongText is the shortest free text (a description, a note, a doc, a
// string default) that the spec text a translation parses holds as a
// placeholder: the YAML decoder would copy such a text several times
// (it reads a scalar a character at a time into a growing buffer, and
// validation decodes the spec twice), and a blueprint's texts may run to
// megabytes. Translation.Spec puts each text back in place, and Text writes
// the spec with them.
const LongText = 4 << 10

// Texts holds the texts a translation keeps out of its YAML.
type Texts struct {
	prefix string // "lppctl-text-NONCE-": a placeholder is prefix + index
	texts  []string
}

// NewTexts returns an empty Texts whose placeholders no text holds.
func NewTexts() *Texts {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics rather)
	return &Texts{prefix: "lppctl-text-" + hex.EncodeToString(b[:]) + "-"}
}

// Quote returns s as a single-quoted YAML scalar (Quote), or a quoted
// placeholder for a long one.
func (l *Texts) Quote(s string) string {
	if len(s) < LongText {
		return Quote(s)
	}
	if strings.ContainsAny(s, "\r\n") { // what yq writes, and so what the spec holds
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r", ""), "\n", " ")
	}
	return "'" + l.Add(s) + "'"
}

// QuoteJSON returns s as a double-quoted YAML scalar (JSON's quoting,
// which keeps line breaks), or a double-quoted placeholder for a long one.
func (l *Texts) QuoteJSON(s string) string {
	if len(s) < LongText {
		return Value(s)
	}
	return `"` + l.Add(s) + `"`
}

// Add keeps s and returns its placeholder.
func (l *Texts) Add(s string) string {
	l.texts = append(l.texts, s)
	return l.prefix + strconv.Itoa(len(l.texts)-1)
}

// Lookup returns the text placeholder s stands for.
func (l *Texts) Lookup(s string) (string, bool) {
	if len(l.texts) == 0 || len(s) <= len(l.prefix) || s[:len(l.prefix)] != l.prefix {
		return "", false
	}
	i, err := strconv.Atoi(s[len(l.prefix):])
	if err != nil || i < 0 || i >= len(l.texts) {
		return "", false
	}
	return l.texts[i], true
}

// expand returns text with each quoted placeholder replaced by its text,
// quoted as the placeholder was ('...': yq, "...": JSON).
func (l *Texts) Expand(text []byte) []byte { return l.ExpandPrefix(text, -1) }

// ExpandPrefix is Expand writing at most the first max bytes (cut at a
// character) of each text (max < 0: all of it), for quoting a line.
func (l *Texts) ExpandPrefix(text []byte, max int) []byte {
	if len(l.texts) == 0 {
		return text
	}
	size := len(text)
	if bytes.Contains(text, []byte(l.prefix)) {
		for _, s := range l.texts {
			if max >= 0 {
				size += min(len(s), max) + 2
			} else {
				size += len(s) + 2
			}
		}
	}
	out := make([]byte, 0, size)
	pre := []byte(l.prefix)
	for {
		i := bytes.Index(text, pre)
		if i < 1 {
			return append(out, text...)
		}
		j := i + len(pre)
		for j < len(text) && text[j] >= '0' && text[j] <= '9' {
			j++
		}
		s, ok := l.Lookup(string(text[i:j]))
		q := text[i-1]
		if !ok || j >= len(text) || text[j] != q || (q != '\'' && q != '"') {
			out = append(out, text[:j]...)
			text = text[j:]
			continue
		}
		out = append(out, text[:i-1]...)
		if max >= 0 && len(s) > max {
			cut := max
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			s = s[:cut]
		}
		if q == '\'' {
			out = appendYQ(out, s)
		} else {
			out = strconv.AppendQuote(out, s) // Go's escapes are YAML's too
		}
		text = text[j+1:]
	}
}

// Fill puts the texts back into the free texts of spec, decoded from the
// YAML that holds their placeholders.
func (l *Texts) Fill(spec *mspec.Spec) {
	if spec == nil || len(l.texts) == 0 {
		return
	}
	put := func(s *string) {
		if t, ok := l.Lookup(*s); ok {
			*s = t
		}
	}
	put(&spec.Description)
	for _, v := range spec.Context {
		put(&v.Doc)
		if d, ok := v.Default.(string); ok {
			put(&d)
			v.Default = d
		}
	}
	trans := func(list []*mspec.Transition) {
		for _, t := range list {
			put(&t.Note)
		}
	}
	for _, st := range spec.States {
		put(&st.Note)
		trans(st.Next)
		for _, on := range st.On {
			trans(on.Transitions)
		}
	}
	for _, ev := range spec.Events {
		put(&ev.Note)
	}
}

// appendYQ appends yq(s) to dst, without copying s on the way when it is
// printable text.
func appendYQ(dst []byte, s string) []byte {
	if strings.IndexFunc(s, func(r rune) bool { return r != '\r' && r != '\n' && Unprintable(r) }) >= 0 {
		return append(dst, Quote(s)...)
	}
	dst = append(dst, '\'')
	for {
		i := strings.IndexAny(s, "'\r\n")
		if i < 0 {
			break
		}
		dst = append(dst, s[:i]...)
		switch s[i] {
		case '\'':
			dst = append(dst, "''"...)
		case '\n':
			dst = append(dst, ' ')
		}
		s = s[i+1:]
	}
	dst = append(dst, s...)
	return append(dst, '\'')
}
