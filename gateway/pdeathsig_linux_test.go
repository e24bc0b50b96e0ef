package gateway

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pdeathHelperEnv makes the test binary a stand-in lppctl: it runs a sleeping
// script through the gateway at the root named by the variable.
const pdeathHelperEnv = "LPPCTL_GATEWAY_PDEATH_ROOT"

func init() {
	root := os.Getenv(pdeathHelperEnv)
	if root == "" {
		return
	}
	p, err := LoadPolicy(filepath.Join(root, "config", "tools_config.yaml"))
	if err != nil {
		os.Exit(3)
	}
	g, err := New(root, p)
	if err != nil {
		os.Exit(3)
	}
	g.Call(context.Background(), ToolRunner, map[string]any{"script_name": "scripts/sleep.py"})
	os.Exit(0)
}

// TestScriptDiesWithLppctl: a kill -9 of lppctl takes the running script with
// it, so that a resumed run's re-run of the step has no orphan beside it.
func TestScriptDiesWithLppctl(t *testing.T) {
	needPython(t)
	sb := newSandbox(t)
	pidFile := filepath.Join(sb.root, "output", "pid")
	sb.write(t, "scripts/sleep.py", "import os, time\nos.makedirs('output', exist_ok=True)\nopen('output/pid.tmp', 'w').write(str(os.getpid()))\nos.replace('output/pid.tmp', 'output/pid')\ntime.sleep(30)\n")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), pdeathHelperEnv+"="+sb.root)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	for deadline := time.Now().Add(20 * time.Second); pid == 0; {
		if b, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the script did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Kill() // SIGKILL: lppctl gets no chance to clean up
	cmd.Wait()
	for deadline := time.Now().Add(5 * time.Second); !processGone(pid); {
		if time.Now().After(deadline) {
			t.Fatalf("script %d outlived the killed lppctl", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
