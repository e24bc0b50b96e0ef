package actions

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/lppctl/lppctl/machine"
)

// The speed targets of the general actions: llm.generate adds at most 1 ms
// to the HTTP round trip to a local OpenAI-compatible server, script.run at
// most 2 ms to starting python3 on the script. Each benchmark alternates the
// bare operation and the action (a whole one-state run) so that load on the
// machine weighs on both alike, and reports both and their difference
// (added-ms/op):
//
//	go test ./actions -run '^$' -bench 'Overhead' -benchtime 200x

const benchReply = `{"id": "x", "object": "chat.completion", "model": "test",
 "choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"title\": \"Lamps\", \"words\": 1200}"}, "finish_reason": "stop"}],
 "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}`

// benchPair times bare and act alternately b.N times each.
func benchPair(b *testing.B, bare, act func()) {
	var tBare, tAct time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		bare()
		t1 := time.Now()
		act()
		tBare, tAct = tBare+t1.Sub(t0), tAct+time.Since(t1)
	}
	n := float64(b.N) * float64(time.Millisecond)
	b.ReportMetric(float64(tBare)/n, "bare-ms/op")
	b.ReportMetric(float64(tAct)/n, "action-ms/op")
	b.ReportMetric(float64(tAct-tBare)/n, "added-ms/op")
}

// benchRun returns a function that runs the spec file name of p to its end,
// a fresh run each time.
func benchRun(b *testing.B, p *project, name string, d *Deps) func() {
	spec, reg, diags := p.check(name, d)
	if diags.HasErrors() {
		b.Fatalf("%s is invalid:\n%s", name, diags.PrettyAll(spec.Source))
	}
	m, err := machine.Compile(spec, reg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	return func() {
		r, err := m.NewRun(nil, machine.WithRunID("bench"))
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Run(context.Background()); err != nil || r.State() != "done" {
			b.Fatalf("run ended in %s: %v", r.State(), err)
		}
	}
}

func BenchmarkGenerateOverhead(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, benchReply)
	}))
	defer srv.Close()
	p := newProject(b, map[string]string{"a/spec.yaml": generateSpec, "a/sys.md": "You name things.", "a/ask.md": "Name a book about {{.topic}}."})
	d := p.deps("a", "")
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_API_BASE": srv.URL, "OPENAI_MODEL": "test"}
	d.LLM, d.Getenv, d.LLMLog = "openai:test", func(k string) string { return env[k] }, io.Discard
	act := benchRun(b, p, "a/spec.yaml", d)

	body := []byte(`{"model":"test","messages":[{"role":"system","content":"You name things."},{"role":"user","content":"Name a book about lamps."}]}`)
	client := &http.Client{}
	bare := func() {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/chat/completions", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer k")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	benchPair(b, bare, act)
}

const benchScript = `import json, sys
d = json.load(sys.stdin)
n = len(d["text"].split())
print(json.dumps({"words": n, "fits": n <= d["limit"]}))
`

func BenchmarkScriptRunOverhead(b *testing.B) {
	p := newProject(b, map[string]string{"a/spec.yaml": scriptSpec, "scripts/count.py": benchScript})
	act := benchRun(b, p, "a/spec.yaml", p.deps("a", ""))

	dir := b.TempDir()
	script := filepath.Join(dir, "count.py")
	if err := os.WriteFile(script, []byte(benchScript), 0o644); err != nil {
		b.Fatal(err)
	}
	// The interpreter itself, as the gateway's runner resolves it (python3
	// may be a shim script that starts it), in the environment it gives
	// scripts (config/tools_config.yaml).
	real, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		b.Fatal(err)
	}
	python := string(bytes.TrimSpace(real))
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"PYTHONDONTWRITEBYTECODE=1", "PYTHONIOENCODING=utf-8", "PYTHONNOUSERSITE=1", "PYTHONUNBUFFERED=1"}
	bare := func() {
		cmd := exec.Command(python, script)
		cmd.Dir, cmd.Env = dir, env
		cmd.Stdin = bytes.NewReader([]byte(`{"text": "a b c", "limit": 4}`))
		if out, err := cmd.Output(); err != nil || len(out) == 0 {
			b.Fatalf("python3: %v", err)
		}
	}
	benchPair(b, bare, act)
}
