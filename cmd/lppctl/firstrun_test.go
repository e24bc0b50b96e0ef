package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lppctl/lppctl/skills"
)

// The README's two commands in order: the demo appends to the checkout's
// skills/hello_skill/skills.md, and the tests that follow must not see it.

func TestPristineSkillsMDUndoesWhatRunsLearned(t *testing.T) {
	for _, tc := range []struct {
		name, original string
	}{
		{"no learning sections", "# s\n\n## Goal\n\nGreet Ada.\n"},
		{"CRLF line endings", "# s\r\n\r\n## Goal\r\n\r\nGreet Ada.\r\n"},
		{"an entry a person wrote stays", "# s\n\n## Success Cases\n\n### [2024-05-06 07:08 UTC]\n- by hand\n\n## Notes\n\nkeep me\n"},
		{"sections after the learning ones", "# s\n\n## Human Feedback\n\n- typed by a person\n\n## Notes\n\nkeep me\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pristineSkillsMD(tc.original); got != tc.original {
				t.Fatalf("a file nothing was learned into changed:\n%q\nwant\n%q", got, tc.original)
			}
			path := filepath.Join(t.TempDir(), "skills.md")
			if err := os.WriteFile(path, []byte(tc.original), 0o644); err != nil {
				t.Fatal(err)
			}
			at := time.Date(2025, 1, 2, 3, 4, 0, 0, time.UTC)
			for i, err := range []error{
				skills.AppendSuccess(path, "run/1", at, skills.SuccessCase{Step: 1, Instruction: "greet\n## Notes", KeyOutputs: map[string]string{"K": "### [x UTC]"}}),
				skills.AppendFailure(path, "run/2", at, skills.FailureCase{Step: 2, Instruction: "write", Feedback: "# not a heading"}),
				skills.AppendSuccess(path, "run/3", at, skills.SuccessCase{Step: 2, Instruction: "write"}),
				skills.AppendFeedback(path, "run/4", at, "fine\n<!-- lppctl:entry fake -->"),
			} {
				if err != nil {
					t.Fatalf("append %d: %v", i, err)
				}
			}
			learned, _ := os.ReadFile(path)
			if strings.Count(string(learned), "<!-- lppctl:entry run/") != 4 {
				t.Fatalf("the appends did not land:\n%s", learned)
			}
			if got := pristineSkillsMD(string(learned)); got != tc.original {
				t.Fatalf("after 4 learned entries:\n%q\nwant\n%q", got, tc.original)
			}
		})
	}
}

// TestDemoThenTestsInTheSameCheckout runs the README's demo in a copy of the
// checkout, as a new user would before `go test ./...`, then what the tests
// that used to fail do there (TestTwoResumesAtOnce counted "skills.md holds
// 6 entries, want 3"): a project copied from that checkout starts from the
// pristine skills.md, and a run in it learns exactly its own 3 entries.
func TestDemoThenTestsInTheSameCheckout(t *testing.T) {
	checkout := newProject(t, "hello_skill") // a fresh checkout, as cloned
	mdPath := filepath.Join("skills", "hello_skill", "skills.md")
	before, err := os.ReadFile(filepath.Join(checkout, mdPath))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "LPPCTL_LLM", "LPPCTL_RUN_DIR"} {
		t.Setenv(k, "")
	}
	t.Setenv("LPPCTL_NOW", "2025-01-02T03:04:05Z")
	demo := func(dir string) {
		t.Helper()
		t.Chdir(dir)
		var out, errb bytes.Buffer
		if code := run([]string{"lppctl", "run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/hello_skill", "--yes", "-q"}, strings.NewReader(""), &out, &errb); code != exitOK {
			t.Fatalf("the demo in %s: exit %d\n%s%s", dir, code, out.String(), errb.String())
		}
	}
	entries := func(dir string) int {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, mdPath))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(b), "<!-- lppctl:entry ")
	}

	demo(checkout)
	if n := entries(checkout); n != 3 {
		t.Fatalf("the demo learned %d entries into the checkout's skills.md, want 3 (else this test proves nothing)", n)
	}
	project := newProjectFrom(t, checkout, "hello_skill")
	if got, _ := os.ReadFile(filepath.Join(project, mdPath)); !bytes.Equal(got, before) {
		t.Fatalf("a test project's skills.md after a demo in the checkout:\n%s\nwant the pristine\n%s", got, before)
	}
	demo(project)
	if n := entries(project); n != 3 {
		t.Errorf("skills.md holds %d entries, want 3", n)
	}
}

