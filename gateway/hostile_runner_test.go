//go:build unix

package gateway

import (
	"strings"
	"testing"
	"time"
)

// Interpreter options sent as args reach the script, never Python.
func TestInterpreterOptionsAreScriptArgs(t *testing.T) {
	needPython(t)
	sb := newSandbox(t)
	sb.write(t, "scripts/argv.py", "import sys\nprint(sys.argv[1:], sys.flags.isolated, sys.flags.ignore_environment, sys.flags.dev_mode)\n")
	args := []any{"-c", "import os", "-m", "http.server", "-I", "-E", "-X", "dev", "-W", "error", "--", "-"}
	res := sb.run(map[string]any{"script_name": "scripts/argv.py", "args": args})
	want := "['-c', 'import os', '-m', 'http.server', '-I', '-E', '-X', 'dev', '-W', 'error', '--', '-'] 0 0 False"
	if res.Text != want {
		t.Fatalf("got  %q\nwant %q", res.Text, want)
	}
}

// A child that keeps stdout open after the script exits must not hold the
// call past the wait delay; it is killed with the process group.
func TestAChildHoldingThePipeDoesNotHangTheCall(t *testing.T) {
	needPython(t)
	sb := spawnerSandbox(t, 30*time.Second)
	sb.write(t, "scripts/holder.py", `import subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import os, time; open('child.pid', 'w').write(str(os.getpid())); time.sleep(60)"])
while True:
    try:
        if open('child.pid').read():
            break
    except OSError:
        pass
    time.sleep(0.01)
print("parent done", flush=True)
`)
	start := time.Now()
	res := sb.run(map[string]any{"script_name": "scripts/holder.py"})
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the call took %s", took)
	}
	if !strings.Contains(res.Text, "parent done") {
		t.Errorf("res = %+v", res)
	}
	assertGone(t, waitPID(t, sb.root))
}

// A script ignoring SIGTERM is killed all the same (SIGKILL) at the timeout.
func TestAScriptIgnoringSIGTERMIsKilled(t *testing.T) {
	needPython(t)
	sb := spawnerSandbox(t, 1500*time.Millisecond)
	sb.write(t, "scripts/stubborn.py", "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('up', flush=True)\ntime.sleep(60)\n")
	start := time.Now()
	res := sb.run(map[string]any{"script_name": "scripts/stubborn.py"})
	if took := time.Since(start); took > 8*time.Second {
		t.Errorf("the call took %s", took)
	}
	if !res.TimedOut || !strings.HasPrefix(res.Text, "[ERROR] timed out after 1.5s") || !strings.HasSuffix(res.Text, "\nup") {
		t.Errorf("res = %+v", res)
	}
}

// A script printing hundreds of MB is cut at max_output_bytes; the gateway
// only counts the rest.
func TestAnOutputFloodIsCapped(t *testing.T) {
	needPython(t)
	sb := newSandbox(t)
	sb.write(t, "scripts/flood.py", "import sys\nb = 'x' * (1 << 20)\nfor _ in range(256):\n    sys.stdout.write(b)\n    sys.stderr.write(b)\n")
	res := sb.run(map[string]any{"script_name": "scripts/flood.py"})
	max := sb.g.policy.Limits.MaxOutputBytes
	if len(res.Text) > 2*max+1024 {
		t.Fatalf("result is %d bytes", len(res.Text))
	}
	for _, want := range []string{"[TRUNCATED: stdout was 268435456 bytes; showing the first 32768]", "[TRUNCATED: stderr was 268435456 bytes; showing the first 32768]"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("no %q in %.200s…", want, res.Text)
		}
	}
}
