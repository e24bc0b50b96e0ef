package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/internal/fsx"
	"github.com/lppctl/lppctl/machine/check"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// timesRE is the part of a check report's summary line that varies from
// run to run: ", 0s (282167 pairs/s)".
var timesRE = regexp.MustCompile(`, [0-9.]+[µnm]?s \([0-9]+ pairs/s\)`)

// Every test blueprint is model-checked as check reads it (translated in
// memory, with the compute mapping beside it). Each FAIL is a real
// property of that blueprint, stated here and at the top of its golden
// report (machine/testdata/lpp/NAME.check.golden; -update rewrites them),
// never a false alarm: the check starts from the blueprint's own initial
// context (every property null unless it has a default), while its end to
// end test (lpp_e2e_test.go) gives some of them values with run --var.
func TestCheckEveryTestBlueprint(t *testing.T) {
	tests := map[string]struct {
		fails []string // the titles of the properties that fail
		why   string
	}{
		"auto_done": {[]string{"every state reachable"}, `action "inc" sets rounds to 1, not rounds + 1, so gate "more" (rounds < 3) always holds: ` +
			`check's AUTO goes back to work forever, "finished" is never reached, and only ERROR ends the run (in "failed")`},
		"chained_sets": {[]string{"final_requires"}, `SUBMIT copies the payload's a into a, then into b; a SUBMIT without a leaves it None (as in lpp, docs/lpp.md), ` +
			`so "t" is reached with b None and its terminal contract (b non_null) fails`},
		"compute_gate": {nil, ""},
		"display_kept": {nil, ""},
		"emitter":      {nil, ""},
		"legacy": {[]string{"every state reachable"}, `gate "enough" (count >= 0) always holds (count starts at 0 and is only set to 1), ` +
			`so work's DONE always finishes and the translation's fallback work__wait is never entered`},
		"many_gates": {[]string{"every state reachable"}, `score starts null and no transition writes it, so no band gate holds and SUBMIT ` +
			`is never taken: every band (and "ungraded", after them) is unreached from the blueprint's initial context (the run test gives score with --var)`},
		"python_dialect": {[]string{"every state reachable"}, `meta, tags and score start null and nothing writes them, so g1 (meta.get('k', 0) > 2 and 'x' in tags) never holds ` +
			`and "ok" is unreached from the blueprint's initial context (the run test gives them with --var)`},
		"retry_error": {[]string{"every state reachable"}, `errors starts at 0 and nothing writes it, so gate "fine" (errors == 0) always holds: ` +
			`run's DONE always goes to done, and "wait" and "gave_up" are unreached from the blueprint's initial context`},
		"star_first": {nil, `level starts at 0 and nothing writes it: the "*" HALT transition (level > 2) is never taken (a warning, not a failure)`},
		"ticket": {nil, `terminal contract of "done" (target non_null) holds: done is entered only when gate target_ok (target is not None) holds. ` +
			`t_submit_empty is taken by a SUBMIT without target (None, as in lpp)`},
		"types_enums": {nil, ""},
	}
	src := filepath.Join(repoRoot(t), "machine", "testdata", "lpp")
	all, err := filepath.Glob(filepath.Join(src, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		name := strings.TrimSuffix(filepath.Base(p), ".json")
		tt, ok := tests[name]
		if !ok {
			t.Errorf("test blueprint %s is not checked: add it to the table", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{name + ".json", name + ".lppctl.yaml"} {
				b, err := os.ReadFile(filepath.Join(src, f))
				if os.IsNotExist(err) {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, out, errOut := runCLI(t, "check", filepath.Join(dir, name+".json"))
			out = timesRE.ReplaceAllString(strings.ReplaceAll(out, dir+string(filepath.Separator), ""), "")
			if want := map[bool]int{true: exitFailed, false: 0}[len(tt.fails) > 0]; code != want {
				t.Fatalf("exit code %d, want %d\n%s%s", code, want, out, errOut)
			}
			var failed []string
			for line := range strings.Lines(out) {
				if title, ok := strings.CutPrefix(line, "  FAIL    "); ok {
					failed = append(failed, strings.TrimSpace(title))
				}
			}
			if !slices.Equal(failed, tt.fails) {
				t.Errorf("failing properties %q, want %q\n%s", failed, tt.fails, out)
			}
			if strings.Contains(out, "UNKNOWN") || strings.Contains(out, ".spec.yaml:") {
				t.Errorf("an UNKNOWN verdict, or a position left in the translated spec:\n%s", out)
			}
			got := out
			if tt.why != "" {
				got = "# " + tt.why + "\n" + out
			}
			golden := filepath.Join(src, name+".check.golden")
			if *updateScripts {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./cmd/lppctl -run TestCheckEveryTestBlueprint -update writes it)", err)
			}
			if got != string(want) {
				t.Errorf("report of %s:\n%s\nwant (%s; -update rewrites it):\n%s", name, got, golden, want)
			}
		})
	}
}

// brokenContractBlueprint has a shortcut (SKIP) into "done" that skips the
// transition filling the output its terminal contract requires.
const brokenContractBlueprint = `{
  "$schema": "lpp/v0.2.0",
  "id": "review",
  "context_schema": {"properties": {"target": {"type": "string"}}},
  "states": {"idle": {}, "review": {}, "done": {}},
  "entry_state": "idle",
  "terminal_states": {
    "done": {"output_schema": {"target": {"type": "string", "non_null": true}}}
  },
  "actions": {"take": {"type": "set", "target": "target", "value_from": "event.payload.target"}},
  "transitions": [
    {"id": "submit", "from": "idle", "to": "review", "on_event": "SUBMIT", "actions": ["take"]},
    {"id": "approve", "from": "review", "to": "done", "on_event": "APPROVE"},
    {"id": "skip", "from": "idle", "to": "done", "on_event": "SKIP"}
  ],
  "name": "x",
  "version": "1"
}
`

// A terminal contract violated on some path fails final_requires, with the
// output's key and each step of the counterexample positioned in the JSON,
// in the text report and in --json.
func TestCheckBlueprintWithABrokenTerminalContract(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "review.json")
	if err := os.WriteFile(path, []byte(brokenContractBlueprint), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "check", path)
	if code != exitFailed {
		t.Fatalf("exit code %d, want %d\n%s%s", code, exitFailed, out, errOut)
	}
	for _, want := range []string{
		"  FAIL    final_requires\n" +
			"          " + path + `:8:32: the run ends in "done" but final_requires "target" of state "done" (target != nil) is false: target=<nil>` + "\n" +
			"          shortest counterexample (2 steps):\n" +
			"           1. idle → done    event SKIP from outside at " + path + ":14:5\n" +
			"           2. done           stops here\n",
		"  PASS    no deadlock\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks\n%s\ngot:\n%s", want, out)
		}
	}
	if want := "lppctl: " + path + ": a property fails (see the counterexample above)\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	_, js, _ := runCLI(t, "check", "--json", path)
	var reps []jsonCheckReport
	if err := json.Unmarshal([]byte(js), &reps); err != nil || len(reps) != 1 || reps[0].Report == nil {
		t.Fatalf("--json: %v\n%s", err, js)
	}
	r := reps[0].Report
	p := r.Property(check.PropFinalRequires)
	if r.File != path || p.Verdict != check.Fail || p.Pos != (mspec.Pos{Line: 8, Col: 32}) || p.Trace == nil ||
		p.Trace.Steps[0].Pos != (mspec.Pos{Line: 14, Col: 5}) || p.Trace.Steps[0].Via != "event SKIP" {
		t.Errorf("--json report: file %s, final_requires %+v, counterexample %+v", r.File, p, p.Trace)
	}
}

