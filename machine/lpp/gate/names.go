package gate

import (
	"regexp"
	"slices"
)

// IdentRE is what lppctl accepts as a state, variable or event name.
var IdentRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// StateVar is the property a gate's `_state` reads: the blueprint state the
// run rests in.
const StateVar = "lpp_current_state"

// ReservedName reports names lppctl expressions read as keywords or that
// the interpreter sets itself.
func ReservedName(s string) bool {
	return slices.Contains([]string{"in", "not", "and", "or", "matches", "contains", "startsWith", "endsWith",
		"let", "if", "else", "true", "false", "nil", "state", "last_error", "event"}, s)
}

// TypeArticle names an lpp property type with its article: "an integer",
// "a string".
func TypeArticle(t string) string {
	switch t {
	case "integer":
		return "an integer"
	case "array", "object":
		return "an " + t
	}
	return "a " + t
}
