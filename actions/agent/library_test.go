package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/skills"
)

func TestRunEntriesKeepsThisRunsEntries(t *testing.T) {
	section := "intro text\n\n" +
		"### [2025-01-01 00:00 UTC]\n<!-- lppctl:entry old/3 -->\n- **Step:** 1\n\n" +
		"### [2025-01-02 00:00 UTC]\n<!-- lppctl:entry run-1/5 -->\n- **Step:** 1\n  more\n\n" +
		"### [2025-01-02 00:01 UTC]\n<!-- lppctl:entry run-10/6 -->\n- **Step:** 9\n\n" +
		"### [2025-01-02 00:02 UTC]\n<!-- lppctl:entry run-1/9 -->\n- **Step:** 2"
	got := runEntries(section, "run-1/")
	want := "### [2025-01-02 00:00 UTC]\n<!-- lppctl:entry run-1/5 -->\n- **Step:** 1\n  more\n\n" +
		"### [2025-01-02 00:02 UTC]\n<!-- lppctl:entry run-1/9 -->\n- **Step:** 2"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if runEntries(section, "nobody/") != "" || runEntries("", "run-1/") != "" {
		t.Fatal("no entries expected")
	}
}

func TestSkillQueryLeavesOutTheCases(t *testing.T) {
	text := "# s\n\n## Goal\n\nGreet Ada.\n\n## Success Cases\n\n### [x]\n- `safe_py_runner` {\"args\":[]}\n\n## Failure Cases\n\n### [y]\n- boom\n\n## Human Feedback\n\nbe brief\n"
	q := skillQuery(text)
	for _, gone := range []string{"safe_py_runner", "boom"} {
		if strings.Contains(q, gone) {
			t.Errorf("query keeps %q:\n%s", gone, q)
		}
	}
	for _, kept := range []string{"Greet Ada.", "be brief"} {
		if !strings.Contains(q, kept) {
			t.Errorf("query lacks %q:\n%s", kept, q)
		}
	}
}

func TestLibraryPathDefaultsUnderTheRoot(t *testing.T) {
	d := &Deps{Deps: &actions.Deps{Root: "/p"}}
	if got := d.libraryPath(); got != filepath.FromSlash("/p/.lppctl/skills.json") {
		t.Errorf("default = %s", got)
	}
	d.SkillsLibrary = "lib/x.json"
	if got := d.libraryPath(); got != filepath.FromSlash("/p/lib/x.json") {
		t.Errorf("relative = %s", got)
	}
	d.SkillsLibrary = "/abs/x.json"
	if got := d.libraryPath(); got != "/abs/x.json" {
		t.Errorf("absolute = %s", got)
	}
}

// TestAgentRunsAreLibraryIterations: a skill the teacher adds in run 1 and a
// prompt uses in run 3 (run 2 used nothing) has created_iteration 1 and
// last_used_iteration 3; steps and resumes of run 3 stay in iteration 3.
func TestAgentRunsAreLibraryIterations(t *testing.T) {
	ctx := context.Background()
	d := &Deps{Deps: &actions.Deps{Root: t.TempDir()}}
	call := func(run string) *machine.Call {
		return &machine.Call{RunID: run, Action: "llm.planner", Params: map[string]any{"relevant_skills": 3}}
	}
	path := d.libraryPath()

	// Run 1: no library yet, so no relevant skills and nothing is created...
	if got, _, err := d.relevantSkills(ctx, call("run-1"), "check the outputs"); got != "" || err != nil {
		t.Fatalf("run 1 prompt = %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Fatalf("ranking against a missing library created %s", filepath.Dir(path))
	}
	// ...then the teacher adds a skill, as skill.teacher does.
	lib, err := d.openLibrary(call("run-1"), path)
	if err != nil {
		t.Fatal(err)
	}
	it, err := lib.Iteration()
	if err != nil || it != 1 {
		t.Fatalf("run 1 is iteration %d, %v", it, err)
	}
	if _, err := lib.Apply([]skills.Proposal{{Action: skills.ActionAdd, SkillName: "check_outputs", Principle: "Check every output file.", WhenToApply: "Before reporting success."}}, it); err != nil {
		t.Fatal(err)
	}

	// Run 2: the library is consulted but nothing relevant is found.
	if got, _, err := d.relevantSkills(ctx, call("run-2"), "greet somebody"); got != "" || err != nil {
		t.Fatalf("run 2 prompt = %q, %v", got, err)
	}
	// Run 3 uses the skill in two prompts (plan and a step).
	for range 2 {
		got, _, err := d.relevantSkills(ctx, call("run-3"), "check the output files")
		if err != nil || !strings.Contains(got, "**check_outputs**") {
			t.Fatalf("run 3 prompt = %q, %v", got, err)
		}
	}
	s, err := mustLib(t, path).Get("check_outputs")
	if err != nil || s.CreatedIteration != 1 || s.LastUsedIteration != 3 || s.UsageCount != 2 {
		t.Errorf("skill = %+v, %v; want created 1, last used 3, used twice", s, err)
	}
	// A resumed run 3 is still iteration 3.
	if lib, err := d.openLibrary(call("run-3"), path); err != nil {
		t.Fatal(err)
	} else if it, _ := lib.Iteration(); it != 3 {
		t.Errorf("resumed run 3 is iteration %d", it)
	}
}

func mustLib(t *testing.T, path string) *skills.Library {
	t.Helper()
	lib, err := skills.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return lib
}
