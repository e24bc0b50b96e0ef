package main

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkScriptedRunTracing runs the scripted hello_skill demo (28 steps,
// 10 model calls, 4 tool calls) with tracing off, to a JSON-lines file, to a
// dead collector (nothing listens on the port) and to a hung one (it
// accepts connections and never answers): what tracing costs a run, and
// that an unreachable collector costs it a bounded amount.
func BenchmarkScriptedRunTracing(b *testing.B) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		b.Fatal(err)
	}
	dead := closedPort(b)
	hung := hungCollector(b)
	for _, bc := range []struct {
		name     string
		endpoint string
		file     bool
	}{
		{"off", "", false},
		{"file", "", true},
		{"dead_endpoint", dead, false},
		{"hung_endpoint", hung, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			root := b.TempDir()
			for _, p := range []string{"config/tools_config.yaml", "scripts", "claude.md", "specs/skills_agent.yaml", "specs/prompts", "skills/hello_skill"} {
				copyPath(b, filepath.Join(repo, p), filepath.Join(root, p))
			}
			md := filepath.Join(root, "skills", "hello_skill", "skills.md")
			raw, err := os.ReadFile(md)
			if err != nil {
				b.Fatal(err)
			}
			pristine := []byte(pristineSkillsMD(string(raw)))
			for _, k := range []string{"OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "LPPCTL_LLM", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER"} {
				b.Setenv(k, "")
			}
			b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", bc.endpoint)
			b.Setenv("LPPCTL_NOW", "2025-01-02T03:04:05Z")
			args := []string{"lppctl", "run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/hello_skill", "--yes", "-q"}
			if bc.file {
				args = append(args, "--trace", filepath.Join(root, "spans.jsonl"))
			}
			b.Chdir(root)
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				if err := os.WriteFile(md, pristine, 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if code := run(args, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}

func copyPath(b *testing.B, src, dst string) {
	b.Helper()
	fi, err := os.Stat(src)
	if err != nil {
		b.Fatal(err)
	}
	if fi.IsDir() {
		err = os.CopyFS(dst, os.DirFS(src))
	} else {
		var data []byte
		if data, err = os.ReadFile(src); err == nil {
			if err = os.MkdirAll(filepath.Dir(dst), 0o755); err == nil {
				err = os.WriteFile(dst, data, 0o644)
			}
		}
	}
	if err != nil {
		b.Fatal(err)
	}
}

// closedPort returns an http:// address on loopback where nothing listens.
func closedPort(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := "http://" + l.Addr().String()
	l.Close()
	return addr
}

// hungCollector accepts connections on loopback and never answers.
func hungCollector(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	b.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + l.Addr().String()
}
