package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/actions/llm"
)

// The README's demo commands: no provider configured, the skill's demo.yaml
// is replayed (loudly), the tools run for real.
func TestAgentDemosRunOffline(t *testing.T) {
	for _, tc := range []struct {
		skill, file, want string
	}{
		{"hello_skill", "output/hello_skill/greeting.txt", "Hello, Ada! Welcome to lppctl.\n"},
		{"ects_skill", "output/ects_skill/summary.md", "## Key Financials\n\n- Revenue: $412 million"},
	} {
		t.Run(tc.skill, func(t *testing.T) {
			root := newProject(t, tc.skill)
			for _, k := range []string{"OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "LPPCTL_LLM", "TRANSCRIPT_API_URL"} {
				t.Setenv(k, "")
			}
			t.Setenv("LPPCTL_NOW", "2025-01-02T03:04:05Z")
			t.Chdir(root)
			var out, errb bytes.Buffer
			code := run([]string{"lppctl", "run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/" + tc.skill, "--yes"}, strings.NewReader(""), &out, &errb)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
			}
			if !strings.Contains(out.String(), "no LLM configured: replaying the scripted demo replies from") {
				t.Fatalf("the scripted replies are not announced:\n%s", out.String())
			}
			b, err := os.ReadFile(filepath.Join(root, tc.file))
			if err != nil || !strings.Contains(string(b), tc.want) {
				t.Fatalf("%s: %q, %v", tc.file, b, err)
			}
			md, _ := os.ReadFile(filepath.Join(root, "skills", tc.skill, "skills.md"))
			if !strings.Contains(string(md), "## Success Cases\n\n### [2025-01-02 03:04 UTC]") {
				t.Fatalf("skills.md did not learn:\n%s", md)
			}
			if tc.skill == "ects_skill" && !strings.Contains(out.String(), "OK: all 7 headings") {
				t.Fatalf("format check did not pass:\n%s", out.String())
			}
			// Every scripted tool call works for real: the demo shows no refusal or error.
			if strings.Contains(out.String(), "[SECURITY BLOCKED]") || strings.Contains(out.String(), "[ERROR]") {
				t.Fatalf("a demo tool call failed:\n%s", out.String())
			}
			if tc.skill == "ects_skill" {
				for _, f := range []string{"output/ects_skill/transcript.txt", "output/ects_skill/parsed.json"} {
					if b, err := os.ReadFile(filepath.Join(root, f)); err != nil || !strings.Contains(string(b), "Northwind Robotics") {
						t.Errorf("%s: %.80q, %v", f, b, err)
					}
				}
			}
		})
	}
}

func TestAgentNoProviderNoDemoListsOptions(t *testing.T) {
	root := newProject(t, "hello_skill")
	if err := os.Remove(filepath.Join(root, "skills", "hello_skill", "demo.yaml")); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "LPPCTL_LLM"} {
		t.Setenv(k, "")
	}
	var out, errb bytes.Buffer
	code := run([]string{"lppctl", "run", "--spec", filepath.Join(root, "specs", "skills_agent.yaml"), "--root", root, "--skill", filepath.Join(root, "skills", "hello_skill"), "--yes"}, strings.NewReader(""), &out, &errb)
	if code != exitFailed {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"no LLM configured", "--llm openai[:MODEL] | anthropic[:MODEL] | ollama[:MODEL] | script:FILE", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "LPPCTL_LLM"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("the error lacks %q:\n%s", want, errb.String())
		}
	}
}

