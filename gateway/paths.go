package gateway

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// refusal is a security decision: it becomes a "[SECURITY BLOCKED] rule: detail" result.
type refusal struct {
	rule   string
	detail string
}

func (r *refusal) Error() string { return r.rule + ": " + r.detail }

func refuse(rule, format string, args ...any) *refusal {
	return &refusal{rule: rule, detail: fmt.Sprintf(format, args...)}
}

// Rules a path can break. They are part of the interface (tests and docs name them).
const (
	rulePathEncoding   = "path-encoding"
	rulePathControl    = "path-control-char"
	rulePathLookalike  = "path-lookalike"
	rulePathAbsolute   = "path-absolute"
	rulePathTraversal  = "path-traversal"
	rulePathBlank      = "path-blank"
	rulePathOption     = "path-option"
	ruleSymlinkEscape  = "symlink-escape"
	ruleProtected      = "protected-path"
	ruleReadOnly       = "read-only"
	ruleLinkMove       = "symlink-move"
	ruleParamPattern   = "param-pattern"
	ruleParamTooLong   = "param-too-long"
	ruleBlockedPattern = "blocked-pattern"
	ruleUnknownTool    = "unknown-tool"
	ruleUnknownSubCmd  = "unknown-sub-command"
	ruleScriptExt      = "script-extension"
	ruleScriptLocation = "script-location"
	ruleScriptTooLarge = "script-too-large"
	ruleArgPattern     = "arg-pattern"
	ruleArgPath        = "arg-path"
	ruleArgSpecial     = "arg-special-file"
	ruleTooManyArgs    = "too-many-args"
	ruleEnvKey         = "env-key"
	ruleEnvValue       = "env-value"
	ruleTooManyEnv     = "too-many-env-vars"
	rulePolicy         = "policy-unavailable"
)

// lookalikes are characters that render like a dot, a slash or a backslash.
var lookalikes = map[rune]string{
	'\u2024': "one dot leader", '\u2025': "two dot leader", '\u2026': "ellipsis",
	'\uFE52': "small full stop", '\uFF0E': "fullwidth full stop", '\uFF61': "halfwidth ideographic full stop",
	'\u3002': "ideographic full stop", '\u00B7': "middle dot", '\u2219': "bullet operator",
	'\u2215': "division slash", '\u2044': "fraction slash", '\u29F8': "big solidus",
	'\uFF0F': "fullwidth solidus", '\u2571': "box drawing diagonal", '\u0338': "combining long solidus overlay",
	'\u29F5': "reverse solidus operator", '\u29F9': "big reverse solidus", '\uFE68': "small reverse solidus",
	'\uFF3C': "fullwidth reverse solidus", '\u2216': "set minus", '\u2572': "box drawing diagonal",
}

