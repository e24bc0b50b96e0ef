package validate

import (
	"fmt"
	"regexp"
	"strings"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// A context variable the spec uses but does not declare is one mistake
// however often it is used: mergeUndeclared reports it once, at its first
// use, the hint naming the other places, instead of one error a use. Only a
// name near no declared variable counts (no "did you mean": a misspelling
// is a mistake at each place, and each keeps its error).
// The same goes for a state that transitions and events go to but that the
// spec does not define (a state deleted, or not written yet).
var undeclaredRE = []*regexp.Regexp{
	regexp.MustCompile(`^set: unknown context variable "([A-Za-z_][A-Za-z0-9_]*)"$`),
	regexp.MustCompile(`^action "[^"]*" writes context variable "([A-Za-z_][A-Za-z0-9_]*)", which the spec does not declare$`),
	regexp.MustCompile(`: unknown name ([A-Za-z_][A-Za-z0-9_]*)$`),
}

var unknownStateRE = regexp.MustCompile(`^(?:transition|event "[^"]*" goes) to unknown state "([A-Za-z_][A-Za-z0-9_]*)"$`)

// undeclaredName returns what d reports as undeclared ("var NAME", "state
// NAME"), or "".
func undeclaredName(d mspec.Diagnostic) string {
	if d.Severity != mspec.SevError || strings.Contains(d.Hint, "did you mean") {
		return ""
	}
	for _, re := range undeclaredRE {
		if m := re.FindStringSubmatch(d.Msg); m != nil {
			return "var " + m[1]
		}
	}
	if m := unknownStateRE.FindStringSubmatch(d.Msg); m != nil {
		return "state " + m[1]
	}
	return ""
}

// mergeUndeclared keeps the first error (in file order) about each
// undeclared variable used in several places and drops the others, naming
// their places in its hint. diags is sorted.
func mergeUndeclared(diags mspec.Diagnostics) mspec.Diagnostics {
	first := map[string]int{}
	also := map[string][]string{}
	out := diags[:0]
	for _, d := range diags {
		name := undeclaredName(d)
		if name == "" || d.File != diags[0].File {
			out = append(out, d)
			continue
		}
		if _, seen := first[name]; seen {
			also[name] = append(also[name], fmt.Sprintf("%d:%d", d.Pos.Line, d.Pos.Col))
			continue
		}
		first[name] = len(out)
		out = append(out, d)
	}
	for key, i := range first {
		if places := also[key]; len(places) > 0 {
			kind, name, _ := strings.Cut(key, " ")
			hint, used := out[i].Hint, "used"
			if kind == "state" {
				used = "named"
			} else if strings.HasPrefix(hint, "context variables: ") || hint == "" {
				hint = fmt.Sprintf("declare it under context:, e.g. `%s: string`", name)
			}
			out[i].Hint = fmt.Sprintf("%s; %s is also %s at %s", hint, name, used, strings.Join(places, ", "))
		}
	}
	return out
}
