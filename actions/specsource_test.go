package actions

import (
	"context"
	"strings"
	"testing"
)

// Small L++ blueprints for spec.validate and spec.check (docs/lpp.md).
const (
	// bpGood goes from start to done on START (the driver fires it).
	bpGood = `{
  "$schema": "lpp/v0.2.0",
  "id": "good",
  "context_schema": {"properties": {"n": {"type": "integer", "default": 0}}},
  "states": {"start": {}, "done": {}},
  "entry_state": "start",
  "terminal_states": ["done"],
  "transitions": [
    {"id": "go", "from": "start", "to": "done", "on_event": "START"}
  ],
  "name": "x",
  "version": "1"
}
`
	// bpUnknownState has a transition to a state that does not exist.
	bpUnknownState = `{
  "$schema": "lpp/v0.2.0",
  "id": "unknown_state",
  "states": {"start": {}, "done": {}},
  "entry_state": "start",
  "terminal_states": ["done"],
  "transitions": [
    {"id": "go", "from": "start", "to": "nowhere", "on_event": "START"}
  ],
  "name": "x",
  "version": "1"
}
`
	// bpNeverDone validates, but its gate never holds: done is unreachable
	// (only the model check sees it).
	bpNeverDone = `{
  "$schema": "lpp/v0.2.0",
  "id": "never_done",
  "context_schema": {"properties": {"n": {"type": "integer", "default": 0}}},
  "states": {"start": {}, "done": {}, "failed": {}},
  "entry_state": "start",
  "terminal_states": ["done", "failed"],
  "gates": {"big": {"type": "expression", "expression": "n > 5"}},
  "transitions": [
    {"id": "go", "from": "start", "to": "done", "on_event": "START", "gates": ["big"]},
    {"id": "no", "from": "start", "to": "failed", "on_event": "START"}
  ],
  "name": "x",
  "version": "1"
}
`
	// bpCompute scores with the compute unit risk:score.
	bpCompute = `{
  "$schema": "lpp/v0.2.0",
  "id": "compute",
  "context_schema": {"properties": {"risk": {"type": "number", "default": 0}}},
  "states": {"review": {}, "done": {}},
  "entry_state": "review",
  "terminal_states": ["done"],
  "actions": {"score": {"type": "compute", "compute_unit": "risk:score", "output_map": {"risk": "score"}}},
  "transitions": [
    {"id": "scored", "from": "review", "to": "done", "on_event": "START", "actions": ["score"]}
  ],
  "name": "x",
  "version": "1"
}
`
	// bpAssembly is an L++ document that is not a blueprint.
	bpAssembly = `{"$schema": "lpp/assembly/v0.1", "id": "m"}
`
)

