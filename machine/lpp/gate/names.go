package gate

import (
	"regexp"
	"slices"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// IdentRE is what lppctl accepts as a state, variable or event name.
var IdentRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// StateVar is the property a gate's `_state` reads: the blueprint state the
// run rests in.
const StateVar = "lpp_current_state"

// PayloadVar is the property holding the last event's payload, for the
// translation's helper states (a gate printed back reads
// event.payload.FIELD from it there).
const PayloadVar = "lpp_payload"

// ReservedName reports names lppctl expressions read as keywords, that
// the interpreter sets itself, or of functions a translation calls: the
// gate functions (py_round, ...), len and get, and merge (a dotted set). A
// variable of such a name would hide the function (a property named merge
// broke the translation of a dotted set); the blueprint's name is kept in
// messages, diagrams and exports.
func ReservedName(s string) bool {
	return slices.Contains([]string{"in", "not", "and", "or", "matches", "contains", "startsWith", "endsWith",
		"let", "if", "else", "true", "false", "nil", "state", "last_error", "event", "len", "get", mspec.FnMerge}, s) ||
		slices.Contains(mspec.PyFuncNames(), s)
}

// lppRefused are the names lpp's evaluator refuses in a gate, even as
// context keys (lpp-format.md §8 lists eval, open, input, type, print, dir,
// help, vars, exit, quit and more; the others here are the builtins such
// lists always hold): a gate that reads one is false in lpp.
var lppRefused = []string{"eval", "exec", "compile", "open", "input", "type", "print", "dir", "help", "vars",
	"exit", "quit", "globals", "locals", "getattr", "setattr", "delattr", "__import__", "breakpoint"}

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
