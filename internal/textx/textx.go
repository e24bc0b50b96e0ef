// Package textx holds the small text helpers that machine, gateway, skills
// and actions share: edit distance for "did you mean" hints, one-line
// rendering, clipping and plurals. It imports nothing of the project, so any package
// may import it.
package textx

import (
	"strconv"
	"strings"
	"unicode"
)

// Levenshtein returns the edit distance between a and b, counted in runes
// (insertions, deletions and substitutions each cost 1).
func Levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// OneLine collapses every run of white space (line breaks included) into one
// space and trims both ends.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Plural returns one when n is 1, else many: Plural(n, "entry", "entries").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count returns n followed by the word in the right number: "1 error",
// "3 errors", "0 entries".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Plural(n, one, many)
}

// Clip shortens s to n runes, the last one an ellipsis when cut.
func Clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// OpensWithTag reports whether s starts with an XML-like tag: "<", an
// optional "/", a letter, then letters, digits, "_", "-" or ":" up to ">"
// or a blank (</skill>, <primary_directive>, <tools x=1>; not "a < b" nor
// "<!--").
func OpensWithTag(s string) bool {
	s, ok := strings.CutPrefix(s, "<")
	if !ok {
		return false
	}
	s = strings.TrimPrefix(s, "/")
	if s == "" || !unicode.IsLetter(rune(s[0])) {
		return false
	}
	end := strings.IndexFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-' && r != ':'
	})
	return end > 0 && (s[end] == '>' || s[end] == ' ' || s[end] == '/')
}

// EscapeTagLines puts a backslash before every line of s whose first
// non-blank text opens with a tag (see OpensWithTag), so that text quoted
// into a prompt (a tool's output, a model's feedback) cannot close or open
// one of the prompt's <blocks>: "  </step_transcript>" becomes
// "  \</step_transcript>".
func EscapeTagLines(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		t := strings.TrimLeft(l, " \t")
		if OpensWithTag(t) {
			lines[i] = l[:len(l)-len(t)] + "\\" + t
		}
	}
	return strings.Join(lines, "\n")
}
