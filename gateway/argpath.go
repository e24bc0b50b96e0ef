package gateway

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Script arguments are checked as paths piece by piece: each argument is
// split on blanks, "=", "," and ":" (so "--in=../x", "a,/etc/passwd" and
// "x:/etc/passwd" each hold a path), and a piece that is absolute or has a
// ".." component is refused (arg-path), whatever a script would make of it.
//
// Pieces that are not paths pass: numbers ("-5", "1e-3"), times ("10:30"
// splits into "10" and "30"), ranges ("1..5": ".." is not a whole
// component). A URL ("https://host/x", "s3://bucket/key") is one piece: a
// scheme of two or more letters, digits, "+", "-" or "." followed by "://"
// and a host, running up to the next blank, "=" or ","; it is not a path and
// is not checked (its own ":port" and ".." are the server's business).
// A file: URL names a local file and is no exception ("file:///etc/passwd"
// holds "/etc/passwd"). Hidden paths are looked for in every piece, URLs
// split at ":" as well (argPaths in hidden.go).

// urlStart matches the start of a URL with a host: "scheme://h".
var urlStart = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]+://[^/\\\s=,]`)

// argSeparator reports whether r splits an argument into pieces.
func argSeparator(r rune) bool { return r == '=' || r == ',' || r == ':' || unicode.IsSpace(r) }

// argField reports whether r ends a URL piece (":" does not: "host:8080").
func argField(r rune) bool { return r == '=' || r == ',' || unicode.IsSpace(r) }

// argPieces returns the pieces of a that are checked as paths: a split on
// the separators, URLs (but file: ones) left out.
func argPieces(a string) []string {
	var pieces []string
	for a != "" {
		if m := urlStart.FindString(a); m != "" && !strings.HasPrefix(strings.ToLower(m), "file:") {
			end := strings.IndexFunc(a, argField)
			if end < 0 {
				return pieces
			}
			a = a[end:]
			continue
		}
		end := strings.IndexFunc(a, argSeparator)
		if end < 0 {
			return append(pieces, a)
		}
		if end > 0 {
			pieces = append(pieces, a[:end])
		}
		_, size := utf8.DecodeRuneInString(a[end:])
		a = a[end+size:]
	}
	return pieces
}

// argPathSyntax refuses a script argument with a piece that is absolute
// ("/x", "\\x", "~x") or has a ".." component ("..", "a/../b"; a component
// of dots and blanks only, "...", counts too).
func argPathSyntax(i int, a string) *refusal {
	for _, piece := range argPieces(a) {
		s := strings.ReplaceAll(piece, `\`, "/")
		if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") {
			if piece == a {
				return refuse(ruleArgPath, "args[%d] %s is an absolute path; paths are relative to the project root", i, quote(a))
			}
			return refuse(ruleArgPath, "args[%d] %s holds the absolute path %s (an arg is read as pieces split on blanks, \"=\", \",\" and \":\"); paths are relative to the project root", i, quote(a), quote(piece))
		}
		for _, c := range strings.Split(s, "/") {
			if c != "" && c != "." && strings.Trim(c, ". ") == "" {
				return refuse(ruleArgPath, "args[%d] %s contains %q; paths must stay inside the project root", i, quote(a), c)
			}
		}
	}
	return nil
}
