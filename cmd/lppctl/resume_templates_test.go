package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine/runstore"
)

// TestResumeRefusesChangedTemplates pauses a Skills Agent run for approval,
// changes and removes prompt templates, and checks that resume names them
// and refuses, then continues with --force.
func TestResumeRefusesChangedTemplates(t *testing.T) {
	root := newProject(t, "hello_skill")
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "LPPCTL_LLM"} {
		t.Setenv(k, "")
	}
	t.Chdir(root)
	dir := filepath.Join(t.TempDir(), "runs")
	code, out, errOut := lppctlCLI(t, "run", "-q", "--spec", filepath.Join("specs", "skills_agent.yaml"), "--skill", filepath.Join("skills", "hello_skill"), "--run-dir", dir)
	if code != exitPaused {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	id := onlyRun(t, dir)
	run, err := runstore.New(dir).Open(id)
	if err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(root, "specs", "prompts", "optimizer_user.md")
	if len(run.Meta.Files) != 12 || run.Meta.Files[user] == "" {
		t.Fatalf("run.json records %d templates, want the 12 of the spec: %v", len(run.Meta.Files), run.Meta.Files)
	}

	// Comments, layout, anything: a changed byte is a changed prompt.
	b, err := os.ReadFile(user)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, append(b, "\nBe brief.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = lppctlCLI(t, "resume", "-q", "--run-dir", dir, id, "--approve")
	want := "lppctl: cannot resume run " + id + ": prompt template specs/prompts/optimizer_user.md changed since the run began\n" +
		"resume with --force to continue with the templates as they are now, or restore them\n"
	if code != exitFailed || errOut != want {
		t.Errorf("changed template: exit %d, stderr:\n%s\nwant:\n%s", code, errOut, want)
	}

	if err := os.Remove(filepath.Join(root, "specs", "prompts", "retry.md")); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = lppctlCLI(t, "resume", "-q", "--run-dir", dir, id, "--approve")
	want = "lppctl: cannot resume run " + id + ": 2 prompt templates changed since the run began:\n" +
		"  prompt template specs/prompts/optimizer_user.md changed since the run began\n" +
		"  prompt template specs/prompts/retry.md is gone since the run began\n" +
		"resume with --force to continue with the templates as they are now, or restore them\n"
	if code != exitFailed || errOut != want {
		t.Errorf("changed and gone templates: exit %d, stderr:\n%s\nwant:\n%s", code, errOut, want)
	}
	// --force cannot run without the template: validation names it.
	code, _, errOut = lppctlCLI(t, "resume", "-q", "--run-dir", dir, id, "--approve", "--force")
	if code != exitInvalidSpec || !strings.Contains(errOut, `parameter "retry_prompt" of action "llm.evaluator": file "prompts/retry.md" not found`) {
		t.Errorf("--force with a missing template: exit %d, stderr:\n%s", code, errOut)
	}

	if err := os.WriteFile(filepath.Join(root, "specs", "prompts", "retry.md"), []byte("The evaluator said: {{.Feedback}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = lppctlCLI(t, "resume", "-q", "--run-dir", dir, id, "--approve", "--force")
	if code != exitOK {
		t.Fatalf("resume --force: exit %d\n%s%s", code, out, errOut)
	}
	for _, w := range []string{
		"warning: prompt template specs/prompts/optimizer_user.md changed since the run began (continuing, --force)\n",
		"warning: prompt template specs/prompts/retry.md changed since the run began (continuing, --force)\n",
	} {
		if !strings.Contains(errOut, w) {
			t.Errorf("resume --force does not warn %q:\n%s", w, errOut)
		}
	}
	run, err = runstore.New(dir).Open(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Meta.Files) != 12 || len(run.ChangedFiles()) != 0 {
		t.Errorf("after --force, run.json should record the templates the run continued with: %v, changed %v", run.Meta.Files, run.ChangedFiles())
	}
}
