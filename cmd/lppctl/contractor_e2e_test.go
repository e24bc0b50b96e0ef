package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/internal/testenv"
)

const contractorTarget = "a skill that counts the words of a file and reports the longest line"

// newContractorProject copies what the Skill Contractor and the Skills Agent
// need into a fresh project root, so that no test writes into the checkout.
func newContractorProject(t *testing.T) string {
	t.Helper()
	testenv.Python(t) // the contractor's steps are Python scripts
	src, dst := repoRoot(t), t.TempDir()
	for _, p := range []string{"config/tools_config.yaml", "scripts", "claude.md", "specs/skills_agent.yaml", "specs/prompts", "specs/skill_contractor.yaml", "specs/contractor"} {
		copyTree(t, filepath.Join(src, p), filepath.Join(dst, p))
	}
	return dst
}

// noProvider clears every variable that would configure a model, so the
// spec's scripted demo is replayed.
func noProvider(t *testing.T) {
	t.Helper()
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL", "OPENAI_MODEL", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "LPPCTL_LLM"} {
		t.Setenv(k, "")
	}
	t.Setenv("LPPCTL_NOW", "2025-01-02T03:04:05Z")
}

// contractorRun runs lppctl with the project root as the working directory
// (the test's too, for the relative paths it reads after), in a process of
// its own with the test's environment: under -race, the binary buildLppctl
// builds without it, so that the Python-bound contractor runs cost their
// own time, not the race detector's (the engine runs under it in the other
// tests).
func contractorRun(t *testing.T, root string, args ...string) runResult {
	t.Helper()
	t.Chdir(root)
	var out, errb bytes.Buffer
	cmd := exec.Command(buildLppctl(t), args...)
	cmd.Dir, cmd.Env = root, os.Environ()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), &out, &errb
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("cannot run lppctl %s: %v", strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	return runResult{code: code, out: out.String(), err: errb.String()}
}

