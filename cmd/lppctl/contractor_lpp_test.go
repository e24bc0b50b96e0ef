package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const contractorLPPTarget = "an L++ blueprint for a skill that counts the words of a file and reports the longest line"

// An L++ target: the blueprint phase writes an L++ blueprint (JSON) with its
// compute mapping, and validating validates and model-checks that blueprint
// (its first version fails the check, positioned in the JSON); the
// implementation follows, the skill installs, and its blueprint runs.
func TestContractorLPPTargetValidatesItsBlueprint(t *testing.T) {
	noProvider(t)
	root := newContractorProject(t)
	// The target says L++: no --var is_lpp_target needed.
	res := contractorRun(t, root, "run", "specs/skill_contractor.yaml", "--llm", "script:specs/contractor/demo_lpp.yaml", "--var", "target="+contractorLPPTarget, "--yes")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.all())
	}
	out := res.out
	for _, want := range []string{
		"replaying specs/contractor/demo_lpp.yaml",
		// the first blueprint validates but fails the model check: only the blueprint is redone
		"[11] validating → refining",
		`refining: refining "output/contractor/word_stats_lpp.attempt/word_stats_lpp.j`,
		`[19] validating → planning  [checks_ok && phase == "blueprint"]`,
		"probe_checking → promoting  [probes_ok]",
		"completed in complete after",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the run's output lacks %q", want)
		}
	}
	// The blueprint and its mapping were written twice (phase 1), never in phase 2.
	if n := strings.Count(out, `"written": ["output/contractor/word_stats_lpp.attempt/word_stats_lpp.json", "output/contractor/wor`); n != 2 {
		t.Errorf("the blueprint was written %d times, want 2 (the rejected one and its fix)", n)
	}
	if t.Failed() {
		t.Fatalf("output:\n%s", out)
	}
	id := regexp.MustCompile(`(?m)^run (\S+) `).FindStringSubmatch(res.err)
	if id == nil {
		t.Fatalf("no run id in the output:\n%s", out)
	}
	// The check's report on the first blueprint went back as feedback, positioned in the JSON.
	journal, err := os.ReadFile(filepath.Join(root, ".lppctl", "runs", id[1], "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`FAIL    every state reachable\n          output/contractor/word_stats_lpp.attempt/word_stats_lpp.json:23:5: no path reaches state \"done\"`,
		`output/contractor/word_stats_lpp.attempt/word_stats_lpp.json: valid (compile-only: the spec was checked in a sandbox copy, not run`,
		// the skill ran on the example its first plan wrote
		`examples: 3 of 3 passed\npass example 1 \"two lines, the second longer\" (vars {\"source\":\"skills/word_stats_lpp/reference/two.txt\"}): longest_line: expected 2, got 2, words: expected 7, got 7`,
		`pass example 3 \"no file named\" (vars {\"source\":\"\"}): the run ended in state failed, not where the examples that succeed end, as expected`,
	} {
		if !strings.Contains(string(journal), want) {
			t.Errorf("the journal lacks %q", want)
		}
	}
	res = contractorRun(t, root, "runs", "show", id[1])
	for _, want := range []string{
		`is_lpp_target        = true`,
		`lpp_validated        = true`,
		`blueprint_validated  = true`,
		`spec_file            = "word_stats_lpp.json"`,
	} {
		if !strings.Contains(res.out, want) {
			t.Errorf("runs show lacks %q:\n%s", want, res.out)
		}
	}
	// What validating passed is a blueprint lppctl check passes too.
	res = contractorRun(t, root, "check", "output/contractor/word_stats_lpp/word_stats_lpp.json")
	if res.code != 0 || !strings.Contains(res.out, "PASS    final_requires (1 condition holds)") {
		t.Fatalf("check of the written blueprint: exit %d\n%s", res.code, res.all())
	}
	res = contractorRun(t, root, "skills", "install", "output/contractor/word_stats_lpp")
	if res.code != 0 {
		t.Fatalf("install: exit %d\n%s", res.code, res.all())
	}
	res = contractorRun(t, root, "run", "skills/word_stats_lpp/word_stats_lpp.json")
	if res.code != 0 || !strings.Contains(res.out, `"words": 25`) || !strings.Contains(res.out, "completed in done") {
		t.Fatalf("the installed blueprint: exit %d\n%s", res.code, res.all())
	}
}

// Without an L++ target the blueprint stays an lppctl spec: the variable
// that names it is <skill>.yaml.
func TestContractorPlainTargetKeepsAYAMLBlueprint(t *testing.T) {
	noProvider(t)
	root := newContractorProject(t)
	res := contractorRun(t, root, "run", "specs/skill_contractor.yaml", "--var", "target="+contractorTarget, "--yes")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.all())
	}
	id := regexp.MustCompile(`(?m)^run (\S+) `).FindStringSubmatch(res.err)
	if id == nil {
		t.Fatalf("no run id in the output:\n%s", res.out)
	}
	res = contractorRun(t, root, "runs", "show", id[1])
	for _, want := range []string{`is_lpp_target        = false`, `lpp_validated        = false`, `spec_file            = "word_stats.yaml"`} {
		if !strings.Contains(res.out, want) {
			t.Errorf("runs show lacks %q:\n%s", want, res.out)
		}
	}
}
