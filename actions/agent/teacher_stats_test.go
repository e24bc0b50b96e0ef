package agent

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/skills"
)

// The shipped teacher template renders the skills' statistics exactly as
// the built-in prompt does, and leaves the section out without them.
func TestTeacherTemplateShowsSkillStats(t *testing.T) {
	d := &Deps{Deps: &actions.Deps{Root: t.TempDir(), SpecDir: filepath.Join("..", "..", "specs")}}
	lib := []skills.Skill{{Name: "header_first", Principle: "Write the header first.", WhenToApply: "Reports."}}
	stats := "- header_first: injected into 2 step(s); ... → helps"
	got, err := d.render("prompts/teacher.md", &promptData{ExistingSkills: existingSkills(lib), SkillStats: stats})
	if err != nil {
		t.Fatal(err)
	}
	if want := skills.TeacherPromptWithStats("", "", lib, stats); got != want {
		t.Fatalf("template:\n%q\nbuilt-in:\n%q", got, want)
	}
	if !strings.Contains(got, skills.StatsHeading+stats+"\n\n## Answer") {
		t.Errorf("the statistics are not before the answer:\n%s", got)
	}
	if plain := skills.TeacherPromptWithStats("", "", lib, ""); strings.Contains(plain, "How the existing skills did") {
		t.Errorf("no statistics, yet the section is there:\n%s", plain)
	}
}

func TestStatsNoteNamesTheVerdictOfAnAppliedChange(t *testing.T) {
	stats := []skills.SkillStats{{Name: "footer_last", Injected: 2, Verdict: skills.VerdictHurts}, {Name: "idle", Verdict: skills.VerdictUnused}}
	for _, c := range []struct {
		p    skills.Proposal
		want string
	}{
		{skills.Proposal{Action: skills.ActionRemove, SkillName: "footer_last"}, " (stats: hurts; injected into 2 step(s))"},
		{skills.Proposal{Action: skills.ActionUpdate, SkillName: "footer_at_end", OldSkillName: "footer_last"}, " (stats: hurts; injected into 2 step(s))"},
		{skills.Proposal{Action: skills.ActionAdd, SkillName: "footer_last"}, ""},
		{skills.Proposal{Action: skills.ActionRemove, SkillName: "idle"}, ""},
	} {
		if got := statsNote(stats, c.p); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.p, got, c.want)
		}
	}
}