// The acceptance run: the bundled demo writes a complete skill with one
// refinement in each phase, a person installs it, and the Skills Agent runs
// it to completion; with run_generated the generated spec also runs in a
// sandbox copy.
func TestContractorDemoBuildsInstallsAndRunsASkill(t *testing.T) {
	for _, runGenerated := range []bool{false, true} {
		name := map[bool]string{false: "compile-only", true: "run_generated"}[runGenerated]
		t.Run(name, func(t *testing.T) {
			noProvider(t)
			root := newContractorProject(t)
			args := []string{"run", "specs/skill_contractor.yaml", "--var", "target=" + contractorTarget, "--yes"}
			if runGenerated {
				args = append(args, "--var", "run_generated=true")
			}
			res := contractorRun(t, root, args...)
			if res.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", res.code, res.all(), contractorEvidence(root))
			}
			out := res.out
			for _, want := range []string{
				"replaying the scripted demo replies from " + filepath.Join(root, "specs", "contractor", "demo.yaml"),
				// phase 1: the first blueprint is rejected (a deadlock), only the blueprint is redone
				"validating → refining",
				`refining: refining "output/contractor/word_stats.attempt/word_stats.yaml:21:3`,
				`validating → planning  [checks_ok && phase == "blueprint"]`,
				// phase 2: the first score is under the threshold
				"evaluating → refining",
				"probe_checking → promoting  [probes_ok]",
				`promoting: script scripts/contractor/promote.py → {"promoted": "output/contractor/word_stats"`,
				"completed in complete after",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("the run's output lacks %q", want)
				}
			}
			if want := map[bool]string{false: `the generated spec was checked "compile-only (--var run_generated=true runs it)"`, true: `the generated spec was checked "by a dry run in a sandbox copy"`}[runGenerated]; !strings.Contains(out, want) {
				t.Errorf("the run does not say how the spec was checked: want %q", want)
			}
			// The skill ran on the examples its first plan wrote, in sandbox copies.
			if got := fmt.Sprint(runVar(t, root, "examples_report")); !strings.HasPrefix(got, "examples: 4 of 4 passed\npass example 1 \"two lines, the second longer\"") || !strings.Contains(got, "pass example 4 \"a missing file\" (vars {\"source\":\"skills/word_stats/reference/missing.txt\"}): the run failed, as expected") {
				t.Errorf("examples_report = %q", got)
			}
			if _, err := os.Stat(filepath.Join(root, "output", "contractor", "word_stats.attempt")); err == nil {
				t.Errorf("the attempt folder was not promoted")
			}
			if strings.Contains(out, "[SECURITY BLOCKED]") {
				t.Errorf("the demo hit a refusal:\n%s", out)
			}
			if t.Failed() {
				t.Fatalf("output:\n%s", out)
			}
			// The sanitiser fixed the literal newline before the script touched disk.
			dir := filepath.Join(root, "output", "contractor", "word_stats")
			log, err := os.ReadFile(filepath.Join(dir, "corrections.md"))
			if err != nil || !strings.Contains(string(log), "scripts/word_stats.py:28: newline_in_string (literal): a line break inside a one-line string literal became \\n") {
				t.Fatalf("corrections.md: %q, %v", log, err)
			}
			script, _ := os.ReadFile(filepath.Join(dir, "scripts", "word_stats.py"))
			if !strings.Contains(string(script), `longest line: line {number} ({len(longest)} characters)`) {
				t.Fatalf("the refined script was not written:\n%s", script)
			}
			// The blueprint was written twice (phase 1), never in phase 2.
			if n := strings.Count(out, `"written": ["output/contractor/word_stats.attempt/word_stats.yaml"]`); n != 2 {
				t.Errorf("the blueprint was written %d times, want 2 (the rejected one and its fix)", n)
			}
			for _, f := range []string{"word_stats.yaml", "skills.md", "demo.yaml", "README.md", "reference/sample.txt"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("the skill lacks %s: %v", f, err)
				}
			}

			res = contractorRun(t, root, "skills", "install", "output/contractor/word_stats")
			if res.code != 0 || !strings.Contains(res.out, "installed output/contractor/word_stats into skills/word_stats") {
				t.Fatalf("install: exit %d\n%s", res.code, res.all())
			}
			res = contractorRun(t, root, "run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/word_stats", "--yes")
			if res.code != 0 || !strings.Contains(res.out, "completed in done") {
				t.Fatalf("the Skills Agent on the installed skill: exit %d\n%s", res.code, res.all())
			}
			if !strings.Contains(res.out, `\"words\": 25`) && !strings.Contains(res.out, `"words": 25`) {
				t.Errorf("the Skills Agent did not run the skill's script:\n%s", res.out)
			}
			res = contractorRun(t, root, "run", "skills/word_stats/word_stats.yaml")
			if res.code != 0 || !strings.Contains(res.out, `longest line: line 2 (95 characters)`) {
				t.Fatalf("the installed skill's own spec: exit %d\n%s", res.code, res.all())
			}
		})
	}
}

// TestContractorTokensPerPhase records the tokens each phase of the demo
// run used (the figures docs/contractor.md quotes; run with
// -v to see them).
func TestContractorTokensPerPhase(t *testing.T) {
	noProvider(t)
	root := newContractorProject(t)
	res := contractorRun(t, root, "run", "specs/skill_contractor.yaml", "--var", "target="+contractorTarget, "--yes")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.all(), contractorEvidence(root))
	}
	// Each model call's progress line ends "[prompt N chars, IN tokens in /
	// OUT out]" (the usage the provider reported, in llm.jsonl too); the
	// blueprint phase ends where validating passes it.
	usageRE := regexp.MustCompile(`\[prompt \d+ chars, (\d+) tokens in / (\d+) out\]`)
	type usage struct{ calls, in, out int }
	phases := map[string]*usage{"blueprint": {}, "implementation": {}}
	phase := "blueprint"
	for _, line := range strings.Split(res.out, "\n") {
		if strings.Contains(line, `validating → planning  [checks_ok && phase == "blueprint"]`) {
			phase = "implementation"
		}
		if m := usageRE.FindStringSubmatch(line); m != nil {
			u := phases[phase]
			in, _ := strconv.Atoi(m[1])
			out, _ := strconv.Atoi(m[2])
			u.calls, u.in, u.out = u.calls+1, u.in+in, u.out+out
		}
	}
	for _, p := range []string{"blueprint", "implementation"} {
		u := phases[p]
		if u.calls == 0 || u.in == 0 {
			t.Fatalf("phase %s: no usage in the output (%+v):\n%s\n%s", p, *u, res.out, contractorEvidence(root))
		}
		t.Logf("phase %s: %d model calls, %d tokens in, %d out", p, u.calls, u.in, u.out)
	}
}
