package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestClosedStdoutDoesNotKillTheRun is `lppctl run | head`: the reader of
// stdout is gone before the first step. The run must not die of SIGPIPE
// (leaving it "crashed"): it completes, without showing its progress.
func TestClosedStdoutDoesNotKillTheRun(t *testing.T) {
	t.Parallel() // child processes: independent of the other tests
	bin := buildLppctl(t)
	for _, mode := range [][]string{{}, {"--json"}} {
		t.Run(strings.Join(append([]string{"run"}, mode...), " "), func(t *testing.T) {
			root := slowProject(t)
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			r.Close() // head has exited
			cmd := exec.Command(bin, append([]string{"run", "slow.yaml"}, mode...)...)
			cmd.Dir, cmd.Env = root, childEnv("")
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = w, &stderr
			err = cmd.Run()
			w.Close()
			if err != nil {
				t.Fatalf("the run with a closed stdout: %v (%s)\n%s", err, cmd.ProcessState, stderr.String())
			}
			if got := finalState(t, root); got.steps != 21 { // finalState checks it completed
				t.Errorf("the run took %d steps, want 21", got.steps)
			}
		})
	}
}