// Without a terminal and without --yes the approval pauses the durable run;
// `lppctl resume ID --approve` rebuilds the agent from the saved config and
// finishes it, with the scripted model continuing where it stopped.
func TestAgentApprovalPauseThenResume(t *testing.T) {
	root := newProject(t, "hello_skill")
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "LPPCTL_LLM"} {
		t.Setenv(k, "")
	}
	t.Setenv("LPPCTL_NOW", "2025-01-02T03:04:05Z")
	t.Chdir(root)
	var out, errb bytes.Buffer
	code := run([]string{"lppctl", "run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/hello_skill"}, strings.NewReader(""), &out, &errb)
	if code != exitPaused {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	m := regexp.MustCompile(`lppctl resume (\S+) --approve`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no resume hint:\n%s", out.String())
	}
	out.Reset()
	errb.Reset()
	code = run([]string{"lppctl", "resume", m[1], "--approve"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if b, err := os.ReadFile(filepath.Join(root, "output", "hello_skill", "greeting.txt")); err != nil || string(b) != "Hello, Ada! Welcome to lppctl.\n" {
		t.Fatalf("greeting: %q %v", b, err)
	}
	md, _ := os.ReadFile(filepath.Join(root, "skills", "hello_skill", "skills.md"))
	if n := strings.Count(string(md), "<!-- lppctl:entry "+m[1]+"/"); n != 3 {
		t.Fatalf("entries of this run = %d, want 3:\n%s", n, md)
	}
}

// A --llm that cannot work is refused before a run is created (exit 2), with
// the exact reason; the API key is never named.
func TestAgentLLMChoiceErrorsBeforeTheRun(t *testing.T) {
	tests := []struct {
		name string
		llm  string
		env  map[string]string
		err  string
	}{
		{name: "unknown provider", llm: "bogus", err: `lppctl: cannot use LLM "bogus" (from --llm): unknown provider "bogus"; ` + llm.Help + "\n"},
		{name: "empty model after the colon", llm: "openai:", err: `lppctl: cannot use LLM "openai:" (from --llm): no model after "openai:"; name one (e.g. openai:gpt-4o-mini) or leave out the colon for the default` + "\n"},
		{name: "script without a file", llm: "script:", err: `lppctl: cannot use LLM "script:" (from --llm): script: needs a file, e.g. script:skills/hello_skill/demo.yaml` + "\n"},
		{name: "missing script file", llm: "script:nope.yaml", err: "lppctl: cannot load LLM script: open nope.yaml: no such file or directory\n"},
		{name: "openai without key or base URL", llm: "openai:gpt-4o", err: "lppctl: cannot use openai: OPENAI_API_KEY is not set (set it, or OPENAI_API_BASE for a local OpenAI-compatible server); " + llm.Help + "\n"},
		{name: "anthropic without key", llm: "anthropic:claude-3-5-haiku-latest", err: "lppctl: cannot use anthropic: ANTHROPIC_API_KEY is not set; " + llm.Help + "\n"},
		{name: "base URL that is not http", llm: "openai", env: map[string]string{"OPENAI_API_BASE": "ftp://h/v1"}, err: `lppctl: cannot use openai: OPENAI_API_BASE "ftp://h/v1" is not an http(s) URL` + "\n"},
		{name: "from LPPCTL_LLM", env: map[string]string{"LPPCTL_LLM": "gemini:pro"}, err: `lppctl: cannot use LLM "gemini:pro" (from LPPCTL_LLM): unknown provider "gemini"; ` + llm.Help + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := newProject(t, "hello_skill")
			for _, k := range []string{"OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OLLAMA_HOST", "LPPCTL_LLM"} {
				t.Setenv(k, tt.env[k])
			}
			t.Chdir(root)
			args := []string{"lppctl", "run", "--spec", "specs/skills_agent.yaml", "--yes"}
			if tt.llm != "" {
				args = append(args, "--llm", tt.llm)
			}
			var out, errb bytes.Buffer
			if code := run(args, strings.NewReader(""), &out, &errb); code != exitUsage {
				t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
			}
			if errb.String() != tt.err {
				t.Fatalf("stderr\n got %q\nwant %q", errb.String(), tt.err)
			}
			if _, err := os.Stat(filepath.Join(root, ".lppctl", "runs")); err == nil {
				ents, _ := os.ReadDir(filepath.Join(root, ".lppctl", "runs"))
				if len(ents) > 0 {
					t.Fatalf("a run was created: %v", ents)
				}
			}
		})
	}
}

// With --json, stdout carries only JSON lines (one per step, then the end),
// for run and resume; what the actions say to a person (the scripted-replies
// banner, the plan table) goes to stderr.
func TestAgentJSONProgressIsOnlyJSON(t *testing.T) {
	root := newProject(t, "hello_skill")
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "LPPCTL_LLM"} {
		t.Setenv(k, "")
	}
	t.Chdir(root)
	lines := func(what, out string) (last map[string]any) {
		t.Helper()
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			last = nil
			if err := json.Unmarshal([]byte(l), &last); err != nil {
				t.Fatalf("%s: a stdout line is not JSON: %q\n%s", what, l, out)
			}
		}
		return last
	}
	var out, errb bytes.Buffer
	code := run([]string{"lppctl", "run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/hello_skill", "--json"}, strings.NewReader(""), &out, &errb)
	if code != exitPaused {
		t.Fatalf("run: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if end := lines("run", out.String()); end["type"] != "end" || end["status"] != "paused" {
		t.Fatalf("run: last line %v", end)
	}
	if !strings.Contains(errb.String(), "Proposed plan (3 steps)") || !strings.Contains(errb.String(), "no LLM configured") {
		t.Errorf("the person's messages are not on stderr:\n%s", errb.String())
	}
	m := regexp.MustCompile(`"run_id":"([^"]+)"`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no run id:\n%s", out.String())
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"lppctl", "resume", m[1], "--approve", "--json"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("resume: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if end := lines("resume", out.String()); end["type"] != "end" || end["status"] != "completed" {
		t.Fatalf("resume: last line %v", end)
	}
}
