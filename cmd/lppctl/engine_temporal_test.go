package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/temporal"
)

// temporalCLI finds the Temporal CLI (it holds the dev server): on PATH, else
// in $(go env GOPATH)/bin. Without it the test is skipped, unless
// LPPCTL_REQUIRE_TEMPORAL=1 (CI installs it) makes that a failure.
func temporalCLI(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("temporal"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			if p := filepath.Join(dir, "bin", "temporal"); fileExists(p) {
				return p
			}
		}
	}
	if os.Getenv("LPPCTL_REQUIRE_TEMPORAL") == "1" {
		t.Fatal("LPPCTL_REQUIRE_TEMPORAL=1 but the Temporal CLI is neither on PATH nor in $(go env GOPATH)/bin")
	}
	t.Skip("the Temporal CLI is not installed (go install github.com/temporalio/cli/cmd/temporal@v1.5.1); LPPCTL_REQUIRE_TEMPORAL=1 makes this a failure")
	return ""
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startProcess starts a process that t.Cleanup kills (SIGKILL) and reaps.
func startProcess(t testing.TB, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("cannot start %s: %v", cmd.Path, err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return cmd
}

// devServer starts a Temporal dev server (in memory) on a loopback port
// and returns a client of it, whose payloads go through the default blob
// store of the project root (the workers' and lppctl's on that root).
func devServer(t testing.TB, root string) (string, client.Client) {
	t.Helper()
	addr, _ := startDevServer(t, "")
	return addr, dialDev(t, addr, root)
}

// startDevServer starts a dev server (on db, a file, when given: it keeps
// its state across a restart) and returns its address and process, once it
// listens. A server that exits before it listens (a port freePort gave was
// taken by another process in between) is started again on other ports.
func startDevServer(t testing.TB, db string) (string, *exec.Cmd) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
		cmd, log := launchDevServer(t, addr, db)
		if devServerListens(addr, cmd, 90*time.Second) {
			return addr, cmd
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if attempt == 3 {
			t.Fatalf("the dev server did not start on %s (3 attempts, each on other ports):\n%s", addr, log)
		}
		t.Logf("the dev server on %s did not start (attempt %d): trying other ports:\n%s", addr, attempt, log)
	}
}

// devServerListens waits until addr takes connections while the dev
// server cmd runs, and reports false if it exits first or nothing listens
// within wait. A server whose port another process holds exits within a
// second (it checks its ports first): a connection is taken as the
// server's once the server still runs half a second later.
func devServerListens(addr string, cmd *exec.Cmd, wait time.Duration) bool {
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if exited(cmd) {
			return false
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = c.Close()
			time.Sleep(500 * time.Millisecond)
			return !exited(cmd)
		}
	}
	return false
}

// exited reports whether cmd's process has exited (it is a zombie, not yet
// reaped by startProcess's clean-up, or gone).
func exited(cmd *exec.Cmd) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')') // after the command's name: " S ..."
	return i < 0 || i+2 >= len(b) || b[i+2] == 'Z' || b[i+2] == 'X'
}

// restartDevServer starts a dev server on addr.
func restartDevServer(t testing.TB, addr, db string) *exec.Cmd {
	t.Helper()
	cmd, _ := launchDevServer(t, addr, db)
	return cmd
}

// launchDevServer starts a dev server on addr and returns its process and
// its output.
func launchDevServer(t testing.TB, addr, db string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cli := temporalCLI(t)
	log := &syncBuffer{}
	cmd := exec.Command(cli, "server", "start-dev", "--headless", "--ip", "127.0.0.1",
		"--port", strings.TrimPrefix(addr, "127.0.0.1:"), "--http-port", fmt.Sprint(freePort(t)),
		"--metrics-port", fmt.Sprint(freePort(t)), "--db-filename", db, "--log-level", "error")
	cmd.Stdout, cmd.Stderr = log, log
	return startProcess(t, cmd), log
}

