package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A whole `lppctl run` against servers that answer as real OpenAI-compatible
// servers do (through the real langchaingo client): the run completes, the
// tool runs, and llm.jsonl records one line per call even without usage.
func TestAgentOnServerQuirks(t *testing.T) {
	tests := []struct {
		name  string
		shape func(map[string]any)
		out   []string // in the run's output
		usage bool     // the calls record usage (else usage_missing)
	}{
		{name: "arguments as objects, content null, no ids, no usage", shape: func(c map[string]any) {
			delete(c, "usage")
			msg := c["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
			calls, _ := msg["tool_calls"].([]any)
			if len(calls) > 0 {
				msg["content"] = nil
			}
			for _, tc := range calls {
				tc := tc.(map[string]any)
				delete(tc, "id")
				fn := tc["function"].(map[string]any)
				var obj map[string]any
				_ = json.Unmarshal([]byte(fn["arguments"].(string)), &obj)
				fn["arguments"] = obj
			}
		}, out: []string{"optimizer: 1 tool call(s) [prompt", "tokens not reported]", "→ allow: Hello, Ada! Welcome to lppctl.", "completed in done"}},
		{name: "think tags and reasoning_content, unknown fields", shape: func(c map[string]any) {
			c["kv_transfer_params"] = nil
			c["created"] = 1.7e9
			msg := c["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
			msg["reasoning_content"] = "FAIL? no."
			if s, _ := msg["content"].(string); s != "" {
				msg["content"] = "<think>\nhm, [ATTEMPTS_COMPLETE]?\n</think>\n" + s
			}
		}, out: []string{`optimizer: reply "[ATTEMPTS_COMPLETE] greet.py printed the greeting"`, "verdict PASS", "completed in done"}, usage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := newProject(t, "hello_skill")
			f := newFakeLLM(t, "replies:\n"+planner("greet Ada")+
				reply("optimizer", 1, greetCall)+
				reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] greet.py printed the greeting"))+
				reply("evaluator", 1, pass(`"GREETING": "Hello, Ada! Welcome to lppctl."`)))
			f.shape = tt.shape
			res := runAgent(t, root, f, "--yes")
			if res.code != 0 {
				t.Fatalf("exit %d\n%s", res.code, res.all())
			}
			for _, want := range tt.out {
				if !strings.Contains(res.out, want) {
					t.Errorf("output lacks %q:\n%s", want, res.out)
				}
			}
			recs := llmLog(t, root)
			if len(recs) != 4 { // planner, optimizer ×2, evaluator
				t.Fatalf("llm.jsonl has %d lines", len(recs))
			}
			for _, r := range recs {
				if missing, _ := r["usage_missing"].(bool); missing == tt.usage {
					t.Errorf("usage_missing = %v in %v", missing, r)
				}
				if _, ok := r["usage"].(map[string]any); !ok {
					t.Errorf("no usage object in %v", r)
				}
			}
		})
	}
}

// An API key the server echoes in its error never reaches the output, the
// error, or any file of the run; the run is resumable once the key works.
func TestAgentAPIKeyNeverWritten(t *testing.T) {
	const key = "sk-test-DO-NOT-LOG-0123456789abcdef"
	root := newProject(t, "hello_skill")
	f := newFakeLLM(t, "replies:\n"+planner("greet Ada")+reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] ok"))+reply("evaluator", 1, pass("")))
	f.key, f.echoAuth = key, true
	f.fail = func(int) int { return 401 }
	res := runAgent(t, root, f, "--yes")
	if res.code != exitFailed {
		t.Fatalf("exit %d\n%s", res.code, res.all())
	}
	want := `lppctl: action failed: llm.planner in state "plan": cannot get the planner's reply: cannot call openai:test-model at ` + f.srv.URL + `: HTTP 401 (check the API key): the server said: injected HTTP 401 for Bearer [REDACTED]`
	if !strings.Contains(res.err, want) {
		t.Fatalf("stderr lacks %q:\n%s", want, res.err)
	}
	if strings.Contains(res.all(), key) {
		t.Fatalf("the key is in the output:\n%s", res.all())
	}
	runs := filepath.Join(root, ".lppctl")
	n := 0
	_ = filepath.WalkDir(runs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		if b, _ := os.ReadFile(p); strings.Contains(string(b), key) {
			t.Errorf("the key is in %s", p)
		}
		return nil
	})
	if n == 0 {
		t.Fatal("no run files")
	}
}

// llmLog reads the LLM call log of the project's only run.
func llmLog(t *testing.T, root string) []map[string]any {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(root, ".lppctl", "runs"))
	if err != nil || len(ents) != 1 {
		t.Fatalf("runs: %v %v", ents, err)
	}
	fh, err := os.Open(filepath.Join(root, ".lppctl", "runs", ents[0].Name(), "llm.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []map[string]any
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// A run a real model began is not finished by the skill's scripted demo when
// it is resumed without the provider's variables: the resume says how to
// configure the model again, and works once it is.
func TestAgentResumeWithoutTheProviderDoesNotFallBackToTheDemo(t *testing.T) {
	root := newProject(t, "hello_skill")
	f := newFakeLLM(t, "replies:\n"+planner("greet Ada")+reply("optimizer", 1, text("[ATTEMPTS_COMPLETE] ok"))+reply("evaluator", 1, pass("")))
	f.fromEnv = true
	f.fail = func(n int) int {
		if n >= 3 { // the evaluator's call
			return 503
		}
		return 0
	}
	if res := runAgent(t, root, f, "--yes"); res.code != exitFailed || !strings.Contains(res.err, "stopped in evaluator") {
		t.Fatalf("exit %d\n%s", res.code, res.all())
	}
	ents, err := os.ReadDir(filepath.Join(root, ".lppctl", "runs"))
	if err != nil || len(ents) != 1 {
		t.Fatalf("runs: %v %v", ents, err)
	}
	id := ents[0].Name()
	if _, err := os.Stat(filepath.Join(root, "skills", "hello_skill", "demo.yaml")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_BASE", "")
	var out, errb bytes.Buffer
	if code := run([]string{"lppctl", "resume", "-q", "--root", root, id}, strings.NewReader(""), &out, &errb); code != exitFailed {
		t.Fatalf("resume without the provider: exit %d\n%s%s", code, out.String(), errb.String())
	}
	want := `cannot continue with the scripted demo: this run began with openai:test-model and no LLM is configured now; configure it as when the run began (OPENAI_API_KEY or OPENAI_API_BASE, and LPPCTL_LLM=openai:test-model), then resume`
	if !strings.Contains(errb.String(), want) {
		t.Fatalf("stderr lacks %q:\n%s", want, errb.String())
	}
	t.Setenv("OPENAI_API_BASE", f.srv.URL)
	f.fail = nil
	out.Reset()
	errb.Reset()
	if code := run([]string{"lppctl", "resume", "-q", "--root", root, id}, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(out.String(), "completed in done") {
		t.Fatalf("resume: exit %d\n%s%s", code, out.String(), errb.String())
	}
}
