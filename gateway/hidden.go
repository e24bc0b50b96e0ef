package gateway

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Hidden paths (policy key hidden_paths) are paths the model may not see at
// all: secrets such as .env files and private keys, .git (remote URLs can hold
// tokens) and the run directory (LLM logs). No sub-command accepts one, listings
// leave them out, and script arguments naming one are refused.
//
// A pattern is a root-relative path.Match glob, compared case-insensitively:
//
//   - without "/" it matches one path component at any depth: ".env" hides
//     ".env", "sub/.env" and everything below a directory called ".env";
//   - with "/" it is anchored at the root and matches the leading components:
//     "config/secrets" hides "config/secrets" and everything below it.
//
// Every path is checked as written and after resolving its symbolic links, so
// a link "notes -> .env" is hidden too.

const ruleHidden = "path-hidden"

// compileHidden cleans and validates one hidden_paths entry. Bad globs are
// errors, so a policy with a typo fails closed instead of hiding nothing.
func compileHidden(raw string) (HiddenPattern, error) {
	s := strings.TrimSpace(raw)
	switch {
	case s == "":
		return HiddenPattern{}, errors.New("empty pattern")
	case strings.Contains(s, `\`):
		return HiddenPattern{}, fmt.Errorf("%q contains a backslash; use \"/\" between components and [*] for a literal *", raw)
	case strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~"):
		return HiddenPattern{}, fmt.Errorf("%q must be relative to the project root", raw)
	}
	c := path.Clean(s)
	if c == "." {
		return HiddenPattern{}, fmt.Errorf("%q names the project root", raw)
	}
	var parts []string
	for _, part := range strings.Split(c, "/") {
		switch {
		case part == "..":
			return HiddenPattern{}, fmt.Errorf("%q leaves the project root", raw)
		case strings.Contains(part, "**"):
			return HiddenPattern{}, fmt.Errorf("%q: ** is not supported (a pattern without \"/\" already matches at any depth)", raw)
		}
		lp := foldLower(part)
		if _, err := path.Match(lp, ""); err != nil {
			return HiddenPattern{}, fmt.Errorf("%q is not a valid glob: %v", raw, err)
		}
		parts = append(parts, lp)
	}
	return HiddenPattern{Pattern: c, parts: parts}, nil
}

// lowerComponents splits a clean path and case-folds each component once.
func lowerComponents(rel string, buf []string) []string {
	for c := range strings.SplitSeq(rel, "/") {
		buf = append(buf, foldLower(c))
	}
	return buf
}

// foldLower lower-cases s so that strings equal under Unicode case folding
// come out equal: besides strings.ToLower, "ſ" (long s) becomes "s" and the
// Kelvin sign "k", as a case-insensitive file system would treat them. It
// composes s first (NFC): a name copied from macOS spells "é" as "e" and a
// combining accent, and the pattern "données" must hide it as well.
func foldLower(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s) // no allocation when already lower-case
	}
	s = norm.NFC.String(s)
	return strings.Map(func(r rune) rune {
		low := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < low {
				low = f
			}
		}
		return unicode.ToLower(low)
	}, s)
}

// matchComponent matches a lower-cased component as it is and without
// trailing dots and blanks (which some file systems drop: ".env." is ".env").
func matchComponent(pattern, c string) bool {
	if ok, _ := path.Match(pattern, c); ok {
		return true
	}
	if t := strings.TrimRightFunc(c, func(r rune) bool { return r == '.' || unicode.IsSpace(r) }); t != c && t != "" {
		ok, _ := path.Match(pattern, t)
		return ok
	}
	return false
}

// hiddenBy returns the pattern that hides rel (a clean, root-relative,
// slash-separated path; "." is the root), or "".
func (p *Policy) hiddenBy(rel string) string {
	if rel == "." || rel == "" || len(p.Hidden) == 0 {
		return ""
	}
	var buf [16]string
	comps := lowerComponents(rel, buf[:0])
	for _, h := range p.Hidden {
		if len(h.parts) == 1 {
			for _, c := range comps {
				if matchComponent(h.parts[0], c) {
					return h.Pattern
				}
			}
			continue
		}
		if len(comps) >= len(h.parts) && matchPrefix(h.parts, comps) {
			return h.Pattern
		}
	}
	return ""
}

// hiddenBelow returns an anchored pattern that could hide something strictly
// below rel (moving rel would move such paths out from under the pattern), or "".
func (p *Policy) hiddenBelow(rel string) string {
	var buf [16]string
	comps := buf[:0]
	if rel != "." && rel != "" {
		comps = lowerComponents(rel, comps)
	}
	for _, h := range p.Hidden {
		if len(h.parts) > len(comps) && matchPrefix(h.parts[:len(comps)], comps) {
			return h.Pattern
		}
	}
	return ""
}

// matchPrefix reports whether comps[i] (lower-cased) matches parts[i] for every part.
func matchPrefix(parts, comps []string) bool {
	for i, pt := range parts {
		if !matchComponent(pt, comps[i]) {
			return false
		}
	}
	return true
}

// hiddenRefusal words a path-hidden refusal. what names the value
// ("read_file.path", "args[0]", "script_name"); viaLink says the pattern
// matched the symlink-resolved path only.
func hiddenRefusal(what, shown, pattern string, viaLink bool) *refusal {
	how := "matches"
	if viaLink {
		how = "leads through a symbolic link to a path matching"
	}
	return refuse(ruleHidden, "%s %s %s the hidden path pattern %q (hidden_paths in the policy); hidden paths are never shown to the model", what, quote(shown), how, pattern)
}

// checkHidden refuses a path whose literal or resolved form is hidden.
func (g *Gateway) checkHidden(what, shown, literal, resolved string) *refusal {
	if pat := g.policy.hiddenBy(literal); pat != "" {
		return hiddenRefusal(what, shown, pat, false)
	}
	if resolved != literal {
		if pat := g.policy.hiddenBy(resolved); pat != "" {
			return hiddenRefusal(what, shown, pat, true)
		}
	}
	return nil
}

// hiddenEntry reports whether a directory entry must be left out of a listing:
// its path as listed (lit) or as stored (res, link-free up to the entry) is
// hidden, or it is a symbolic link leading to a hidden path.
func (g *Gateway) hiddenEntry(lit, res string, e fs.DirEntry) bool {
	if g.policy.hiddenBy(lit) != "" || g.policy.hiddenBy(res) != "" {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	target, r, err := g.resolve(res, res)
	return r == nil && err == nil && g.policy.hiddenBy(target) != ""
}

// argPaths refuses a script argument naming a hidden path, or a path that
// goes through a symbolic link leaving the root. The argument is split on
// blanks, "=", "," and ":" (so "--out=.env" counts) and each piece is checked
// as a root-relative path, as written and through symbolic links. This is an
// early filter: scripts themselves are not sandboxed, and one that checks
// paths only lexically would follow a link out of the root.
func (g *Gateway) argPaths(i int, a string) *refusal {
	what := fmt.Sprintf("args[%d]", i)
	// URLs are split too: "https://host/.env" is refused as naming .env.
	var pieces []string
	for _, piece := range strings.FieldsFunc(a, argSeparator) {
		pieces = append(append(pieces, piece), optionValues(piece, g.isDir)...)
	}
	for _, piece := range pieces {
		var comps []string
		for _, c := range strings.Split(strings.ReplaceAll(piece, `\`, "/"), "/") {
			if c != "" && c != "." {
				comps = append(comps, c)
			}
		}
		if len(comps) == 0 {
			continue
		}
		lit := strings.Join(comps, "/")
		if pat := g.policy.hiddenBy(lit); pat != "" {
			return hiddenRefusal(what, a, pat, false)
		}
		// argPathSyntax has refused the absolute and ".." pieces already.
		// Every other piece is resolved, even one the path syntax of the
		// file sub-commands refuses ("ext/-x", "ext/100%25"): a script opens
		// it as it is, through whatever link it starts with.
		{
			clean := lit
			res, r, err := g.resolve(clean, lit)
			if r != nil {
				return refuse(r.rule, "%s %s goes through a symbolic link that leaves the project root; scripts get paths inside it only", what, quote(a))
			}
			if err == nil && res != clean {
				if pat := g.policy.hiddenBy(res); pat != "" {
					return hiddenRefusal(what, a, pat, true)
				}
			}
			if err == nil {
				if kind := g.specialFile(res); kind != "" {
					return refuse(ruleArgSpecial, "%s %s names %s inside the project; scripts are given regular files and directories only (a script opening it could wait until the timeout)", what, quote(a), kind)
				}
				if fi, err := g.root.Stat(res); err == nil {
					if r := g.hardLinked(what, a, fi); r != nil {
						return r
					}
				}
			}
		}
	}
	return nil
}

// specialFile names the kind of the root-relative path p when it is neither
// a regular file nor a directory (a FIFO, a socket, a device), else "".
// Stat does not open the file, so it cannot block on a FIFO.
func (g *Gateway) specialFile(p string) string {
	fi, err := g.root.Stat(p)
	if err != nil || fi.Mode().IsRegular() || fi.IsDir() {
		return ""
	}
	return modeKind(fi.Mode())
}

// modeKind names the kind of file m describes, for messages.
func modeKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

// hiddenNote is the listing footer counting the entries left out.
func hiddenNote(n int) string {
	if n == 1 {
		return "(1 hidden entry not shown)"
	}
	return fmt.Sprintf("(%d hidden entries not shown)", n)
}
