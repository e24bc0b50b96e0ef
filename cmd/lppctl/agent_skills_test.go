package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lppctl/lppctl/skills"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The skill library in the agent's prompts (relevant_skills) and the
// teacher step (skill.teacher), end to end through the fake OpenAI server.

// relevantBlock is what the prompt templates add for .RelevantSkills.
const relevantBlock = "{{if .RelevantSkills}}\n{{.RelevantSkills}}{{end}}"

// libraryFile is the default library of a project.
func libraryFile(root string) string { return filepath.Join(root, skills.DefaultLibraryPath) }

// writeLibrary stores skills as the project's default library.
func writeLibrary(t *testing.T, root string, list ...skills.Skill) {
	t.Helper()
	m := map[string]skills.Skill{}
	for _, s := range list {
		m[s.Name] = s
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, libraryFile(root), string(b))
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readLibrary(t *testing.T, root string) map[string]skills.Skill {
	t.Helper()
	lib, err := skills.Open(libraryFile(root))
	if err != nil {
		t.Fatal(err)
	}
	list, err := lib.List()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]skills.Skill{}
	for _, s := range list {
		m[s.Name] = s
	}
	return m
}

// withoutRelevantSkills turns the project back into what it was before the
// feature: no .RelevantSkills block in the templates, no relevant_skills
// parameter in the spec.
func withoutRelevantSkills(t *testing.T, root string) {
	t.Helper()
	for _, name := range []string{"planner_user.md", "optimizer_user.md"} {
		path := filepath.Join(root, "specs", "prompts", name)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(string(b), relevantBlock) != 1 {
			t.Fatalf("%s lacks the block %q", name, relevantBlock)
		}
		writeFile(t, path, strings.Replace(string(b), relevantBlock, "", 1))
	}
	path := filepath.Join(root, "specs", "skills_agent.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const param = "      relevant_skills: relevant_skills\n"
	if strings.Count(string(b), param) != 2 {
		t.Fatalf("the spec does not pass relevant_skills to the planner and prepare_step")
	}
	writeFile(t, path, strings.ReplaceAll(string(b), param, ""))
}

var (
	greetSkill = skills.Skill{Name: "greet_by_name", Principle: "Greet people by their name with the skill's own greet script.",
		WhenToApply: "When a task asks to greet someone."}
	// unrelated skills share no word with hello_skill's text or the plan.
	ledgerSkill = skills.Skill{Name: "reconcile_ledgers", Principle: "Reconcile ledgers against bank statements monthly.",
		WhenToApply: "Accounting closes."}
	currencySkill = skills.Skill{Name: "normalise_currency", Principle: "Convert amounts into euros before summing.",
		WhenToApply: "Invoices mixing currencies."}
)

// oneStepScript plans "greet Ada" and passes it at once.
func oneStepScript() string {
	return "replies:\n" + planner("greet Ada") +
		reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] greeted")) +
		reply("evaluator", 1, pass(`"GREETING": "Hello, Ada!"`))
}

// prompts are the planner's request and the optimizer's first one, with
// the project root replaced so that runs in different roots compare.
func prompts(t *testing.T, f *fakeLLM, root string) []chatMsg {
	t.Helper()
	pl, opt := f.requests("planner", 0), f.requests("optimizer", 1)
	if len(pl) == 0 || len(opt) == 0 {
		t.Fatalf("planner calls %d, optimizer calls %d", len(pl), len(opt))
	}
	var out []chatMsg
	for _, m := range append(pl[0].Messages, opt[0].Messages...) {
		m.Content = strings.ReplaceAll(m.Content, root, "ROOT")
		out = append(out, m)
	}
	return out
}

