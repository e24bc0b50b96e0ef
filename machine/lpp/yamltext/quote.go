package yamltext

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/lppctl/lppctl/machine/lpp/gate"
)

// Quote quotes s as a single-quoted YAML scalar (on one line).
func Quote(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r", ""), "\n", " ")
	if strings.IndexFunc(s, Unprintable) < 0 {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	// YAML allows no control characters in a file: double quotes and escapes.
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case Unprintable(r):
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Unprintable reports a rune a YAML file cannot hold as it is: control
// characters, and every rune YAML reads as a line break (\r, \n, U+0085,
// U+2028, U+2029). A blueprint's text written raw with one of those would
// end its line, and the rest would be read as YAML of its own: keys the
// blueprint does not have, even in a comment.
func Unprintable(r rune) bool {
	return r < 0x20 && r != '\t' || r >= 0x7F && r <= 0x9F || r == 0x2028 || r == 0x2029 || r == 0xFEFF || r == utf8.RuneError || r >= 0xD800 && r <= 0xDFFF || r == 0xFFFE || r == 0xFFFF
}

// Key writes a mapping key, quoted when it is not a plain identifier.
func Key(s string) string {
	if gate.IdentRE.MatchString(s) && !isYAMLWord(s) {
		return s
	}
	return Quote(s)
}

func isYAMLWord(s string) bool {
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return true
	}
	return false
}

// Printable escapes in JSON text the runes a YAML file (even in a
// comment) cannot hold; they can only be inside strings, where \uXXXX
// means the same.
func Printable(s string) string {
	if strings.IndexFunc(s, Unprintable) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if Unprintable(r) {
			fmt.Fprintf(&b, "\\u%04X", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// yaml writes the spec, and where in the blueprint each of its lines
// comes from (origins[i] for line i+1).
// Value writes a JSON value as YAML flow (JSON is YAML), with the
// runes YAML reads as line breaks escaped (JSON leaves U+0085 raw).
func Value(v any) string {
	b, _ := json.Marshal(v)
	return Printable(string(b))
}
