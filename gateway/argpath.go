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

// optionValues returns what a script may read as a file name inside the
// piece besides the piece itself: the value glued to a short option
// ("-o/etc/passwd" is "-o /etc/passwd" to argparse and getopt, and in a
// group "-vo/etc/passwd" the value may start after any letter), and the
// file of arguments that "@FILE" names (argparse's fromfile_prefix_chars).
// Long options ("--out/x") take a value only after "=" or as the next arg.
//
// A value glued to the first letter that names a path through a folder of
// the project ("-odocs/x.md", docs being a folder) is that path and only
// that: the group reading ("-o -d -o -c -s /x.md") is not taken, so the
// argument is judged as the path it names. isDir reports whether a
// root-relative name is a folder of the project; nil takes every reading.
func optionValues(piece string, isDir func(string) bool) []string {
	if strings.HasPrefix(piece, "@") {
		return []string{piece[1:]}
	}
	if !strings.HasPrefix(piece, "-") || strings.HasPrefix(piece, "--") {
		return nil
	}
	if v := namedPath(piece, isDir); v != "" {
		return []string{v}
	}
	var out []string
	i := 1
	for ; i < len(piece) && isOptionLetter(piece[i]); i++ {
		if v := piece[i+1:]; v != "" && i <= maxOptionGroup {
			out = append(out, v)
		}
	}
	if i > maxOptionGroup+1 && i < len(piece) {
		out = append(out, piece[i:]) // what follows a longer group of letters
	}
	return out
}

// namedPath returns the value glued to the short option that starts piece
// ("docs/x.md" of "-odocs/x.md") when its first component, made of option
// letters only, is a folder of the project and a separator follows it;
// else "".
func namedPath(piece string, isDir func(string) bool) string {
	if isDir == nil || len(piece) < 3 || !isOptionLetter(piece[1]) {
		return ""
	}
	v := piece[2:]
	end := strings.IndexAny(v, `/\`)
	if end <= 0 {
		return ""
	}
	for j := 0; j < end; j++ {
		if !isOptionLetter(v[j]) {
			return "" // "-o./x", "-o.cache/x": no letter of a group reads the "/"
		}
	}
	if strings.ContainsAny(v[end+1:min(end+2, len(v))], `/\`) || !isDir(v[:end]) {
		return "" // "-odocs//etc/passwd": a second slash reads as an absolute path after "-s"
	}
	return v
}

// maxOptionGroup is how many letters of a group of short options
// ("-vxo/path") are each taken as the one whose value may follow; the text
// after a longer group is checked too, so the work stays linear in the arg.
const maxOptionGroup = 16

// isOptionLetter reports whether b can name a short option (-o, -1).
func isOptionLetter(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// argPathSyntax refuses a script argument with a piece that is absolute
// ("/x", "\\x", "~x") or has a ".." component ("..", "a/../b"; a component
// of dots and blanks only, "...", counts too), also as the value of a short
// option or an @FILE (optionValues).
func argPathSyntax(i int, a string, isDir func(string) bool) *refusal {
	for _, piece := range argPieces(a) {
		if r := argPieceSyntax(i, a, piece, ""); r != nil {
			return r
		}
		for _, v := range optionValues(piece, isDir) {
			if r := argPieceSyntax(i, a, v, piece[:len(piece)-len(v)]); r != nil {
				return r
			}
		}
	}
	return nil
}

// argPieceSyntax checks one piece of the argument a; after is the option
// ("-o", "@") the piece follows, or "".
func argPieceSyntax(i int, a, piece, after string) *refusal {
	s := strings.ReplaceAll(piece, `\`, "/")
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") {
		switch {
		case after != "":
			return refuse(ruleArgPath, "args[%d] %s holds the absolute path %s after %s (a script may read the letters after \"-\" as options and the rest as the last one's value, and @FILE as a file of arguments); paths are relative to the project root: give an option's value as the next arg", i, quote(a), quote(piece), quote(after))
		case piece == a:
			return refuse(ruleArgPath, "args[%d] %s is an absolute path; paths are relative to the project root", i, quote(a))
		}
		return refuse(ruleArgPath, "args[%d] %s holds the absolute path %s (an arg is read as pieces split on blanks, \"=\", \",\" and \":\"); paths are relative to the project root", i, quote(a), quote(piece))
	}
	for _, c := range strings.Split(s, "/") {
		if c != "" && c != "." && strings.Trim(c, ". ") == "" {
			return refuse(ruleArgPath, "args[%d] %s contains %q; paths must stay inside the project root", i, quote(a), c)
		}
	}
	return nil
}

// isDir reports whether the root-relative name is a folder of the project
// (through links that stay inside the root).
func (g *Gateway) isDir(name string) bool {
	fi, err := g.root.Stat(name)
	return err == nil && fi.IsDir()
}