// Without skills to inject the prompts are byte for byte those of the
// templates and spec without the feature.
func TestAgentPromptsUnchangedWithoutRelevantSkills(t *testing.T) {
	base := newProject(t, "hello_skill")
	withoutRelevantSkills(t, base)
	writeLibrary(t, base, greetSkill) // would show if anything still injected it
	f := newFakeLLM(t, oneStepScript())
	if res := runAgent(t, base, f, "--yes"); res.code != 0 {
		t.Fatalf("baseline: exit %d\n%s", res.code, res.all())
	}
	want := prompts(t, f, base)
	if strings.Contains(want[1].Content, "Relevant Skills") {
		t.Fatal("the baseline injected skills")
	}

	for _, tc := range []struct {
		name    string
		library string // "" = no file
		args    []string
		note    string // expected in the output
	}{
		{name: "no library file"},
		{name: "empty library", library: "{}"},
		{name: "relevant_skills 0", library: "skills", args: []string{"--var", "relevant_skills=0"}},
		{name: "only unrelated skills", library: "unrelated"},
		{name: "broken library", library: "not json", note: "warning: no relevant skills in the prompt: cannot load skill library"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := newProject(t, "hello_skill")
			switch tc.library {
			case "":
			case "skills":
				writeLibrary(t, root, greetSkill, ledgerSkill)
			case "unrelated":
				writeLibrary(t, root, ledgerSkill, currencySkill)
			default:
				writeFile(t, libraryFile(root), tc.library)
			}
			before, _ := os.ReadFile(libraryFile(root))
			f := newFakeLLM(t, oneStepScript())
			res := runAgent(t, root, f, append([]string{"--yes"}, tc.args...)...)
			if res.code != 0 || !strings.Contains(res.out, "completed in done") {
				t.Fatalf("exit %d\n%s", res.code, res.all())
			}
			got := prompts(t, f, root)
			if len(got) != len(want) {
				t.Fatalf("%d messages, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("message %d (%s) differs from the prompt without the feature:\n--- got\n%s\n--- want\n%s", i, got[i].Role, got[i].Content, want[i].Content)
				}
			}
			if tc.note != "" && !strings.Contains(res.out, tc.note) {
				t.Errorf("output lacks %q:\n%s", tc.note, res.out)
			}
			if strings.Contains(res.out, "relevant skills from") {
				t.Errorf("skills were reported as injected:\n%s", res.out)
			}
			// nothing was searched, so no usage was recorded
			if after, _ := os.ReadFile(libraryFile(root)); string(after) != string(before) {
				t.Errorf("the library changed:\n%s", after)
			}
		})
	}
}

// With a relevant skill in the library, the planner's and the optimizer's
// prompts carry the section; unrelated skills stay out, and the use is
// recorded once per prompt build.
func TestAgentRelevantSkillsInPlannerAndOptimizerPrompts(t *testing.T) {
	root := newProject(t, "hello_skill")
	writeLibrary(t, root, greetSkill, ledgerSkill, currencySkill)
	f := newFakeLLM(t, oneStepScript())
	res := runAgent(t, root, f, "--yes")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.all())
	}
	section := "## Relevant Skills (learned from past experience)\n\n" +
		"1. **greet_by_name**\n" +
		"   - Principle: Greet people by their name with the skill's own greet script.\n" +
		"   - When to apply: When a task asks to greet someone.\n\n" +
		"Consider these skills when planning your approach.\n"
	plannerUser := f.requests("planner", 0)[0].Messages[1].Content
	if !strings.Contains(plannerUser, "</skill>\n\n"+section+"\n<tools>") {
		t.Errorf("the planner's prompt lacks the section between </skill> and <tools>:\n%s", plannerUser)
	}
	optUser := f.requests("optimizer", 1)[0].Messages[1].Content
	if !strings.Contains(optUser, "</primary_directive>\nLikely tools: safe_cli_executor\n\n"+section+"\nValues from earlier steps") {
		t.Errorf("the optimizer's prompt lacks the section after the directive:\n%s", optUser)
	}
	for _, p := range []string{plannerUser, optUser} {
		if strings.Contains(p, "reconcile_ledgers") || strings.Contains(p, "normalise_currency") || strings.Contains(p, "2. **") {
			t.Errorf("unrelated (zero-score) skills were injected:\n%s", p)
		}
	}
	// the section is in the step's first prompt only, which stays in L3 for the step's later rounds
	for _, want := range []string{"plan: relevant skills from .lppctl/skills.json: greet_by_name", "prepare_step_context: relevant skills from .lppctl/skills.json: greet_by_name"} {
		if !strings.Contains(res.out, want) {
			t.Errorf("output lacks %q:\n%s", want, res.out)
		}
	}
	lib := readLibrary(t, root)
	if got := lib["greet_by_name"].UsageCount; got != 2 {
		t.Errorf("greet_by_name usage = %d, want 2 (planner + one step)", got)
	}
	if lib["reconcile_ledgers"].UsageCount != 0 || lib["normalise_currency"].UsageCount != 0 {
		t.Errorf("unrelated skills were counted as used: %+v", lib)
	}
}