// blueprintProject is a project with the blueprints above under a/, the
// compute unit's script and the validating and checking specs.
func blueprintProject(t *testing.T, extra map[string]string) *project {
	t.Helper()
	files := map[string]string{
		"a/validate.yaml":       strings.Replace(specValidator, "CHECK", "false", 1),
		"a/validate_check.yaml": strings.Replace(specValidator, "CHECK", "true", 1),
		"a/check.yaml":          checkerSpec,
		"a/good.json":           bpGood,
		"a/unknown_state.json":  bpUnknownState,
		"a/never_done.json":     bpNeverDone,
		"a/compute.json":        bpCompute,
		"a/assembly.json":       bpAssembly,
		"scripts/risk.py":       "import json, sys\nprint(json.dumps({'score': 1}))\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	return newProject(t, files)
}

// specValidator runs spec.validate on target (check: CHECK).
const specValidator = `
lpp: 1
name: validator
context:
  target: {type: string, default: ""}
  ok:     {type: bool, default: false}
  count:  {type: int, default: -1}
  report: {type: string, default: ""}
initial: check
states:
  check:
    do: spec.validate
    with: {path: target, ok: ok, errors: count, report: report, check: CHECK}
    next: [{to: done}]
  done: {final: true}
`

const computeMapping = "units:\n  risk:score: scripts/risk.py\n"

func TestSpecValidateReadsBlueprints(t *testing.T) {
	for _, c := range []struct {
		name, target string
		check        bool
		extra        map[string]string
		ok           bool
		count        int
		report       []string
	}{
		{name: "a blueprint that validates", target: "a/good.json", ok: true, report: []string{"a/good.json: ok"}},
		{name: "a blueprint that validates and checks", target: "a/good.json", check: true, ok: true,
			report: []string{"a/good.json: ok\n", "a/good.json: ", "PASS    no deadlock"}},
		{name: "an unknown state is positioned in the JSON", target: "a/unknown_state.json", count: 1,
			report: []string{`a/unknown_state.json:8:41: error: transition "go" goes to "nowhere", which is not a state`}},
		{name: "an unreachable terminal validates but fails the check", target: "a/never_done.json", check: true, count: 1,
			report: []string{"FAIL    every state reachable", `a/never_done.json:7:23: no path reaches state "done"`}},
		{name: "a compute unit without a mapping", target: "a/compute.json", count: 1,
			report: []string{"a/compute.json:8:15: error: no compute mapping for unit risk:score: add it to a/compute.lppctl.yaml"}},
		{name: "a compute unit placed by the mapping beside the blueprint", target: "a/compute.json", check: true,
			extra: map[string]string{"a/compute.lppctl.yaml": computeMapping}, ok: true, report: []string{"a/compute.json: ok", "PASS    no deadlock"}},
		{name: "an invalid mapping", target: "a/compute.json",
			extra: map[string]string{"a/compute.lppctl.yaml": "units: [risk]\n"}, count: 1,
			report: []string{"the compute mapping a/compute.lppctl.yaml is invalid:\na/compute.lppctl.yaml:1:8: error: units must map unit names (ns:op) to scripts"}},
		{name: "an L++ document that is not a blueprint", target: "a/assembly.json", count: 1,
			report: []string{"a/assembly.json:1:13: error: lpp/assembly/v0.1 is an L++ assembly, not a blueprint"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := blueprintProject(t, c.extra)
			v := map[bool]string{false: "a/validate.yaml", true: "a/validate_check.yaml"}[c.check]
			r, err := p.run(v, p.deps("a", ""), map[string]any{"target": c.target})
			if err != nil {
				t.Fatal(err)
			}
			report, _ := r.Var("report").(string)
			if r.Var("ok") != c.ok || r.Var("count") != c.count {
				t.Errorf("ok %v count %v, want %v %v", r.Var("ok"), r.Var("count"), c.ok, c.count)
			}
			for _, want := range c.report {
				if !strings.Contains(report, want) {
					t.Errorf("the report lacks %q", want)
				}
			}
			if t.Failed() {
				t.Logf("report:\n%s", report)
			}
		})
	}
}

func TestSpecCheckReadsBlueprints(t *testing.T) {
	for _, c := range []struct {
		name, target string
		extra        map[string]string
		ok           bool
		report       []string
	}{
		{name: "a blueprint that holds every property", target: "a/good.json", ok: true,
			report: []string{"a/good.json: ", "PASS    no deadlock", "PASS    every state reachable"}},
		{name: "a failure is positioned in the JSON", target: "a/never_done.json",
			report: []string{"FAIL    every state reachable", `a/never_done.json:7:23: no path reaches state "done"`}},
		{name: "an invalid blueprint is a failed check with its diagnostics", target: "a/unknown_state.json",
			report: []string{`a/unknown_state.json:8:41: error: transition "go" goes to "nowhere", which is not a state`}},
		{name: "a compute unit placed by the mapping", target: "a/compute.json",
			extra: map[string]string{"a/compute.lppctl.yaml": computeMapping}, ok: true, report: []string{"a/compute.json: ", "PASS    termination (no trap)"}},
		{name: "an invalid mapping", target: "a/compute.json",
			extra:  map[string]string{"a/compute.lppctl.yaml": "units: [risk]\n"},
			report: []string{"the compute mapping a/compute.lppctl.yaml is invalid:"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := blueprintProject(t, c.extra)
			r, err := p.run("a/check.yaml", p.deps("a", ""), map[string]any{"target": c.target})
			if err != nil {
				t.Fatal(err)
			}
			report, _ := r.Var("report").(string)
			if r.Var("ok") != c.ok {
				t.Errorf("ok %v, want %v", r.Var("ok"), c.ok)
			}
			for _, want := range c.report {
				if !strings.Contains(report, want) {
					t.Errorf("the report lacks %q", want)
				}
			}
			if t.Failed() {
				t.Logf("report:\n%s", report)
			}
		})
	}
}

// sandboxBlueprint is bpCompute with its unit in the installed skill's
// scripts (mapped by sandboxMapping).
var sandboxBlueprint = strings.Replace(bpCompute, `"id": "compute"`, `"id": "demo"`, 1)

const sandboxMapping = "units:\n  risk:score: skills/demo/scripts/risk.py\n"

func TestSpecSandboxReadsBlueprints(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		job    sandboxJob
		ok     bool
		report []string
	}{
		{
			name:   "placeholders stand in for the mapped scripts not written yet",
			files:  map[string]string{"demo.json": sandboxBlueprint, "demo.lppctl.yaml": sandboxMapping},
			job:    sandboxJob{dir: "gen/demo", spec: "demo.json", as: "skills/demo", placeholders: true},
			ok:     true,
			report: []string{"gen/demo/demo.json: valid (compile-only", "(placeholders stood in for the scripts not written yet: skills/demo/scripts/risk.py)"},
		},
		{
			name:   "a missing mapped script is positioned in the JSON without placeholders",
			files:  map[string]string{"demo.json": sandboxBlueprint, "demo.lppctl.yaml": sandboxMapping},
			job:    sandboxJob{dir: "gen/demo", spec: "demo.json", as: "skills/demo"},
			report: []string{`gen/demo/demo.json:8:15: error: parameter "script" of action "script.run": script "skills/demo/scripts/risk.py" not found in the project root (the sandbox)`},
		},
		{
			name:   "run runs the blueprint with its compute unit",
			files:  map[string]string{"demo.json": sandboxBlueprint, "demo.lppctl.yaml": sandboxMapping, "scripts/risk.py": "import json, sys\nprint(json.dumps({'score': 0.5}))\n"},
			job:    sandboxJob{dir: "gen/demo", spec: "demo.json", as: "skills/demo", run: true},
			ok:     true,
			report: []string{"ran in a sandbox copy with its demo.yaml: completed in state done after "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := sandboxProject(t, tt.files)
			res, err := (&Deps{Root: root}).sandbox(context.Background(), tt.job)
			if err != nil {
				t.Fatal(err)
			}
			if res.ok != tt.ok {
				t.Errorf("ok = %v, want %v", res.ok, tt.ok)
			}
			for _, want := range tt.report {
				if !strings.Contains(res.report, want) {
					t.Errorf("the report lacks %q", want)
				}
			}
			if t.Failed() {
				t.Logf("report:\n%s", res.report)
			}
		})
	}
}