// dialDev returns a client of the dev server at addr with root's blob store.
func dialDev(t testing.TB, addr, root string) client.Client {
	t.Helper()
	store, err := temporal.NewDirStore(filepath.Join(root, ".lppctl", "temporal", "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	codec := temporal.NewCodec(store, 0, 0)
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		tc, err := temporal.Dial(ctx, addr, "default", nil, codec)
		cancel()
		if err == nil {
			t.Cleanup(tc.Close)
			return tc
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dev server did not answer on %s: %v", addr, err)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// entryRe finds a skills.md entry: its marker and body.
var entryRe = regexp.MustCompile(`(?s)<!-- lppctl:entry ([^/ ]+)/(\d+) -->\n(.*?)(?:\n### |\n## |\z)`)

// entriesOf returns the skills.md entries of each run: id → seq → body.
func entriesOf(t *testing.T, md string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, m := range entryRe.FindAllStringSubmatch(md, -1) {
		if out[m[1]] == nil {
			out[m[1]] = map[string]string{}
		}
		if _, dup := out[m[1]][m[2]]; dup {
			t.Errorf("skills.md holds entry %s/%s twice", m[1], m[2])
		}
		out[m[1]][m[2]] = strings.TrimSpace(m[3])
	}
	return out
}

type runView struct {
	ID      string         `json:"id"`
	RunID   string         `json:"run_id"`
	Status  string         `json:"status"`
	State   string         `json:"state"`
	Steps   int            `json:"steps"`
	Context map[string]any `json:"context"`
	Vars    map[string]any `json:"vars"`
	Memory  map[string]struct {
		Items []json.RawMessage `json:"items"`
	} `json:"memory"`
}

func canon(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Two lppctl workers serve 50 scripted Skills Agent runs at once (12
// without LPPCTL_FULL_TESTS=1); one is killed (SIGKILL) mid-way. Every run
// completes, on the other worker, with the same context, L2, skills.md
// entries (none duplicated) and output as a local run.
func TestTemporalRunsSurviveAWorkerKilledMidway(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server and 50 runs")
	}
	t.Parallel()
	runs := sized(t, "Skills Agent runs", 12, 50)
	bin := buildLppctl(t)
	env := childEnv("")

	// The reference: one local run.
	ref := newProject(t, "hello_skill")
	cmd := exec.Command(bin, "run", "specs/skills_agent.yaml", "--yes", "-q")
	cmd.Dir, cmd.Env = ref, env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "local run:\n%s", out)
	cmd = exec.Command(bin, "runs", "--json")
	cmd.Dir, cmd.Env = ref, env
	out, err = cmd.Output()
	require.NoError(t, err)
	var meta runView
	require.NoError(t, json.Unmarshal(bytes.SplitN(out, []byte("\n"), 2)[0], &meta), "runs --json: %s", out)
	cmd = exec.Command(bin, "runs", "show", meta.ID, "--json")
	cmd.Dir, cmd.Env = ref, env
	out, err = cmd.Output()
	require.NoError(t, err)
	var local runView
	require.NoError(t, json.Unmarshal(out, &local))
	localMD, _ := os.ReadFile(filepath.Join(ref, "skills", "hello_skill", "skills.md"))
	localEntries := entriesOf(t, string(localMD))[meta.ID]
	require.True(t, local.Status == "completed" && len(localEntries) > 0, "the local run: %s with %d skills.md entries", local.Status, len(localEntries))
	greeting, _ := os.ReadFile(filepath.Join(ref, "output", "hello_skill", "greeting.txt"))

	// Two workers on one project root.
	root := newProject(t, "hello_skill")
	addr, tc := devServer(t, root)
	var workers []*exec.Cmd
	for i := range 2 {
		w := exec.Command(bin, "worker", "--temporal", addr, "--root", root)
		w.Env = env
		var log bytes.Buffer
		w.Stdout, w.Stderr = &log, &log
		workers = append(workers, startProcess(t, w))
		_ = i
	}

	// The first run through the CLI, the others through the client.
	cmd = exec.Command(bin, "run", "--engine", "temporal", "--temporal", addr, "specs/skills_agent.yaml", "--yes")
	cmd.Dir, cmd.Env = root, env
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "run --engine temporal:\n%s", out)
	require.Contains(t, string(out), "completed in done after", "run --engine temporal")
	src, err := os.ReadFile(filepath.Join(root, "specs", "skills_agent.yaml"))
	require.NoError(t, err)
	agent, _ := json.Marshal(agentConfig{Skill: "skills/hello_skill", Yes: true, SpecDir: "specs"})
	ctx := context.Background()
	ids := make([]string, runs-1)
	for i := range ids {
		ids[i] = fmt.Sprintf("it-%02d", i)
		st := temporal.Start{RunID: ids[i], SpecPath: "specs/skills_agent.yaml", Spec: src, SpecHash: temporal.SpecHash(src), Agent: agent}
		require.NoError(t, temporal.StartRun(ctx, tc, "", st))
	}
	// Kill a worker once some steps are done and others not.
	for deadline := time.Now().Add(patience); ; time.Sleep(200 * time.Millisecond) {
		p, err := temporal.Query(ctx, tc, ids[len(ids)/2], 0)
		if err == nil && p.Steps >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the runs do not progress: %v", err)
		}
	}
	require.NoError(t, syscall.Kill(-workers[0].Process.Pid, syscall.SIGKILL))

	var wg sync.WaitGroup
	results := make([]*temporal.Progress, len(ids))
	errs := make([]error, len(ids))
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
			defer cancel()
			var p temporal.Progress
			for {
				errs[i] = tc.GetWorkflow(fctx, id, "").Get(fctx, &p)
				// One long poll of the history can time out on a loaded
				// machine (the race detector, two cores) while the run goes
				// on: poll again until the test's own deadline.
				if errs[i] == nil || fctx.Err() != nil || !strings.Contains(errs[i].Error(), "deadline exceeded") {
					break
				}
			}
			results[i] = &p
		}()
	}
	wg.Wait()
	md, _ := os.ReadFile(filepath.Join(root, "skills", "hello_skill", "skills.md"))
	entries := entriesOf(t, string(md))
	for i, id := range ids {
		p := results[i]
		if !assert.NoError(t, errs[i], "run %s", id) || !assert.Equal(t, machine.StatusCompleted, p.Status, "run %s: %+v", id, p) {
			continue
		}
		assert.Equal(t, local.State, p.State, "run %s: the state it ended in", id)
		assert.Equal(t, local.Steps, p.Steps, "run %s: its steps", id)
		assert.Equal(t, canon(local.Context), canon(p.Vars), "run %s: its context", id)
		mem, err := temporal.Memory(ctx, tc, id)
		if !assert.NoError(t, err) {
			continue
		}
		assert.Equal(t, canon(local.Memory["l2"].Items), canon(mem.Items("l2")), "run %s: L2", id)
		assert.Equal(t, canon(localEntries), canon(entries[id]), "run %s: skills.md entries", id)
	}
	got, _ := os.ReadFile(filepath.Join(root, "output", "hello_skill", "greeting.txt"))
	assert.Equal(t, string(greeting), string(got), "greeting.txt")
}