// relevant_skills caps how many skills go in, best first; --skills-library
// names another library.
func TestAgentRelevantSkillsTopK(t *testing.T) {
	root := newProject(t, "hello_skill")
	var list []skills.Skill
	for _, w := range []string{"alpha", "bravo", "charlie", "delta", "echo"} {
		list = append(list, skills.Skill{Name: "greet_" + w, Principle: "Greet with the " + w + " style.", WhenToApply: "Greetings."})
	}
	list = append(list, ledgerSkill)
	m := map[string]skills.Skill{}
	for _, s := range list {
		m[s.Name] = s
	}
	b, _ := json.Marshal(m)
	other := filepath.Join(root, "libs", "team.json")
	writeFile(t, other, string(b))
	f := newFakeLLM(t, oneStepScript())
	res := runAgent(t, root, f, "--yes", "--var", "relevant_skills=2", "--skills-library", other)
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.all())
	}
	for _, p := range []string{f.requests("planner", 0)[0].Messages[1].Content, f.requests("optimizer", 1)[0].Messages[1].Content} {
		if !strings.Contains(p, "1. **greet_") || !strings.Contains(p, "2. **greet_") || strings.Contains(p, "3. **") {
			t.Errorf("want exactly 2 skills:\n%s", p)
		}
	}
	if !strings.Contains(res.out, "relevant skills from libs/team.json: ") {
		t.Errorf("output does not name the library:\n%s", res.out)
	}
	if _, err := os.Stat(libraryFile(root)); err == nil {
		t.Error("the default library was created")
	}
}

const teacherProposals = "Here is what I learned:\n\n```json\n" + `[
  {"action": "add", "skill_name": "verify_output_files", "principle": "Read a written file back (or run its checker) before reporting success.", "when_to_apply": "Whenever a step writes an output file.", "reason": "step 1 passed once the file was checked"},
  {"action": "add", "skill_name": "greet_ada_run_42", "principle": "Greet Ada.", "when_to_apply": "In run 42.", "reason": "it worked"},
  {"action": "add", "skill_name": "verify_output_files", "principle": "Check outputs.", "when_to_apply": "Always.", "reason": "again"}
]` + "\n```\n"

