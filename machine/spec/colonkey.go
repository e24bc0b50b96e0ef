package spec

import (
	"fmt"
	"regexp"
	"slices"
)

// colonKeyRE is a key YAML read from a line whose colon was left out
// before a flow value: `next [{to: b}]` is the key "next [{to" (its value
// "b}]"), `set {n: n + 1}` the key "set {n".
var colonKeyRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.-]*) +([{\[].*)$`)

// ColonLeftOut tells whether an unknown key (with its value) is a known
// one whose colon was left out before a flow value: it returns the known
// key and the line as it should be.
func ColonLeftOut(key string, value any, known []string) (name, fixed string, ok bool) {
	m := colonKeyRE.FindStringSubmatch(key)
	if m == nil || !slices.Contains(known, m[1]) {
		return "", "", false
	}
	return m[1], fmt.Sprintf("%s: %s: %v", m[1], m[2], value), true
}

// plainPairRE is a text that reads as a key and its value whose colon was
// left out: `message the plan was rejected`.
var plainPairRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.-]*) +(\S.*)$`)
