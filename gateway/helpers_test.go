package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/lppctl/lppctl/internal/testenv"
)

const policyFile = "../config/tools_config.yaml"

// testPolicy loads the project's real policy.
func testPolicy(t testing.TB) *Policy {
	t.Helper()
	p, err := LoadPolicy(policyFile)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// sandbox is a temp dir holding the project root and, next to it, an
// "outside" directory with a canary file the gateway must never read.
type sandbox struct {
	dir     string // parent of root and outside
	root    string
	outside string
	canary  string // content of outside/canary.txt
	g       *Gateway
	audit   *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newSandbox(t testing.TB, opts ...Option) *sandbox {
	t.Helper()
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	sb := &sandbox{dir: dir, root: filepath.Join(dir, "root"), outside: filepath.Join(dir, "outside"), audit: &syncBuffer{}}
	var buf [16]byte
	rand.Read(buf[:])
	sb.canary = "CANARY-" + hex.EncodeToString(buf[:])
	for _, d := range []string{sb.root, sb.outside, filepath.Join(sb.root, "scripts"), filepath.Join(sb.root, "skills", "hello", "scripts"), filepath.Join(sb.root, "docs"), filepath.Join(sb.root, "config"), filepath.Join(sb.root, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sb.write(t, "../outside/canary.txt", sb.canary)
	sb.write(t, "../outside/evil.py", "print('"+sb.canary+"')\n")
	sb.write(t, "docs/readme.md", "# Readme\nhello\n")
	sb.write(t, ".git/config", "[core]\n")
	sb.write(t, "scripts/echo.py", "import sys, os\nprint('args', sys.argv[1:])\ndata = sys.stdin.read()\nif data:\n    print('stdin', data)\n")
	sb.write(t, "skills/hello/scripts/greet.py", "import os\nprint('hello ' + os.environ.get('NAME', 'nobody'))\n")
	policy, err := os.ReadFile(policyFile)
	if err != nil {
		t.Fatal(err)
	}
	sb.write(t, "config/tools_config.yaml", string(policy))
	p, err := LoadPolicy(filepath.Join(sb.root, "config", "tools_config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(sb.root, p, append([]Option{WithAudit(sb.audit)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	sb.g = g
	return sb
}

// write creates a file relative to the root (".." reaches the sandbox dir).
func (sb *sandbox) write(t testing.TB, rel, content string) {
	t.Helper()
	p := filepath.Join(sb.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (sb *sandbox) symlink(t testing.TB, target, rel string) {
	t.Helper()
	if err := os.Symlink(target, filepath.Join(sb.root, filepath.FromSlash(rel))); err != nil {
		t.Fatal(err)
	}
}

// cli calls safe_cli_executor.
func (sb *sandbox) cli(sub string, params map[string]any) Result {
	return sb.g.Call(context.Background(), ToolCLI, map[string]any{"tool_name": sub, "params": params})
}

// run calls safe_py_runner.
func (sb *sandbox) run(args map[string]any) Result {
	return sb.g.Call(context.Background(), ToolRunner, args)
}

// snapshot lists every path under the sandbox dir outside the root, with sizes.
func (sb *sandbox) snapshot(t testing.TB) string {
	t.Helper()
	var lines []string
	filepath.WalkDir(sb.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p == sb.root {
			return filepath.SkipDir
		}
		info, _ := d.Info()
		size := int64(0)
		if info != nil && !d.IsDir() {
			size = info.Size()
		}
		lines = append(lines, p+" "+string(rune('0'+size%10)))
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func needPython(t testing.TB) {
	t.Helper()
	testenv.Python(t)
}

func mustPrefix(t *testing.T, res Result, prefix string) {
	t.Helper()
	if !strings.HasPrefix(res.Text, prefix) {
		t.Fatalf("result %q does not start with %q", res.Text, prefix)
	}
}
