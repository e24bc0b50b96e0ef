package skills

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	greetNFC = "gr\u00e9et"  // é precomposed
	greetNFD = "gre\u0301et" // e and a combining acute accent
)

func storedNames(t *testing.T, lib *Library) []string {
	t.Helper()
	list, err := lib.List()
	require.NoError(t, err)
	var out []string
	for _, s := range list {
		out = append(out, s.Name)
	}
	return out
}

func TestNamesThatDifferOnlyInNormalisationNameOneSkill(t *testing.T) {
	lib := mustOpen(t, libPath(t))
	mustAdd(t, lib, Skill{Name: greetNFD, Principle: "Greet warmly.", WhenToApply: "greeting"})
	assert.Equal(t, []string{greetNFC}, storedNames(t, lib), "stored in NFC")

	mustAdd(t, lib, Skill{Name: greetNFC, Principle: "Greet by name.", WhenToApply: "greeting"})
	got, err := lib.Get(greetNFD)
	require.NoError(t, err)
	assert.Equal(t, "Greet by name.", got.Principle, "the add replaced the skill")
	assert.Equal(t, []string{greetNFC}, storedNames(t, lib))

	hits, err := lib.SearchHits(context.Background(), greetNFD, 1)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	nfc, err := lib.SearchHits(context.Background(), greetNFC, 1)
	require.NoError(t, err)
	assert.Equal(t, nfc[0].Score, hits[0].Score, "the query is read in NFC: the accented letter is one letter")

	mustAdd(t, lib, Skill{Name: "wave", Principle: "Wave.", WhenToApply: "leaving"})
	_, err = lib.Update("wave", Update{Name: ptr(greetNFD)})
	require.EqualError(t, err, `cannot update skill "wave": a skill named "`+greetNFC+`" already exists: invalid`)

	up, err := lib.Update(greetNFD, Update{WhenToApply: ptr("meeting someone")})
	require.NoError(t, err)
	assert.Equal(t, greetNFC, up.Name)

	require.NoError(t, lib.Remove(greetNFD))
	assert.Equal(t, []string{"wave"}, storedNames(t, lib))
}

func TestALibraryWithNormalisationTwinsStaysReadableAndGetsNoNewOnes(t *testing.T) {
	path := libPath(t)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	// Written by another tool: two names that look the same, and ậ spelled
	// two ways neither of which is NFC (U+1EAD) or NFD.
	require.NoError(t, os.WriteFile(path, []byte(`{
  "gr\u00e9et": {"principle": "one", "when_to_apply": "a"},
  "gre\u0301et": {"principle": "two", "when_to_apply": "b"},
  "\u1ea1\u0302": {"principle": "three", "when_to_apply": "c"},
  "\u00e2\u0323": {"principle": "four", "when_to_apply": "d"},
  "wave": {"principle": "five", "when_to_apply": "e"}
}`), 0o644))
	lib := mustOpen(t, path)

	for name, principle := range map[string]string{greetNFC: "one", greetNFD: "two", "\u1ea1\u0302": "three", "\u00e2\u0323": "four"} {
		s, err := lib.Get(name)
		require.NoError(t, err, "each twin is read by its exact spelling")
		assert.Equal(t, principle, s.Principle)
	}
	list, err := lib.List()
	require.NoError(t, err)
	assert.Equal(t, `skill names "gre\u0301et" and "gr\u00e9et" differ only in Unicode normalisation and look the same; rename or remove all but one, naming it exactly as spelled here in $'...'
skill names "\u00e2\u0323" and "\u1ea1\u0302" differ only in Unicode normalisation and look the same; rename or remove all but one, naming it exactly as spelled here in $'...'`, TwinsWarning(list))

	_, err = lib.Get("\u1ead")
	require.EqualError(t, err, `cannot get skill: skill name "ậ" matches 2 skills whose names differ only in Unicode normalisation ("\u00e2\u0323" and "\u1ea1\u0302"); name one exactly as stored, e.g. with its code points in $'...': invalid`)
	err = lib.Remove("\u1ead")
	require.EqualError(t, err, `cannot remove skill "ậ": skill name "ậ" matches 2 skills whose names differ only in Unicode normalisation ("\u00e2\u0323" and "\u1ea1\u0302"); name one exactly as stored, e.g. with its code points in $'...': invalid`)
	err = lib.Add(Skill{Name: "\u1ead", Principle: "p", WhenToApply: "w"})
	require.ErrorIs(t, err, ErrInvalid, "which of the two it would replace is not known")

	_, err = lib.Update(greetNFD, Update{Name: ptr(greetNFC)})
	require.EqualError(t, err, `cannot update skill "`+greetNFD+`": a skill named "`+greetNFC+`" already exists, spelled "gr\u00e9et": the names differ only in Unicode normalisation, so they would look the same: invalid`)
	_, err = lib.Update("wave", Update{Name: ptr("\u1ead")})
	require.EqualError(t, err, `cannot update skill "wave": a skill named "ậ" already exists, spelled "\u00e2\u0323" and "\u1ea1\u0302": the names differ only in Unicode normalisation, so they would look the same: invalid`)

	require.NoError(t, lib.Remove(greetNFD))
	s, err := lib.Get(greetNFD)
	require.NoError(t, err, "the other spelling is the one left")
	assert.Equal(t, "one", s.Principle)
}

func TestTheTeachersProposalsNameSkillsInAnyNormalisation(t *testing.T) {
	lib := mustOpen(t, libPath(t))
	mustAdd(t, lib,
		Skill{Name: greetNFC, Principle: "Greet warmly.", WhenToApply: "greeting"},
		Skill{Name: "caf\u00e9_order", Principle: "Order coffee.", WhenToApply: "ordering"})
	rep, err := lib.Apply([]Proposal{
		{Action: ActionUpdate, SkillName: greetNFD, Principle: "Greet by name."},
		{Action: ActionRemove, SkillName: "cafe\u0301_order"},
	}, 2)
	require.NoError(t, err)
	require.Empty(t, rep.Rejected)
	got, err := lib.List()
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, Skill{Name: greetNFC, Principle: "Greet by name.", WhenToApply: "greeting"}, got[0])

	errs := ValidateProposals([]Proposal{
		{Action: ActionUpdate, SkillName: greetNFC, Principle: "x"},
		{Action: ActionRemove, SkillName: greetNFD},
	}, got)
	require.NoError(t, errs[0])
	require.EqualError(t, errs[1], `proposal 2 (remove "`+greetNFC+`"): skill "`+greetNFC+`" is already named by proposal 1: invalid`)
}
