package gateway

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// BenchmarkReadFile1KiB measures one safe_cli_executor read_file call of a
// 1 KiB file: argument decoding, blocked patterns, path checks, resolution and
// the native read (target ≤ 50 µs).
func BenchmarkReadFile1KiB(b *testing.B) {
	sb := newSandbox(b)
	sb.g.audit = nil
	sb.write(b, "docs/k.txt", strings.Repeat("abcdefghijklmno\n", 64))
	ctx := context.Background()
	args := map[string]any{"tool_name": "read_file", "params": map[string]any{"path": "docs/k.txt"}}
	b.ReportAllocs()
	for b.Loop() {
		if res := sb.g.Call(ctx, ToolCLI, args); res.Decision != DecisionAllow {
			b.Fatal(res.Text)
		}
	}
}

// BenchmarkPythonBare is the baseline: spawning the interpreter with -c pass.
func BenchmarkPythonBare(b *testing.B) {
	needPython(b)
	sb := newSandbox(b)
	sb.g.realPy.Do(sb.g.resolveInterpreter)
	py := sb.g.python
	for b.Loop() {
		cmd := exec.Command(py, "-c", "pass")
		cmd.Dir = sb.root
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunnerPass runs an empty script through safe_py_runner; the
// difference to BenchmarkPythonBare is the runner's overhead (target ≤ 2 ms).
func BenchmarkRunnerPass(b *testing.B) {
	needPython(b)
	sb := newSandbox(b)
	sb.g.audit = nil
	sb.write(b, "scripts/pass.py", "pass\n")
	ctx := context.Background()
	args := map[string]any{"script_name": "scripts/pass.py"}
	for b.Loop() {
		if res := sb.g.Call(ctx, ToolRunner, args); res.Decision != DecisionAllow {
			b.Fatal(res.Text)
		}
	}
}

// BenchmarkRunnerChecks measures only the runner's checks (no spawn).
func BenchmarkRunnerChecks(b *testing.B) {
	sb := newSandbox(b)
	sb.write(b, "scripts/pass.py", "pass\n")
	req := runRequest{script: "scripts/pass.py", args: []string{"out.md"}, env: [][2]string{{"NAME", "Ada"}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, res, ok := sb.g.checkRun(req, ToolRunner); !ok {
			b.Fatal(res.Text)
		}
		_ = sb.g.environ(req.script, req.env, false)
	}
}

// BenchmarkRunnerOverhead interleaves a bare `python3 -c pass` spawn and a
// safe_py_runner call of an empty script, so machine load hits both alike, and
// reports the mean difference as overhead-ms/op (target ≤ 2 ms).
func BenchmarkRunnerOverhead(b *testing.B) {
	needPython(b)
	sb := newSandbox(b)
	sb.g.audit = nil
	sb.write(b, "scripts/pass.py", "pass\n")
	ctx := context.Background()
	args := map[string]any{"script_name": "scripts/pass.py"}
	sb.g.Call(ctx, ToolRunner, args) // resolve the interpreter once
	py := sb.g.python
	var bare, runner time.Duration
	n := 0
	for b.Loop() {
		t0 := time.Now()
		cmd := exec.Command(py, "-c", "pass")
		cmd.Dir = sb.root
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if res := sb.g.Call(ctx, ToolRunner, args); res.Decision != DecisionAllow {
			b.Fatal(res.Text)
		}
		t2 := time.Now()
		bare += t1.Sub(t0)
		runner += t2.Sub(t1)
		n++
	}
	b.ReportMetric(float64(bare.Microseconds())/1000/float64(n), "bare-ms/op")
	b.ReportMetric(float64(runner.Microseconds())/1000/float64(n), "runner-ms/op")
	b.ReportMetric(float64((runner-bare).Microseconds())/1000/float64(n), "overhead-ms/op")
}

// BenchmarkResolveInterpreter measures finding the real interpreter behind
// python3 (a pyenv shim on a typical developer machine) with the per-process
// cache cleared each time: the file-based resolution, or, where the files
// cannot tell, one `python3 -c` start. The sub-benchmark "asking python"
// is the old way, for comparison.
func BenchmarkResolveInterpreter(b *testing.B) {
	needPython(b)
	sb := newSandbox(b)
	found := sb.g.python
	b.Run("from files", func(b *testing.B) {
		for b.Loop() {
			resolvedInterpreters.Clear()
			sb.g.python = found
			sb.g.resolveInterpreter()
		}
		b.Logf("%s -> %s", found, sb.g.python)
	})
	b.Run("asking python", func(b *testing.B) {
		for b.Loop() {
			sb.g.python = found
			if _, ok := sb.g.interpreterFromPython(); !ok {
				b.Fatal("python did not answer")
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			sb.g.python = found
			sb.g.resolveInterpreter()
		}
	})
}
