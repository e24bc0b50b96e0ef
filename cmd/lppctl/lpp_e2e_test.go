package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/internal/testenv"
	"github.com/lppctl/lppctl/machine/lpp"
)

// lppRiskScript is the compute units of compute_gate.json (risk:check,
// risk:score), as its mapping places them: scripts/risk.py.
const lppRiskScript = `import json, sys

d = json.load(sys.stdin)
if d["lpp_function"] == "check":
    print(json.dumps({"result": d["owner"] != "mallory"}))
else:
    print(json.dumps({"score": float(d["amount"]) * 2}))
`

// lppEvent is an event delivered by resume --event (with its payload).
type lppEvent struct{ name, payload string }

// Every test blueprint is imported, written back (export --format lpp),
// validated (as the imported spec and as the blueprint itself) and run to completion, once from the imported spec
// and once from the blueprint, with its compute units as Python scripts
// and the events it needs given to run (--event, --payload) or to resume.
func TestEveryTestBlueprintImportsValidatesAndRunsToCompletion(t *testing.T) {
	testenv.Python(t)
	tests := []struct {
		blueprint string
		run       []string   // run's arguments
		resume    []lppEvent // then delivered by resume, one at a time
		final     string
		vars      map[string]any // part of the final context
	}{
		{blueprint: "auto_done", run: []string{"--event", "ERROR"}, final: "failed"},
		{blueprint: "chained_sets", run: []string{"--event", "SUBMIT", "--payload", `{"a": "x"}`},
			final: "t", vars: map[string]any{"a": "x", "b": "x", "c": map[string]any{"k": []any{1, 2}}}},
		{blueprint: "compute_gate", run: []string{"--var", "owner=ann"}, resume: []lppEvent{{"SUBMIT", `{"amount": "3"}`}},
			final: "approved", vars: map[string]any{"risk": 6.0}},
		{blueprint: "compute_gate", run: []string{"--var", "owner=mallory", "--event", "SUBMIT", "--payload", `{"amount": "3"}`},
			final: "rejected", vars: map[string]any{"risk": nil}},
		{blueprint: "display_kept", run: []string{"--event", "SUBMIT"}, final: "y"},
		{blueprint: "emitter", run: []string{"--event", "SUBMIT", "--payload", `{"msg": "hi"}`}, final: "notified", vars: map[string]any{"msg": "hi"}},
		{blueprint: "legacy", final: "end", vars: map[string]any{"count": 1}},
		{blueprint: "many_gates", run: []string{"--var", "score=42", "--event", "SUBMIT"}, final: "band13"},
		{blueprint: "many_gates", run: []string{"--var", "score=-1", "--event", "SUBMIT"}, final: "ungraded"},
		{blueprint: "python_dialect", run: []string{"--var", `meta={"k": 3, "name": "n"}`, "--var", `tags=["x"]`, "--var", "score=4", "--event", "SUBMIT"}, final: "ok"},
		{blueprint: "python_dialect", run: []string{"--var", "score=40", "--event", "SUBMIT", "--payload", `{"force": false}`}, final: "ko"},
		{blueprint: "retry_error", final: "done"},
		{blueprint: "star_first", run: []string{"--event", "NEXT"}, resume: []lppEvent{{"HALT", ""}}, final: "stop"},
		{blueprint: "star_first", run: []string{"--var", "level=3", "--event", "HALT"}, final: "stop"},
		{blueprint: "ticket", resume: []lppEvent{{"SUBMIT", `{"target": "x"}`}}, final: "done", vars: map[string]any{"target": "x"}},
		{blueprint: "types_enums", run: []string{"--event", "SUBMIT"}, final: "e"},
	}
	src := filepath.Join(repoRoot(t), "machine", "testdata", "lpp")
	all, err := filepath.Glob(filepath.Join(src, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.blueprint] = true
	}
	for _, p := range all {
		if name := strings.TrimSuffix(filepath.Base(p), ".json"); !covered[name] {
			t.Errorf("test blueprint %s is not run", name)
		}
	}
	for i, tt := range tests {
		t.Run(fmt.Sprintf("%s to %s", tt.blueprint, tt.final), func(t *testing.T) {
			root := t.TempDir()
			copyTree(t, filepath.Join(repoRoot(t), "config", "tools_config.yaml"), filepath.Join(root, "config", "tools_config.yaml"))
			writeFile(t, filepath.Join(root, "scripts", "risk.py"), lppRiskScript)
			bp := filepath.Join(root, tt.blueprint+".json")
			copyTree(t, filepath.Join(src, tt.blueprint+".json"), bp)
			if m := filepath.Join(src, tt.blueprint+".lppctl.yaml"); exists(m) {
				copyTree(t, m, filepath.Join(root, tt.blueprint+".lppctl.yaml"))
			}
			spec := filepath.Join(root, tt.blueprint+".yaml")
			if code, _, stderr := runCLI(t, "import", "lpp", bp, "-o", spec); code != 0 {
				t.Fatalf("import: exit %d\n%s", code, stderr)
			}
			// Written back, the spec gives the blueprint's transitions again
			// (those of terminal states aside: import drops them).
			back := filepath.Join(root, "back.json")
			if code, _, stderr := runCLI(t, "export", "--format", "lpp", spec, "-o", back); code != 0 {
				t.Fatalf("export --format lpp: exit %d\n%s", code, stderr)
			}
			orig, err := lpp.Load(bp)
			if err != nil {
				t.Fatal(err)
			}
			again, err := lpp.Load(back)
			if err != nil {
				t.Fatal(err)
			}
			var want, got []string
			for _, tr := range orig.Transitions {
				if !orig.IsTerminal(tr.From) {
					want = append(want, fmt.Sprint(tr.ID, tr.From, tr.To, tr.Event, tr.Gates, tr.Actions))
				}
			}
			for _, tr := range again.Transitions {
				got = append(got, fmt.Sprint(tr.ID, tr.From, tr.To, tr.Event, tr.Gates, tr.Actions))
			}
			if !slices.Equal(got, want) {
				t.Errorf("written back, the transitions are\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for _, file := range []string{spec, bp} {
				if code, stdout, stderr := runCLI(t, "validate", "--root", root, file); code != 0 {
					t.Fatalf("validate %s: exit %d\n%s%s", filepath.Base(file), code, stdout, stderr)
				}
			}
			for _, file := range []string{spec, bp} {
				runs := filepath.Join(root, fmt.Sprintf("runs-%d-%s", i, filepath.Ext(file)[1:]))
				args := append([]string{"run", "-q", "--root", root, "--run-dir", runs, file}, tt.run...)
				code, stdout, stderr := runCLI(t, args...)
				for _, e := range tt.resume {
					if code != exitPaused {
						t.Fatalf("%s: exit %d before %s, want %d (paused)\n%s%s", filepath.Base(file), code, e.name, exitPaused, stdout, stderr)
					}
					args := []string{"resume", "-q", "--run-dir", runs, onlyRun(t, runs), "--event", e.name}
					if e.payload != "" {
						args = append(args, "--payload", e.payload)
					}
					code, stdout, stderr = runCLI(t, args...)
				}
				if code != 0 {
					t.Fatalf("%s: exit %d\n%s%s", filepath.Base(file), code, stdout, stderr)
				}
				meta, snap := foldRun(t, runs, onlyRun(t, runs))
				if meta.Status != "completed" || snap.State != tt.final {
					t.Fatalf("%s: run %s in %s, want completed in %s\n%s", filepath.Base(file), meta.Status, snap.State, tt.final, stdout)
				}
				for k, want := range tt.vars {
					if got := snap.Vars[k]; jsonText(got) != jsonText(want) {
						t.Errorf("%s: %s = %s, want %s", filepath.Base(file), k, jsonText(got), jsonText(want))
					}
				}
			}
		})
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