// checkPathSyntax validates a path the model sent and returns it cleaned:
// slash-separated, relative to the project root, "." for the root itself.
// It touches no file system; resolve does that.
func checkPathSyntax(p string) (string, *refusal) {
	if !utf8.ValidString(p) {
		return "", refuse(rulePathEncoding, "%s is not valid UTF-8", quote(p))
	}
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		switch {
		case r == 0:
			return "", refuse(rulePathControl, "%s contains a NUL byte", quote(p))
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return "", refuse(rulePathControl, "%s contains the control or format character %U", quote(p), r)
		case r == '%' && isHex(p, i+1) && isHex(p, i+2):
			return "", refuse(rulePathEncoding, "%s contains the %%-encoding %q; send the plain characters", quote(p), p[i:i+3])
		}
		if name, ok := lookalikes[r]; ok {
			return "", refuse(rulePathLookalike, "%s contains %U (%s), which looks like a path separator or dot", quote(p), r, name)
		}
		i += size
	}
	s := strings.ReplaceAll(p, `\`, "/")
	switch {
	case strings.HasPrefix(s, "/"):
		return "", refuse(rulePathAbsolute, "%s is absolute; paths are relative to the project root", quote(p))
	case len(s) >= 2 && s[1] == ':' && isLetter(s[0]):
		return "", refuse(rulePathAbsolute, "%s has a drive letter; paths are relative to the project root", quote(p))
	case strings.HasPrefix(s, "~"):
		return "", refuse(rulePathAbsolute, "%s refers to a home directory; paths are relative to the project root", quote(p))
	}
	parts := strings.Split(s, "/")
	clean := parts[:0]
	for _, c := range parts {
		switch {
		case c == "" || c == ".":
			continue
		case strings.TrimSpace(c) == "":
			if strings.TrimSpace(p) == "" {
				return "", refuse(rulePathBlank, "%s is blank; give a path relative to the project root", quote(p))
			}
			return "", refuse(rulePathBlank, "%s has a component made only of blanks (%q); give the path without it", quote(p), c)
		case strings.Trim(c, ". ") == "":
			return "", refuse(rulePathTraversal, "%s contains %q; paths must stay inside the project root", quote(p), c)
		case strings.HasPrefix(c, "-"):
			return "", refuse(rulePathOption, "%s has a component starting with \"-\", which could be read as an option", quote(p))
		}
		clean = append(clean, c)
	}
	if len(clean) == 0 {
		return ".", nil
	}
	return strings.Join(clean, "/"), nil
}

func isHex(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	c := s[i]
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// quote quotes a model-supplied value for a message, shortened to keep results small.
func quote(s string) string {
	const max = 120
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%q…", s[:cut])
	}
	return fmt.Sprintf("%q", s)
}

// errLinkLoop reports too many symbolic links while resolving.
var errLinkLoop = errors.New("too many levels of symbolic links")

// resolve follows the symbolic links of a clean root-relative path inside the
// root, the way the kernel would, and returns the link-free root-relative path.
// Components that do not exist are kept as they are (a write may create them).
// A link that is absolute or climbs above the root is a symlink-escape refusal.
// os.Root enforces the same boundary on every operation; resolve lets the
// gateway name the rule and check protected paths against the real target.
//
// It keeps the directory it has reached open (dirCursor), so each component
// costs one Lstat: looking every prefix up from the root made a path of 1,500
// levels take a second.
func (g *Gateway) resolve(clean, shown string) (string, *refusal, error) {
	if clean == "." {
		return ".", nil, nil
	}
	todo := strings.Split(clean, "/")
	var cur []string
	at := dirCursor{root: g.root}
	defer at.close()
	links := 0
	missing := -1 // cur[missing:] does not exist (yet); -1: all of cur exists
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return "", refuse(ruleSymlinkEscape, "%s goes through a symbolic link that leaves the project root", quote(shown)), nil
			}
			cur = cur[:len(cur)-1]
			at.moved()
			if len(cur) <= missing {
				// A link target such as "nothere/../link": back on existing
				// ground, so what follows must be resolved again.
				missing = -1
			}
			continue
		}
		if missing >= 0 {
			cur = append(cur, c)
			continue
		}
		fi, err := at.lstat(cur, c)
		if err != nil {
			if isEscape(err) {
				return "", refuse(ruleSymlinkEscape, "%s goes through a symbolic link that leaves the project root", quote(shown)), nil
			}
			// Missing (or not a directory): keep the rest literally; the operation reports it.
			missing = len(cur)
			cur = append(cur, c)
			continue
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = append(cur, c)
			if len(todo) > 0 {
				at.enter(c, fi)
			}
			continue
		}
		links++
		if links > 40 {
			return "", nil, fmt.Errorf("cannot resolve %s: %w", quote(shown), errLinkLoop)
		}
		target, err := at.readlink(cur, c)
		if err != nil {
			return "", nil, fmt.Errorf("cannot resolve %s: %w", quote(shown), err)
		}
		if target == "" || strings.HasPrefix(target, "/") {
			return "", refuse(ruleSymlinkEscape, "%s goes through a symbolic link that leaves the project root", quote(shown)), nil
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	if len(cur) == 0 {
		return ".", nil, nil
	}
	return path.Join(cur...), nil, nil
}

// dirCursor is the directory resolve has reached, held open: an os.Root
// opened on it (the gateway's root at first), or nil until it is needed
// after a ".." (it is opened again from the root, by its link-free path).
type dirCursor struct {
	root *os.Root
	dir  *os.Root // nil: open cur from root when needed
	err  error    // why the directory could not be entered (not a directory, no permission)
}

// lstat is Lstat of the entry c of the directory cur names.
func (d *dirCursor) lstat(cur []string, c string) (fs.FileInfo, error) {
	if err := d.open(cur); err != nil {
		return nil, err
	}
	return d.dir.Lstat(c)
}

// readlink is Readlink of the entry c of the directory cur names.
func (d *dirCursor) readlink(cur []string, c string) (string, error) {
	if err := d.open(cur); err != nil {
		return "", err
	}
	return d.dir.Readlink(c)
}

func (d *dirCursor) open(cur []string) error {
	switch {
	case d.err != nil:
		return d.err
	case d.dir != nil:
		return nil
	case len(cur) == 0:
		d.dir = d.root
		return nil
	}
	dir, err := d.root.OpenRoot(strings.Join(cur, "/"))
	if err != nil {
		d.err = err
		return err
	}
	d.dir = dir
	return nil
}

// enter moves into the entry c (described by fi, not a link) of the current
// directory. What is not a directory cannot be entered: the next lookup
// fails, as a lookup of "file/x" from the root would.
func (d *dirCursor) enter(c string, fi fs.FileInfo) {
	if d.err != nil || d.dir == nil {
		return
	}
	var next *os.Root
	var err error
	if fi.IsDir() {
		next, err = d.dir.OpenRoot(c)
	} else {
		err = &fs.PathError{Op: "lstat", Path: c, Err: syscall.ENOTDIR}
	}
	d.close()
	d.dir, d.err = next, err
}

// moved forgets the open directory after a "..": it is opened again, from
// the root, when the next component needs it.
func (d *dirCursor) moved() {
	d.close()
	d.dir, d.err = nil, nil
}

func (d *dirCursor) close() {
	if d.dir != nil && d.dir != d.root {
		d.dir.Close()
	}
	d.dir = nil
}

// isEscape recognises os.Root's refusal to leave the root.
func isEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// within reports whether p equals dir or lies below it (case-insensitively
// and whatever the Unicode composition, "é" or "e" and a combining accent,
// to stay safe on file systems that treat them alike).
func within(p, dir string) bool {
	if dir == "." {
		return true
	}
	if !isASCII(p) || !isASCII(dir) {
		p, dir = norm.NFC.String(p), norm.NFC.String(dir)
	}
	p, dir = trimComponentEnds(p), trimComponentEnds(dir)
	rest, ok := cutPrefixFold(p, dir)
	return ok && (rest == "" || rest[0] == '/')
}

// trimComponentEnds drops the trailing dots and blanks of each component of
// the clean path p ("specs./x " is "specs/x"), as Windows does and as
// hidden_paths matching does, so that protected paths are compared alike.
// A component made only of them is kept.
func trimComponentEnds(p string) string {
	if !hasComponentEnd(p) {
		return p
	}
	parts := strings.Split(p, "/")
	for i, c := range parts {
		if t := strings.TrimRightFunc(c, dotOrSpace); t != "" {
			parts[i] = t
		}
	}
	return strings.Join(parts, "/")
}

// hasComponentEnd reports whether a component of p may end with a dot or a
// blank (a non-ASCII last byte may be a Unicode blank).
func hasComponentEnd(p string) bool {
	for i := 0; i < len(p); i++ {
		if i+1 == len(p) || p[i+1] == '/' {
			if b := p[i]; b == '.' || b == ' ' || b == '\t' || b >= utf8.RuneSelf {
				return true
			}
		}
	}
	return false
}

func dotOrSpace(r rune) bool { return r == '.' || unicode.IsSpace(r) }

// isASCII reports whether s holds ASCII characters only.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// cutPrefixFold reports whether s starts with prefix under Unicode simple case
// folding (as strings.EqualFold: "ſcripts" starts with "scripts", though "ſ"
// is two bytes and "s" one) and returns the rest of s.
func cutPrefixFold(s, prefix string) (string, bool) {
	for prefix != "" {
		if s == "" {
			return "", false
		}
		a, n := utf8.DecodeRuneInString(s)
		b, m := utf8.DecodeRuneInString(prefix)
		if a != b && !equalFoldRune(a, b) {
			return "", false
		}
		s, prefix = s[n:], prefix[m:]
	}
	return s, true
}

func equalFoldRune(a, b rune) bool {
	if a < utf8.RuneSelf && b < utf8.RuneSelf {
		return unicode.ToLower(a) == unicode.ToLower(b)
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

// protectedFor returns the protected path that p is, or lies below; with
// parents set it also returns a protected path lying below p (moving p would
// move it). It returns "" when p is free.
func (g *Gateway) protectedFor(p string, parents bool) string {
	for _, pr := range g.protected {
		if within(p, pr) || parents && within(pr, p) {
			return pr
		}
	}
	return ""
}

// protectedWhy says why a protected path is protected (" (a script directory: ...)"), or "".
func (g *Gateway) protectedWhy(pr string) string {
	if w := g.protWhy[strings.ToLower(pr)]; w != "" {
		return " (" + w + ")"
	}
	return ""
}
