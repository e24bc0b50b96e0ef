package replyjson

import (
	"errors"
	"fmt"
	"strings"
)

// LaterBrokenError is the error for a reply that holds a JSON object that
// parses and, after it, one that looks like an answer but does not parse:
// a draft, then the final answer written in single quotes, with a comment,
// or cut at the token limit. The later one is the answer by its place, so
// the earlier one is never taken for it.
type LaterBrokenError struct {
	msg string
}

func (e *LaterBrokenError) Error() string { return e.msg }

// laterBroken returns a *LaterBrokenError when one of broken (the objects
// of s that do not parse, none inside an object that does) starts after
// the last of answers and looks like an answer: an object whose first key
// is quoted ({"... or {'...), and, when want is not "", that names want.
// A { in prose ("use {name}") is not one.
func laterBroken(s string, answers, broken []Span, want string) error {
	if len(answers) == 0 {
		return nil
	}
	last := answers[len(answers)-1]
	for _, b := range broken {
		if b.Start < last.End || !looksLikeAnswer(s[b.Start:b.End], want) {
			continue
		}
		l, c := LineCol(s, last.Start)
		bl, bc := LineCol(s, b.Start)
		return &LaterBrokenError{msg: fmt.Sprintf("the reply holds a JSON object at line %d, column %d, after the one at line %d, column %d, that does not parse (%s), so which one is the answer cannot be told; answer with one valid JSON object, your answer, and nothing else (no draft)", bl, bc, l, c, jsonSyntaxProblem(s, b.Start, b.err))}
	}
	return nil
}

// looksLikeAnswer reports whether an object's text starts with a quoted key
// and, when want is not "", names want as a key in either quotes.
func looksLikeAnswer(obj, want string) bool {
	rest := strings.TrimLeft(strings.TrimPrefix(obj, "{"), " \t\r\n")
	if rest == "" || rest[0] != '"' && rest[0] != '\'' {
		return false
	}
	return want == "" || strings.Contains(obj, `"`+want+`"`) || strings.Contains(obj, `'`+want+`'`)
}

// isLaterBroken reports whether err is a *LaterBrokenError.
func isLaterBroken(err error) bool {
	var lb *LaterBrokenError
	return errors.As(err, &lb)
}
