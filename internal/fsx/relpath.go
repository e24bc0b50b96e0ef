package fsx

import (
	"path"
	"strings"
)

// CleanRel returns p cleaned, with "/", when it is a relative path that
// stays inside the folder it is read from (not empty, not absolute, no
// "..", no NUL); false otherwise.
func CleanRel(p string) (string, bool) {
	s := strings.ReplaceAll(p, `\`, "/")
	c := path.Clean(s)
	if s == "" || path.IsAbs(s) || c == ".." || strings.HasPrefix(c, "../") || strings.ContainsRune(s, 0) {
		return "", false
	}
	return c, true
}
