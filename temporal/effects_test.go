package temporal_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/temporal"
)

const moveSpec = `lpp: 1
name: mover
context:
  src: {type: string, default: "in/a.txt"}
  dst: {type: string, default: "b.txt"}
  status: {type: string, default: ""}
  result: {type: string, default: ""}
initial: move
states:
  move:
    do: tools.call
    with: {tool: safe_cli_executor, command: move_file, args: {src: src, dst: dst}, status: status, result: result}
    next: done
  done:
    final: true
`

// An action that moves a file and whose worker dies before it reports
// (the activity fails after the move) is retried: with the record of tool
// calls the retry gives back the move's result and the file is moved once;
// without it the move runs again and fails, the source being gone.
func TestRetriedActivityMakesItsToolCallOnce(t *testing.T) {
	tests := []struct {
		name       string
		effects    bool
		wantStatus string
		wantResult string // prefix
		wantLines  int    // in effects.jsonl
	}{
		{name: "recorded: replayed", effects: true, wantStatus: "ok", wantResult: "moved in/a.txt to b.txt", wantLines: 2},
		{name: "not recorded: made again", effects: false, wantStatus: "error", wantResult: "[ERROR]", wantLines: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &testHost{root: newProject(t), effects: tt.effects, dieAfter: "tools.call"}
			if err := os.MkdirAll(filepath.Join(h.root, "in"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(h.root, "in", "a.txt"), []byte("hello\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			rel := writeSpec(t, h.root, "mover.yaml", moveSpec)
			env := newEnv(t, h)
			env.ExecuteWorkflow(temporal.WorkflowName, startOf(t, h.root, rel, "run-move", nil))
			if err := env.GetWorkflowError(); err != nil {
				t.Fatalf("workflow: %v", err)
			}
			var p temporal.Progress
			if err := env.GetWorkflowResult(&p); err != nil {
				t.Fatal(err)
			}
			if h.runs["attempt 1"] != 1 || h.runs["attempt 2"] != 1 {
				t.Errorf("tools.call ran %v, want once on attempts 1 and 2", h.runs)
			}
			if p.Vars["status"] != tt.wantStatus || !strings.HasPrefix(p.Vars["result"].(string), tt.wantResult) {
				t.Errorf("status %q, result %q; want %q, %q...", p.Vars["status"], p.Vars["result"], tt.wantStatus, tt.wantResult)
			}
			if b, err := os.ReadFile(filepath.Join(h.root, "b.txt")); err != nil || string(b) != "hello\n" {
				t.Errorf("b.txt: %q %v", b, err)
			}
			if _, err := os.Stat(filepath.Join(h.root, "in", "a.txt")); !os.IsNotExist(err) {
				t.Errorf("in/a.txt is still there: %v", err)
			}
			b, _ := os.ReadFile(filepath.Join(h.root, ".lppctl", "temporal", "run-move", "effects", "0.jsonl"))
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			if len(b) == 0 {
				lines = nil
			}
			if len(lines) != tt.wantLines {
				t.Fatalf("effects.jsonl has %d lines, want %d:\n%s", len(lines), tt.wantLines, b)
			}
			for i, op := range []string{"begin", "done"}[:len(lines)] {
				var l struct {
					Op, Run, Action, What string
					Seq, Index, Attempt   int
				}
				if err := json.Unmarshal([]byte(lines[i]), &l); err != nil {
					t.Fatal(err)
				}
				if l.Op != op || l.Run != "run-move" || l.Seq != 0 || l.Action != "tools.call" || l.Index != 0 || l.What != "safe_cli_executor" || l.Attempt != 1 {
					t.Errorf("line %d: %s", i+1, lines[i])
				}
			}
		})
	}
}

// The record gives back a result only for the same effect: same run,
// step, action, place among the action's effects, tool and arguments; a
// begun effect never done (its attempt cut short), or a torn last line,
// counts as not done.
func TestEffectsReplayOnlyTheSameEffect(t *testing.T) {
	path := filepath.Join(t.TempDir(), temporal.EffectsFile)
	first := temporal.RunInfo{RunID: "r", Seq: 3, Action: "tools.call", Attempt: 1}
	rec := temporal.NewEffects(path, first)
	for i, args := range []string{`{"a":1}`, `{"a":2}`, `{"a":3}`} {
		_, found, done, err := rec.Begin("tool", []byte(args))
		if err != nil || found {
			t.Fatalf("effect %d: found %v, %v", i, found, err)
		}
		if i < 2 { // the third is cut short
			if err := done(json.RawMessage(`"result ` + args[len(args)-2:len(args)-1] + `"`)); err != nil {
				t.Fatal(err)
			}
		}
	}
	f, err := os.OpenFile(rec.Path(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"op":"done","run":"r","seq":3,"act`) // torn
	f.Close()

	retry := first
	retry.Attempt = 2
	tests := []struct {
		name  string
		run   temporal.RunInfo
		calls []string // in order
		want  []string // the replayed result of each, "" for none
	}{
		{name: "same calls in the same order", run: retry, calls: []string{`{"a":1}`, `{"a":2}`, `{"a":3}`}, want: []string{`"result 1"`, `"result 2"`, ""}},
		{name: "other arguments", run: retry, calls: []string{`{"a":2}`}, want: []string{""}},
		{name: "another step", run: temporal.RunInfo{RunID: "r", Seq: 4, Action: "tools.call"}, calls: []string{`{"a":1}`}, want: []string{""}},
		{name: "another run", run: temporal.RunInfo{RunID: "q", Seq: 3, Action: "tools.call"}, calls: []string{`{"a":1}`}, want: []string{""}},
		{name: "another action", run: temporal.RunInfo{RunID: "r", Seq: 3, Action: "spec.run"}, calls: []string{`{"a":1}`}, want: []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := temporal.NewEffects(path, tt.run)
			for i, args := range tt.calls {
				got, found, done, err := rec.Begin("tool", []byte(args))
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != tt.want[i] || found != (tt.want[i] != "") || (done == nil) != found {
					t.Errorf("call %d: %q found %v, want %q", i, got, found, tt.want[i])
				}
			}
		})
	}
	b, _ := os.ReadFile(rec.Path())
	if strings.Contains(string(b), `"act{`) {
		t.Errorf("a line was appended to the torn one:\n%s", b)
	}
}
