package validate

import (
	"fmt"
	"regexp"
	"strings"
)

// Hints for expr's compile errors that say what is wrong but not how to
// write it right: a built-in function called with the wrong number of
// arguments, and an expression too large to compile.

// builtinUsage is how each expression built-in is called (expr-lang's
// language definition); a hint for a wrong number of arguments quotes it.
var builtinUsage = map[string]string{
	"all": "all(list, predicate)", "none": "none(list, predicate)", "any": "any(list, predicate)",
	"one": "one(list, predicate)", "filter": "filter(list, predicate)", "map": "map(list, expression)",
	"find": "find(list, predicate)", "findIndex": "findIndex(list, predicate)",
	"findLast": "findLast(list, predicate)", "findLastIndex": "findLastIndex(list, predicate)",
	"count": "count(list) or count(list, predicate)", "sum": "sum(list) or sum(list, expression)",
	"groupBy": "groupBy(list, expression)", "sortBy": "sortBy(list, expression) or sortBy(list, expression, \"desc\")",
	"reduce": "reduce(list, expression) or reduce(list, expression, initial)",
	"len":    "len(v), v a string, list or map", "type": "type(v)",
	"abs": "abs(n)", "ceil": "ceil(n)", "floor": "floor(n)", "round": "round(n)",
	"int": "int(v)", "float": "float(v)", "string": "string(v)",
	"trim": "trim(s) or trim(s, chars)", "trimPrefix": "trimPrefix(s, prefix)", "trimSuffix": "trimSuffix(s, suffix)",
	"upper": "upper(s)", "lower": "lower(s)",
	"split": "split(s, sep) or split(s, sep, n)", "splitAfter": "splitAfter(s, sep) or splitAfter(s, sep, n)",
	"replace": "replace(s, old, new) or replace(s, old, new, n)", "repeat": "repeat(s, n)",
	"join": "join(list) or join(list, sep)", "indexOf": "indexOf(s, sub)", "lastIndexOf": "lastIndexOf(s, sub)",
	"hasPrefix": "hasPrefix(s, prefix)", "hasSuffix": "hasSuffix(s, suffix)",
	"max": "max(n, ...) or max(list)", "min": "min(n, ...) or min(list)",
	"mean": "mean(n, ...) or mean(list)", "median": "median(n, ...) or median(list)",
	"toJSON": "toJSON(v)", "fromJSON": "fromJSON(s)", "toBase64": "toBase64(s)", "fromBase64": "fromBase64(s)",
	"now": "now()", "duration": "duration(s), s like \"1h30m\"",
	"date": "date(s), date(s, layout) or date(s, layout, timezone)", "timezone": "timezone(name)",
	"first": "first(list)", "last": "last(list)", "get": "get(list or map, index or key)",
	"take": "take(list, n)", "keys": "keys(map)", "values": "values(map)",
	"toPairs": "toPairs(map)", "fromPairs": "fromPairs(list)", "reverse": "reverse(list)",
	"uniq": "uniq(list)", "concat": "concat(list, list, ...)", "flatten": "flatten(list)",
	"sort":   "sort(list) or sort(list, \"desc\")",
	"bitand": "bitand(a, b)", "bitor": "bitor(a, b)", "bitxor": "bitxor(a, b)", "bitnand": "bitnand(a, b)",
	"bitshl": "bitshl(a, n)", "bitshr": "bitshr(a, n)", "bitushr": "bitushr(a, n)", "bitnot": "bitnot(a)",
}

// arityRE matches expr's messages for a call with a wrong number of arguments.
var arityRE = regexp.MustCompile(`^(invalid number of arguments|not enough arguments to call|too many arguments to call|expected at least \d+ arguments?)`)

// maxNodesHint explains expr's "expression exceeds maximum allowed nodes".
const maxNodesHint = "an expression may have at most 2000 parts (names, literals, operators, calls): " +
	"compute it in steps, in several set entries or states, or keep the data in a list variable"

// exprHint returns a hint for the expr error message msg, reported at col
// (1-based) of line, or "".
func exprHint(msg, line string, col int) string {
	switch {
	case strings.Contains(msg, "exceeds maximum allowed nodes"):
		return maxNodesHint
	case msg == "unexpected token EOF":
		return "the expression ends too early: an operator, a comma or an opened bracket still needs what follows it"
	case strings.HasPrefix(msg, "literal not terminated"):
		return "a string is not closed: end it with the quote it starts with ('...' or \"...\")"
	case msg == `unexpected token Operator("=")`:
		return "compare with ==: a single = is not an operator of expressions (set: assigns)"
	case strings.HasPrefix(msg, "unexpected token"):
		return "expressions are expr's (https://expr-lang.org/docs/language-definition): names, literals ('text', 3, true, [1, 2], {k: 1}), operators and calls"
	case arityRE.MatchString(msg):
		if name := calledFunc(line, col); name != "" {
			if u, ok := builtinUsage[name]; ok {
				return fmt.Sprintf("%s is called as %s", name, u)
			}
		}
	}
	return ""
}

// calledFunc returns the name of the function whose call is written at col
// of line: the name written at col when a `(` follows it, else the name
// before the innermost parenthesis still open at col.
func calledFunc(line string, col int) string {
	runes := []rune(line)
	if col < 1 || col > len(runes) {
		return ""
	}
	if name := identStartRE.FindString(string(runes[col-1:])); name != "" {
		rest := strings.TrimLeft(string(runes[col-1+len([]rune(name)):]), " ")
		if strings.HasPrefix(rest, "(") {
			return name
		}
	}
	depth := 0
	for i := col - 2; i >= 0; i-- {
		switch runes[i] {
		case ')':
			depth++
		case '(':
			if depth > 0 {
				depth--
				continue
			}
			before := strings.TrimRight(string(runes[:i]), " ")
			return identEndRE.FindString(before)
		}
	}
	return ""
}

// identStartRE and identEndRE match the identifier that starts or ends a string.
var (
	identStartRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*`)
	identEndRE   = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*$`)
)
