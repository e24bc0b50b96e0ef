// Package sample finds values a guard holds for, where the model checker
// cannot read one off the guard: a short string a regular expression
// matches (for `s matches PATTERN`). It is pure: it imports nothing of the
// module.
package sample

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// MaxLen bounds the samples' length (the checker's padded lengths).
const MaxLen = 64

// Regex returns a short string the regular expression pattern
// matches, for `s matches PATTERN`: the pattern itself is rarely one
// ("^[0-9]+$" does not match "^[0-9]+$"), and a string variable compared
// only so would otherwise never take the branch. ok is false when the
// pattern does not parse, or no sample is found (a lookaround-free walk
// that takes each alternation's first branch and each repeat's minimum).
func Regex(pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !sampleOf(re.Simplify(), &b) || b.Len() > MaxLen {
		return "", false
	}
	s := b.String()
	if ok, err := regexp.MatchString(pattern, s); err != nil || !ok {
		return "", false
	}
	return s, true
}

// sampleOf writes to b a string re matches (anchors and word boundaries
// match the empty string where the walk puts them; the final match check
// refuses what they do not allow).
func sampleOf(re *syntax.Regexp, b *strings.Builder) bool {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		if len(re.Rune) < 2 {
			return false
		}
		b.WriteRune(classRune(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpCapture:
		return sampleOf(re.Sub[0], b)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !sampleOf(sub, b) {
				return false
			}
		}
	case syntax.OpAlternate:
		return sampleOf(re.Sub[0], b)
	case syntax.OpPlus:
		return sampleOf(re.Sub[0], b)
	case syntax.OpRepeat:
		for i := 0; i < re.Min; i++ {
			if !sampleOf(re.Sub[0], b) {
				return false
			}
		}
	case syntax.OpStar, syntax.OpQuest, syntax.OpEmptyMatch,
		syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
	default:
		return false
	}
	return true
}

// classRune picks a rune of a character class (pairs lo, hi): a letter or
// digit when the class holds one, else its first.
func classRune(ranges []rune) rune {
	for i := 0; i+1 < len(ranges); i += 2 {
		for _, want := range []rune{'a', 'A', '0'} {
			if ranges[i] <= want && want <= ranges[i+1] {
				return want
			}
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i] >= '!' && ranges[i] <= '~' {
			return ranges[i]
		}
	}
	return ranges[0]
}
