package agent

import (
	"path/filepath"
	"testing"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/skills"
)

// The shipped teacher template renders exactly the built-in prompt, so the
// spec names a template without changing what the teacher is asked.
func TestTeacherTemplateMatchesBuiltInPrompt(t *testing.T) {
	d := &Deps{Deps: &actions.Deps{Root: t.TempDir(), SpecDir: filepath.Join("..", "..", "specs")}}
	lib := []skills.Skill{
		{Name: "verify_output_paths", Principle: "Read files back.", WhenToApply: "After writing\nfiles."},
		{Name: "small_steps", Principle: "One change per step.", WhenToApply: "Always."},
	}
	for _, tt := range []struct {
		name             string
		success, failure string
		existing         []skills.Skill
	}{
		{"nothing", "", "", nil},
		{"cases and skills", "### [2025-01-02 03:04 UTC]\n- **Step:** 1\n", "  ### [x]\n- **Step:** 2\n\n", lib},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := d.render("prompts/teacher.md", &promptData{SuccessCases: tt.success, FailureCases: tt.failure, ExistingSkills: existingSkills(tt.existing)})
			if err != nil {
				t.Fatal(err)
			}
			if want := skills.TeacherPrompt(tt.success, tt.failure, tt.existing); got != want {
				t.Fatalf("template:\n%q\nbuilt-in:\n%q", got, want)
			}
		})
	}
}
