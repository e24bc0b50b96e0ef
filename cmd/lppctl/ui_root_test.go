package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUIStartedInASubfolderServesTheProjectRunFinds: lppctl ui started in a
// subfolder of a project serves the project (the nearest folder holding
// config/tools_config.yaml, as run finds it and as the UI already kept its
// runs there), so that its Specs page validates a spec as run runs it. It
// served the subfolder, whose spec pages said "script not found in the
// project root SUBFOLDER" of a spec whose run completes.
func TestUIStartedInASubfolderServesTheProjectRunFinds(t *testing.T) {
	proj := t.TempDir()
	for name, text := range map[string]string{
		"config/tools_config.yaml": string(mustRead(t, filepath.Join(repoRoot(t), "config", "tools_config.yaml"))),
		"scripts/count.py":         "import json, sys\njson.load(sys.stdin)\nprint(json.dumps({\"n\": 3}))\n",
		"specs/count.yaml": "lpp: 1\nname: count\ncontext:\n  n: {type: int, default: 0}\ninitial: count\nstates:\n" +
			"  count:\n    do: script.run\n    with: {script: scripts/count.py, output: {n: n}}\n    next: [done]\n  done: {final: true}\n",
	} {
		p := filepath.Join(proj, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	cmd := exec.Command(lppctlExe(t), "ui", "--addr", "127.0.0.1:0")
	cmd.Dir = filepath.Join(proj, "specs")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
		_, _ = io.Copy(io.Discard, stdout)
	}()
	var first string
	select {
	case first = <-line:
	case <-time.After(30 * time.Second):
		t.Fatal("lppctl ui printed nothing in 30 s")
	}
	m := regexp.MustCompile(`^lppctl ui: serving (.*) on (http://\S+/) \(runs in (.*)\); Ctrl-C stops it\n$`).FindStringSubmatch(first)
	require.NotNil(t, m, first)
	assert.Equal(t, proj, m[1])
	assert.Equal(t, filepath.Join(proj, ".lppctl", "runs"), m[3])

	resp, err := http.Get(m[2] + "spec?path=specs/count.yaml")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.NotContains(t, string(body), "not found in the project root")
	assert.Contains(t, string(body), `id="start-run"`)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}