// The teacher turns this run's cases into library changes: the valid one
// is applied, the instance-specific and duplicate ones are rejected with
// their reasons; a reply without proposals only warns.
func TestAgentTeacherUpdatesLibrary(t *testing.T) {
	t.Run("proposals applied and rejected", func(t *testing.T) {
		root := newProject(t, "hello_skill")
		editSpec(t, root, "with: {enabled: run_teacher,", "with: {enabled: true,")
		// an older run's case, which the teacher must not see (cases: run)
		md := filepath.Join(root, "skills", "hello_skill", "skills.md")
		if err := skills.AppendSuccess(md, "older-run/7", mustTime(t, "2024-05-06T07:08:00Z"), skills.SuccessCase{Step: 1, Instruction: "an old instruction"}); err != nil {
			t.Fatal(err)
		}
		f := newFakeLLM(t, oneStepScript()+"  - role: teacher\n    text: "+yamlQuote(teacherProposals)+"\n")
		res := runAgent(t, root, f, "--yes")
		if res.code != 0 || !strings.Contains(res.out, "completed in done") {
			t.Fatalf("exit %d\n%s", res.code, res.all())
		}
		tr := f.requests("teacher", -1)
		if len(tr) != 1 {
			t.Fatalf("teacher calls = %d", len(tr))
		}
		prompt := tr[0].Messages[0].Content
		if !strings.Contains(prompt, "- **Instruction:** greet Ada") || strings.Contains(prompt, "an old instruction") {
			t.Errorf("the teacher must see this run's cases only:\n%s", prompt)
		}
		lib := readLibrary(t, root)
		if len(lib) != 1 || lib["verify_output_files"].Principle != "Read a written file back (or run its checker) before reporting success." || lib["verify_output_files"].CreatedIteration != 1 {
			t.Fatalf("library = %+v", lib)
		}
		for _, want := range []string{
			"teach: skill library .lppctl/skills.json: 3 proposal(s), 1 applied, 2 rejected",
			`teach: applied: add "verify_output_files" — step 1 passed once the file was checked`,
			`teach: rejected: proposal 2 (add "greet_ada_run_42"): skill name "greet_ada_run_42" contains a run, job, issue or step number`,
			`teach: rejected: proposal 3 (add "verify_output_files"): skill "verify_output_files" is already named by proposal 1`,
		} {
			if !strings.Contains(res.out, want) {
				t.Errorf("output lacks %q:\n%s", want, res.out)
			}
		}
	})
	t.Run("malformed reply only warns", func(t *testing.T) {
		root := newProject(t, "hello_skill")
		f := newFakeLLM(t, oneStepScript()+"  - role: teacher\n    text: 'The run went well; I would not change anything.'\n")
		res := runAgent(t, root, f, "--yes", "--var", "run_teacher=true")
		if res.code != 0 || !strings.Contains(res.out, "completed in done") {
			t.Fatalf("exit %d\n%s", res.code, res.all())
		}
		if len(f.requests("teacher", -1)) != 1 {
			t.Fatal("the teacher was not asked")
		}
		if !strings.Contains(res.out, "teach: warning: the teacher's reply held no usable proposals, .lppctl/skills.json is unchanged") {
			t.Errorf("no warning:\n%s", res.out)
		}
		if _, err := os.Stat(libraryFile(root)); err == nil {
			t.Error("the library was written")
		}
	})
	t.Run("a teacher model that stays down only warns and the run completes", func(t *testing.T) {
		root := newProject(t, "hello_skill")
		f := newFakeLLM(t, oneStepScript()+"  - role: teacher\n    text: "+yamlQuote(teacherProposals)+"\n")
		f.fail = func(n int) int { // the planner, the optimizer and the evaluator answer; the teacher never does
			if n >= 4 {
				return http.StatusInternalServerError
			}
			return 0
		}
		res := runAgent(t, root, f, "--yes", "--var", "run_teacher=true")
		require.Equal(t, 0, res.code, res.all())
		assert.Contains(t, res.out, "warning: the teacher failed; the skill library is unchanged\n[9] teach → done  on_error")
		assert.Contains(t, res.out, "completed in done after 10 steps")
		assert.Contains(t, res.out, "teach: action failed: cannot get the teacher's reply: cannot call openai:test-model at "+f.srv.URL+": gave up after 3 attempts, the last one failed with HTTP 500 (server error): the server said: injected HTTP 500")
		_, err := os.Stat(libraryFile(root))
		assert.True(t, os.IsNotExist(err), "the library was written")
	})
	t.Run("off by default", func(t *testing.T) {
		root := newProject(t, "hello_skill")
		f := newFakeLLM(t, oneStepScript())
		res := runAgent(t, root, f, "--yes")
		if res.code != 0 || !strings.Contains(res.out, "teach: teacher disabled") {
			t.Fatalf("exit %d\n%s", res.code, res.all())
		}
		if n := len(f.requests("teacher", -1)); n != 0 {
			t.Fatalf("teacher calls = %d", n)
		}
	})
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// The planner reads the max_cases most recent entries of each learning
// section of skills.md, so its prompt stops growing with every run; the
// file itself keeps them all.
func TestAgentPlannerReadsTheMostRecentCases(t *testing.T) {
	var b strings.Builder
	b.WriteString("\n## Success Cases\n\n")
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "### [2025-01-%02d 10:00 UTC]\n<!-- lppctl:entry old/%d -->\n- **Step:** 1\n- case number %d\n\n", i, i, i)
	}
	for _, tc := range []struct {
		vars       []string
		first      int
		leftOutMsg string
	}{
		{nil, 3, "(2 older entries left out; the 10 most recent follow)"},
		{[]string{"--var", "max_cases=4"}, 9, "(8 older entries left out; the 4 most recent follow)"},
		{[]string{"--var", "max_cases=0"}, 1, ""},
	} {
		root := newProject(t, "hello_skill")
		md := filepath.Join(root, "skills", "hello_skill", "skills.md")
		orig, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, md, string(orig)+b.String())
		f := newFakeLLM(t, oneStepScript())
		res := runAgent(t, root, f, append([]string{"--yes"}, tc.vars...)...)
		if res.code != 0 {
			t.Fatalf("%v: exit %d\n%s", tc.vars, res.code, res.all())
		}
		p := f.requests("planner", 0)[0].Messages[1].Content
		if strings.Contains(p, fmt.Sprintf("case number %d\n", tc.first-1)) || !strings.Contains(p, fmt.Sprintf("case number %d\n", tc.first)) || !strings.Contains(p, "case number 12\n") {
			t.Errorf("%v: want cases %d to 12 in the planner's prompt:\n%s", tc.vars, tc.first, p)
		}
		if tc.leftOutMsg != "" && !strings.Contains(p, tc.leftOutMsg) {
			t.Errorf("%v: the prompt does not say %q:\n%s", tc.vars, tc.leftOutMsg, p)
		}
		if tc.leftOutMsg == "" && strings.Contains(p, "older entries left out") {
			t.Errorf("%v: entries were left out:\n%s", tc.vars, p)
		}
		if after, _ := os.ReadFile(md); !strings.Contains(string(after), "case number 1\n") {
			t.Errorf("%v: skills.md lost its old entries", tc.vars)
		}
	}
}