// check DIR and validate DIR take the blueprints below DIR (*.json with
// an L++ blueprint's $schema) beside its specs, and leave other JSON files
// (and a demo's scripted replies) alone.
func TestCheckAndValidateOfADirectoryTakeItsBlueprints(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"review.json":    brokenContractBlueprint,
		"package.json":   `{"name": "not a blueprint"}`,
		"policy.json":    `{"$schema": "lpp/policy/v0.1.0"}`,
		"demo.yaml":      "replies: [hi]\n",
		"b/counter.yaml": "lpp: 1\nname: c\ninitial: a\nstates:\n  a: {next: [done]}\n  done: {final: true}\n",
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := expandSpecDirs([]string{dir}, fsx.DefaultMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "b", "counter.yaml"), filepath.Join(dir, "review.json")}
	if !slices.Equal(got, want) {
		t.Errorf("expandSpecDirs: %q, want %q", got, want)
	}
	code, out, errOut := runCLI(t, "validate", dir)
	if code != 0 || !strings.Contains(out, filepath.Join(dir, "review.json")+": ok\n") {
		t.Errorf("validate DIR: exit code %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "check", dir)
	if code != exitFailed || !strings.Contains(out, filepath.Join(dir, "review.json")+": 7 (state, context) pairs") || !strings.Contains(out, filepath.Join(dir, "b", "counter.yaml")+": ") {
		t.Errorf("check DIR: exit code %d\n%s", code, out)
	}
}
