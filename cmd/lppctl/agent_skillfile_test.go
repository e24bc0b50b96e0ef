package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Skills from anywhere: --skill names a folder or any markdown file, and
// the project root is found from the current directory upwards.

// runIn runs `lppctl run` from dir with the fake model and the given args
// (no --root or --skill added, unlike runAgent).
func runIn(t *testing.T, dir string, f *fakeLLM, args ...string) runResult {
	t.Helper()
	t.Setenv("OPENAI_API_BASE", f.srv.URL)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("LPPCTL_LLM", "")
	t.Setenv("LPPCTL_SKILLS", "")
	t.Setenv("LPPCTL_NOW", "2025-01-02T03:04:05Z")
	t.Setenv("LPPCTL_LLM_RETRIES", "3")
	t.Setenv("LPPCTL_LLM_BACKOFF", "1ms")
	t.Chdir(dir)
	var out, errb bytes.Buffer
	code := run(append([]string{"lppctl", "run", "--llm", "openai:test-model", "--yes"}, args...), strings.NewReader(""), &out, &errb)
	return runResult{code: code, out: out.String(), err: errb.String()}
}

const taskMD = "# Greet Ada\n\nGreet Ada by name with skills/hello_skill/scripts/greet.py.\n"

// listScript plans one step that lists skills/hello_skill (a path relative
// to the project root) and passes it.
func listScript() string {
	return "replies:\n" + planner("list the skill folder") +
		reply("optimizer", 1, listCall) +
		reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] listed")) +
		reply("evaluator", 1, pass(`"LISTED": "yes"`))
}

func TestAgentSkillFromAnyMarkdownFile(t *testing.T) {
	root := newProject(t, "hello_skill")
	task := filepath.Join(root, "tasks", "task.md")
	writeFile(t, task, taskMD)
	f := newFakeLLM(t, listScript())
	res := runIn(t, root, f, "--spec", filepath.Join("specs", "skills_agent.yaml"), "--skill", filepath.Join("tasks", "task.md"))
	require.Equal(t, 0, res.code, res.all())
	user := f.requests("planner", 0)[0].Messages[1].Content
	assert.Contains(t, user, `Plan the skill "task" (folder tasks).`)
	assert.Contains(t, user, "<skill>\n"+taskMD)
	md, err := os.ReadFile(task)
	require.NoError(t, err)
	assert.Contains(t, string(md), "## Success Cases\n\n### [2025-01-02 03:04 UTC]", "the agent learns into the file it was given")
	assert.Contains(t, string(md), "`LISTED` = yes")
	assert.Contains(t, res.out, "success case → tasks/task.md")
	assert.NoFileExists(t, filepath.Join(root, "tasks", "skills.md"))
}

func TestAgentFindsTheProjectRootUpwards(t *testing.T) {
	root := newProject(t, "hello_skill")
	sub := filepath.Join(root, "skills", "hello_skill")
	f := newFakeLLM(t, listScript())
	// from the skill's own folder: --skill . and the spec relative to it
	res := runIn(t, sub, f, "--spec", filepath.Join("..", "..", "specs", "skills_agent.yaml"), "--skill", ".")
	require.Equal(t, 0, res.code, res.all())
	assert.Contains(t, res.out, "list_files", res.out)
	assert.Contains(t, res.out, "→ allow", "skills/hello_skill is found from the root, not from the current directory")
	assert.Contains(t, readSkillsMD(t, root), "`LISTED` = yes")
}

func TestAgentRootFlagOverridesTheRootFound(t *testing.T) {
	here := newProject(t, "hello_skill")
	there := newProject(t, "hello_skill")
	before := readSkillsMD(t, here)
	f := newFakeLLM(t, listScript())
	res := runIn(t, filepath.Join(here, "skills"), f, "--spec", filepath.Join(there, "specs", "skills_agent.yaml"),
		"--root", there, "--skill", filepath.Join(there, "skills", "hello_skill", "skills.md"))
	require.Equal(t, 0, res.code, res.all())
	assert.Contains(t, readSkillsMD(t, there), "`LISTED` = yes")
	assert.Equal(t, before, readSkillsMD(t, here))
}

func TestAgentRefusesAMissingSkillFile(t *testing.T) {
	root := newProject(t, "hello_skill")
	f := newFakeLLM(t, listScript())
	res := runIn(t, root, f, "--spec", filepath.Join("specs", "skills_agent.yaml"), "--skill", "nope.md")
	assert.Equal(t, exitUsage, res.code)
	assert.Contains(t, res.err, "lppctl: cannot use --skill nope.md: cannot open skill \"nope\": no file "+filepath.Join(root, "nope.md")+": not found; give --skill DIR, a folder holding a skills.md, or --skill FILE, a markdown file (this project has: skills/hello_skill)")
}

func TestFindProjectRoot(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "config", "tools_config.yaml"), "x")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "a", "b", "config"), 0o755)) // a config folder without the policy
	lone := t.TempDir()
	tests := []struct {
		name, dir, want string
	}{
		{name: "the root itself", dir: root, want: root},
		{name: "a folder below it", dir: filepath.Join(root, "a"), want: root},
		{name: "two folders below, past a config folder without the policy", dir: filepath.Join(root, "a", "b"), want: root},
		{name: "no project above: the folder itself", dir: lone, want: lone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, findProjectRoot(tt.dir))
		})
	}
}
