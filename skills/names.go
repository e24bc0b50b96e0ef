package skills

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Skill names are compared in Unicode normalisation form C: "gréet" typed
// with the precomposed é (U+00E9) and "gréet" typed as e and a combining
// acute accent (U+0065 U+0301) look the same, so they name the same skill.
// New names are stored in NFC. A library written by another tool may hold
// two names that differ only in normalisation: both stay readable (each by
// its exact spelling), but no change makes a new pair.

// NormalName returns name in Unicode normalisation form C, as skill names
// are stored and compared.
func NormalName(name string) string { return norm.NFC.String(name) }

// storedName finds the stored name of the skill called name among the
// names for which has reports true: name itself when stored so, else the
// one stored name of the same NFC form. names lists every stored name
// (any order). found is false when there is none; an error (wrapping
// ErrInvalid) when several differ only in normalisation and none is
// spelled exactly as name.
func storedName(name string, names []string) (stored string, found bool, err error) {
	if slices.Contains(names, name) {
		return name, true, nil
	}
	twins := sameNormal(name, names, "")
	switch len(twins) {
	case 0:
		return "", false, nil
	case 1:
		return twins[0], true, nil
	}
	return "", false, fmt.Errorf("skill name %q matches %d skills whose names differ only in Unicode normalisation (%s); name one exactly as stored, e.g. with its code points in $'...': %w",
		name, len(twins), spellings(twins), ErrInvalid)
}

// sameNormal returns the names, other than except, whose NFC form is
// name's, sorted.
func sameNormal(name string, names []string, except string) []string {
	n := NormalName(name)
	var out []string
	for _, k := range names {
		if k != except && NormalName(k) == n {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// takenBy refuses a new name whose NFC form is that of a stored name other
// than self (the skill being renamed, "" for none): two skills that look
// the same.
func takenBy(name string, names []string, self string) error {
	twins := sameNormal(name, names, self)
	if len(twins) == 0 {
		return nil
	}
	if len(twins) == 1 && twins[0] == name && NormalName(self) != NormalName(name) {
		return fmt.Errorf("a skill named %q already exists: %w", name, ErrInvalid)
	}
	return fmt.Errorf("a skill named %q already exists, spelled %s: the names differ only in Unicode normalisation, so they would look the same: %w",
		name, spellings(twins), ErrInvalid)
}

// spellings shows names with their code points past ASCII, so that two
// names that look the same can be told apart: "gre\u0301et".
func spellings(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		var b strings.Builder
		b.WriteByte('"')
		for _, r := range n {
			switch {
			case r < 0x80 && r != '"' && r != '\\':
				b.WriteRune(r)
			case r <= 0xffff:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		}
		b.WriteByte('"')
		out[i] = b.String()
	}
	return strings.Join(out, " and ")
}

// NormalisationTwins returns the groups of stored names that differ only
// in Unicode normalisation (written by another tool: lppctl refuses to
// make them), each group sorted, for a warning. Each name of such a group
// is read, changed and removed by its exact spelling.
func NormalisationTwins(list []Skill) [][]string {
	byForm := map[string][]string{}
	var forms []string
	for _, s := range list {
		n := NormalName(s.Name)
		if len(byForm[n]) == 0 {
			forms = append(forms, n)
		}
		byForm[n] = append(byForm[n], s.Name)
	}
	var out [][]string
	for _, f := range forms {
		if g := byForm[f]; len(g) > 1 {
			slices.Sort(g)
			out = append(out, g)
		}
	}
	return out
}

// TwinsWarning words NormalisationTwins for the user, "" when there are none.
func TwinsWarning(list []Skill) string {
	var lines []string
	for _, g := range NormalisationTwins(list) {
		lines = append(lines, fmt.Sprintf("skill names %s differ only in Unicode normalisation and look the same; rename or remove all but one, naming it exactly as spelled here in $'...'", spellings(g)))
	}
	return strings.Join(lines, "\n")
}

// canonical spells the names of p as the library does: the skill an
// update or remove acts on by its stored name (found as storedName finds
// it), a new name in NFC. A name that matches several stored names is a
// problem of p, reported by check.
func (c *proposalChecker) canonical(p Proposal) Proposal {
	names := slices.Collect(maps.Keys(c.names))
	find := func(name string) string {
		if name == "" {
			return ""
		}
		stored, ok, err := storedName(name, names)
		if err != nil {
			p.typeErrs = append(slices.Clip(p.typeErrs), err)
			return name
		}
		if ok {
			return stored
		}
		return NormalName(name)
	}
	switch p.Action {
	case ActionRemove:
		p.SkillName = find(p.SkillName)
	case ActionUpdate:
		if p.OldSkillName == "" {
			p.SkillName = find(p.SkillName)
			break
		}
		p.OldSkillName = find(p.OldSkillName)
		if p.SkillName = NormalName(p.SkillName); p.SkillName == NormalName(p.OldSkillName) {
			p.SkillName = p.OldSkillName // no rename
		}
	default:
		p.SkillName = NormalName(p.SkillName)
		p.OldSkillName = NormalName(p.OldSkillName)
	}
	return p
}

// exists reports whether a skill other than except is named name, compared
// in NFC.
func (c *proposalChecker) exists(name, except string) bool {
	return len(sameNormal(name, slices.Collect(maps.Keys(c.names)), except)) > 0
}