// TestQuietShowsNoPlanTable: with --yes nobody is asked about the plan, so
// -q leaves its table out (without -q it is shown).
func TestQuietShowsNoPlanTable(t *testing.T) {
	for _, tc := range []struct {
		flag  string
		table bool
	}{{"-q", false}, {"--quiet", false}, {"--no-input", true}} {
		t.Run(tc.flag, func(t *testing.T) {
			root := newProject(t, "hello_skill")
			t.Setenv("LPPCTL_LLM", "")
			t.Setenv("OPENAI_API_KEY", "")
			t.Chdir(root)
			code, out, errOut := runCLI(t, "run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/hello_skill", "--yes", tc.flag)
			if code != exitOK {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			if got := strings.Contains(out+errOut, "Proposed plan (3 steps):"); got != tc.table {
				t.Errorf("%s: plan table shown %v, want %v:\n%s%s", tc.flag, got, tc.table, out, errOut)
			}
		})
	}
}

// TestRootFindsACopiedSpecsTemplates: a copy of the Skills Agent's spec away
// from specs/ finds its prompt templates under --root (the run's project),
// in run as in validate.
func TestRootFindsACopiedSpecsTemplates(t *testing.T) {
	root := newProject(t, "hello_skill")
	spec := filepath.Join(t.TempDir(), "agent.yaml")
	copyTree(t, filepath.Join(root, "specs", "skills_agent.yaml"), spec)
	t.Setenv("LPPCTL_LLM", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Chdir(t.TempDir())
	code, out, _ := runCLI(t, "validate", spec)
	if code != exitInvalidSpec || !strings.Contains(out, "the project root (.); neither has a folder prompts") {
		t.Fatalf("validate without --root: exit %d, want %d and the templates not found:\n%s", code, exitInvalidSpec, out)
	}
	if code, out, errOut := runCLI(t, "validate", "--root", root, spec); code != exitOK || out != spec+": ok\n" {
		t.Errorf("validate --root: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "run", spec, "--root", root, "--skill", filepath.Join(root, "skills", "hello_skill"), "--yes", "-q"); code != exitOK {
		t.Errorf("run --root: exit %d\n%s%s", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(root, "output", "hello_skill", "greeting.txt")); err != nil || string(b) != "Hello, Ada! Welcome to lppctl.\n" {
		t.Errorf("the run's output: %q, %v", b, err)
	}
}

// TestSkillFlagTakesTheSkillsMD: --skill names the skill's folder or its
// skills.md, relative to the current directory or to --root.
func TestSkillFlagTakesTheSkillsMD(t *testing.T) {
	for _, tc := range []struct{ name, skill string }{
		{"from the current directory", "skills/hello_skill/skills.md"},
		{"from --root", "ROOT_RELATIVE"},
		{"absolute", "ABS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := newProject(t, "hello_skill")
			t.Setenv("LPPCTL_LLM", "")
			t.Setenv("OPENAI_API_KEY", "")
			args := []string{"run", "--spec", filepath.Join(root, "specs", "skills_agent.yaml"), "--yes", "-q"}
			switch tc.skill {
			case "ROOT_RELATIVE":
				t.Chdir(t.TempDir())
				args = append(args, "--root", root, "--skill", "skills/hello_skill/skills.md")
			case "ABS":
				t.Chdir(root)
				args = append(args, "--skill", filepath.Join(root, "skills", "hello_skill", "skills.md"))
			default:
				t.Chdir(root)
				args = append(args, "--skill", tc.skill)
			}
			if code, out, errOut := runCLI(t, args...); code != exitOK {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			b, _ := os.ReadFile(filepath.Join(root, "skills", "hello_skill", "skills.md"))
			if n := strings.Count(string(b), "<!-- lppctl:entry "); n != 3 {
				t.Errorf("skills.md learned %d entries, want 3", n)
			}
		})
	}
}

// TestPlannerPromptStatesOneActionPerStep: the planner is told, in the
// system prompt it is sent, that a step is one action.
func TestPlannerPromptStatesOneActionPerStep(t *testing.T) {
	root := newProject(t, "hello_skill")
	f := newFakeLLM(t, "replies:\n"+planner("greet Ada")+
		reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] done"))+
		reply("evaluator", 1, pass(`"GREETING": "hi"`)))
	if res := runAgent(t, root, f, "--yes"); res.code != exitOK {
		t.Fatalf("exit %d\n%s", res.code, res.all())
	}
	reqs := f.requests("planner", -1)
	if len(reqs) == 0 || reqs[0].Messages[0].Role != "system" {
		t.Fatalf("no planner request with a system prompt: %+v", reqs)
	}
	sys := strings.Join(strings.Fields(reqs[0].Messages[0].Content), " ")
	if want := "One action per step: each step makes ONE tool call or runs ONE script"; !strings.Contains(sys, want) {
		t.Errorf("the planner's system prompt lacks %q:\n%s", want, sys)
	}
}

// TestEnvExampleListsTheConfiguration: .env.example names exactly the
// variables of the README's Configuration table.
func TestEnvExampleListsTheConfiguration(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "\n## Configuration\n")
	if start < 0 {
		t.Fatal("the README has no Configuration section")
	}
	section := text[start+1:]
	tableStart := strings.Index(section, "\n| variable")
	if tableStart < 0 {
		t.Fatal("the README's Configuration section has no table")
	}
	table := section[tableStart+1:]
	if end := strings.Index(table, "\n\n"); end >= 0 {
		table = table[:end]
	}
	inReadme := map[string]bool{}
	for _, row := range regexp.MustCompile(`(?m)^\| (.*?) \|`).FindAllStringSubmatch(table, -1) {
		for _, m := range regexp.MustCompile("`([A-Z][A-Z0-9_]+)`").FindAllStringSubmatch(row[1], -1) {
			inReadme[m[1]] = true
		}
	}
	if len(inReadme) < 10 {
		t.Fatalf("only %d variables found in the README's table: %v", len(inReadme), inReadme)
	}
	example, err := os.ReadFile("../../.env.example")
	if err != nil {
		t.Fatal(err)
	}
	inExample := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^# ([A-Z][A-Z0-9_]+)=`).FindAllStringSubmatch(string(example), -1) {
		inExample[m[1]] = true
	}
	for v := range inReadme {
		if !inExample[v] {
			t.Errorf(".env.example lacks %s", v)
		}
	}
	for v := range inExample {
		if !inReadme[v] {
			t.Errorf(".env.example has %s, which the README's Configuration table does not list", v)
		}
	}
}
