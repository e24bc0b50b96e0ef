package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lppctl/lppctl/gateway"
	"github.com/lppctl/lppctl/temporal"
)

// A worker's gateway records each tool call of an action: the same call
// made again by a retry of the action (another attempt, another gateway)
// gets the first result back and is not made again.
func TestTemporalWorkerToolCallsAreMadeOnce(t *testing.T) {
	root := newProject(t, "hello_skill")
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	policy, err := gateway.LoadPolicy(filepath.Join(root, "config", "tools_config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), temporal.EffectsFile)
	move := map[string]any{"tool_name": "move_file", "params": map[string]any{"src": "a.txt", "dst": "b.txt"}}
	var results []gateway.Result
	for attempt := 1; attempt <= 2; attempt++ {
		run := temporal.RunInfo{RunID: "r1", Seq: 4, Action: "tools.call", Attempt: attempt}
		gw, err := gateway.New(root, policy, gateway.WithEffects(toolEffects{temporal.NewEffects(path, run)}))
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, gw.Call(context.Background(), gateway.ToolCLI, move))
		gw.Close()
	}
	if results[0].Decision != gateway.DecisionAllow || results[1].Text != results[0].Text || results[1].Decision != results[0].Decision {
		t.Errorf("first %+v, retry %+v; want the retry to give back the first", results[0], results[1])
	}
	if b, err := os.ReadFile(filepath.Join(root, "b.txt")); err != nil || string(b) != "hello\n" {
		t.Errorf("b.txt: %q %v", b, err)
	}
}
