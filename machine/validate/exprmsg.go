package validate

import (
	"fmt"
	"regexp"
	"strings"
)

// expr's compile errors name its lexer's token kinds (Operator(">"),
// Bracket(")"), EOF) and Go's types (time.Time, int[int]); a spec's author
// knows neither. exprMessage words them as the spec does.

// exprTypeNames renames the Go types in expr's messages to the spec's types.
var exprTypeNames = strings.NewReplacer("[]interface {}", "list", "map[string]interface {}", "map",
	"interface {}", "any", "float64", "float", "*time.Location", "time zone", "time.Time", "time",
	"time.Duration", "duration")

var (
	// unexpectedTokenRE matches expr's parse error for a token out of place.
	unexpectedTokenRE = regexp.MustCompile(`^unexpected token (Operator|Bracket|Identifier|Number|String)\("(.*)"\)$`)
	// indexUndefinedRE matches expr's error for an index into a value that has none.
	indexUndefinedRE = regexp.MustCompile(`^type (.+)\[(\w+)\] is undefined$`)
)

// nilTypeRE matches expr's name of the nil literal's type where a type is
// expected.
var nilTypeRE = regexp.MustCompile(`(but got |mismatched types |mismatched types \w+ and )unknown( and |\)|$)`)

// exprMessage returns expr's compile error message msg in the spec's words.
func exprMessage(msg string) string {
	if msg == "unexpected token EOF" {
		return "unexpected end of the expression"
	}
	if m := unexpectedTokenRE.FindStringSubmatch(msg); m != nil {
		switch m[1] {
		case "Identifier":
			return fmt.Sprintf("unexpected name %s", m[2])
		case "Number":
			return fmt.Sprintf("unexpected number %s", m[2])
		case "String":
			return fmt.Sprintf("unexpected string %q", m[2])
		}
		return fmt.Sprintf("unexpected %q", m[2])
	}
	msg = exprTypeNames.Replace(msg)
	// expr types the nil literal "unknown"
	msg = nilTypeRE.ReplaceAllString(msg, "${1}nil$2")
	if m := indexUndefinedRE.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("a value of type %s cannot be indexed: only a list, a map or a string can", m[1])
	}
	return strings.Replace(msg, "array elements can only be selected using an integer", "list items are selected by an int", 1)
}

// expectedTypeRE matches expr's error for a result of the wrong type (its
// types renamed by exprMessage: float, list, map, not Go's): a
// guard that is not a bool, a set of another type than its variable's.
var expectedTypeRE = regexp.MustCompile(`^expected (\w+), but got (\w+)$`)

// expectedTypeHint says how to give a result of type want, not got.
func expectedTypeHint(want, got string) string {
	if (got == "unknown" || got == "nil") && want != "bool" {
		article := "a"
		if want == "int" || want == "any" {
			article = "an"
		}
		return fmt.Sprintf("the variable is not nullable: declare it `nullable: true` to store nil, or give %s %s", article, want)
	}
	switch want {
	case "bool":
		return "a condition is true or false: compare the value, e.g. n > 0, s != \"\", len(l) > 0"
	case "string":
		return "convert it with string(...), or write a text in quotes inside the value: '\"text\"'"
	case "int", "float":
		if got == "string" {
			return fmt.Sprintf("numbers are written without quotes; a text that holds a number is converted with %s(...)", want)
		}
		return fmt.Sprintf("give a number: convert it with %s(...)", want)
	}
	return ""
}
