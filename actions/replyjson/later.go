package replyjson

import (
	"encoding/json"
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
// the last of answers and looks like another answer: an object whose first
// key is quoted ({"... or {'...) and that gives a key of that answer (want,
// when it is not ""). A { in prose ("use {name}") is not one, nor a
// fragment of other JSON ("it reads {\"text\": ...} on stdin" after a plan).
func laterBroken(s string, answers, broken []Span, want string) error {
	if len(answers) == 0 {
		return nil
	}
	last := answers[len(answers)-1]
	keys := []string{want}
	if want == "" {
		keys = topKeys(last.Text)
	}
	for _, b := range broken {
		if b.Start < last.End || !looksLikeAnswer(s[b.Start:b.End], keys) {
			continue
		}
		l, c := LineCol(s, last.Start)
		bl, bc := LineCol(s, b.Start)
		return &LaterBrokenError{msg: fmt.Sprintf("the reply holds a JSON object at line %d, column %d, after the one at line %d, column %d, that does not parse (%s), so which one is the answer cannot be told; answer with one valid JSON object, your answer, and nothing else (no draft)", bl, bc, l, c, jsonSyntaxProblem(s, b.Start, b.err))}
	}
	return nil
}

// looksLikeAnswer reports whether an object's text starts with a quoted key
// and gives one of keys as a key, in either quotes.
func looksLikeAnswer(obj string, keys []string) bool {
	rest := strings.TrimLeft(strings.TrimPrefix(obj, "{"), " \t\r\n")
	if rest == "" || rest[0] != '"' && rest[0] != '\'' {
		return false
	}
	for _, k := range keys {
		for _, q := range []string{`"`, `'`} {
			for at := 0; ; {
				i := strings.Index(obj[at:], q+k+q)
				if i < 0 {
					break
				}
				at += i + len(q+k+q)
				if strings.HasPrefix(strings.TrimLeft(obj[at:], " \t"), ":") {
					return true
				}
			}
		}
	}
	return false
}

// topKeys are the keys of a JSON object text (none for another value).
func topKeys(text string) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &m) != nil {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// isLaterBroken reports whether err is a *LaterBrokenError.
func isLaterBroken(err error) bool {
	var lb *LaterBrokenError
	return errors.As(err, &lb)
}
