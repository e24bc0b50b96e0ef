package main

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// terminalSafe returns s with what could drive a terminal written out as
// escapes: control characters other than newline and tab (ESC starting a
// colour, a title or a cursor move, CR overwriting a line, NUL, DEL, the C1
// controls U+0080-U+009F), the bidi overrides and isolates that make text
// read in another order (U+202A-U+202E, U+2066-U+2069), and bytes that are
// not UTF-8. `lppctl tool` prints a result so when its stdout is a terminal:
// a script's output or a file's text is the model's to choose, not a
// sequence for the operator's terminal.
func terminalSafe(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
