package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func noSleep(context.Context, time.Duration) error { return nil }

// chatServer serves /chat/completions with the given handler per call number.
func chatServer(t *testing.T, h func(n int, body map[string]any, w http.ResponseWriter)) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		h(int(calls.Add(1)), body, w)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func completion(content string, toolCalls ...map[string]any) string {
	msg := map[string]any{"role": "assistant", "content": content}
	if len(toolCalls) > 0 {
		msg["tool_calls"] = toolCalls
	}
	b, _ := json.Marshal(map[string]any{
		"id": "x", "object": "chat.completion", "model": "test",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
	})
	return string(b)
}

func openaiClient(t *testing.T, url string) Client {
	t.Helper()
	env := map[string]string{"OPENAI_API_BASE": url}
	c, err := New(Choice{Provider: "openai", Model: "test"}, Options{
		Getenv: func(k string) string { return env[k] },
		Retry:  RetryPolicy{Attempts: 3, Sleep: noSleep, Timeout: 5 * time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestOpenAIToolCallsAndUsage(t *testing.T) {
	var seen map[string]any
	srv, _ := chatServer(t, func(n int, body map[string]any, w http.ResponseWriter) {
		seen = body
		fmt.Fprint(w, completion("", map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "safe_cli_executor", "arguments": `{"tool_name":"list_files"}`}}))
	})
	c := openaiClient(t, srv.URL)
	reply, err := c.Generate(context.Background(), Request{Agent: "optimizer", Messages: []Message{
		{Role: RoleSystem, Text: "sys"}, {Role: RoleUser, Text: "go"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c0", Name: "safe_py_runner", Arguments: "{not json"}}},
		{Role: RoleTool, ToolCallID: "c0", Name: "safe_py_runner", Text: "[ERROR] bad"},
	}, Tools: []Tool{{Name: "safe_cli_executor", Description: "d", Parameters: map[string]any{"type": "object"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(reply.ToolCalls) != 1 || reply.ToolCalls[0].Name != "safe_cli_executor" || reply.ToolCalls[0].ID != "c1" {
		t.Fatalf("tool calls = %+v", reply.ToolCalls)
	}
	if reply.Usage.TotalTokens != 18 || reply.Usage.PromptTokens != 11 {
		t.Fatalf("usage = %+v", reply.Usage)
	}
	if tools, _ := seen["tools"].([]any); len(tools) != 1 {
		t.Fatalf("tools not sent: %v", seen["tools"])
	}
	msgs, _ := seen["messages"].([]any)
	if len(msgs) != 4 {
		t.Fatalf("messages sent = %d", len(msgs))
	}
	// the malformed arguments of the history are replaced by {} so the provider accepts it
	asst := msgs[2].(map[string]any)
	tc := asst["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)
	if tc["arguments"] != "{}" {
		t.Fatalf("history arguments = %v", tc["arguments"])
	}
}

func TestRetry429ThenSuccess(t *testing.T) {
	srv, calls := chatServer(t, func(n int, _ map[string]any, w http.ResponseWriter) {
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":{"message":"slow down"}}`)
			return
		}
		fmt.Fprint(w, completion("[ATTEMPTS_COMPLETE] ok"))
	})
	reply, err := openaiClient(t, srv.URL).Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "[ATTEMPTS_COMPLETE] ok" || reply.Attempts != 2 || calls.Load() != 2 {
		t.Fatalf("reply %+v after %d calls", reply, calls.Load())
	}
}

func TestRetry500ForeverGivesUpClearly(t *testing.T) {
	srv, calls := chatServer(t, func(n int, _ map[string]any, w http.ResponseWriter) {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"error":{"message":"boom"}}`)
	})
	_, err := openaiClient(t, srv.URL).Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
	if err == nil || !strings.Contains(err.Error(), "gave up after 3 attempts") || !strings.Contains(err.Error(), "HTTP 500") {
		t.Fatalf("err = %v", err)
	}
	if calls.Load() != 3 {
		t.Fatalf("calls = %d", calls.Load())
	}
}

func TestPermanentErrorNotRetried(t *testing.T) {
	srv, calls := chatServer(t, func(n int, _ map[string]any, w http.ResponseWriter) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"bad key"}}`)
	})
	_, err := openaiClient(t, srv.URL).Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
	if err == nil || !strings.Contains(err.Error(), "HTTP 401") || calls.Load() != 1 {
		t.Fatalf("err = %v after %d calls", err, calls.Load())
	}
}

func TestBackoffGrowsWithJitterAndHonoursRetryAfter(t *testing.T) {
	p := RetryPolicy{Base: 100 * time.Millisecond, Max: time.Second}.withDefaults()
	for n := 1; n <= 6; n++ {
		d := p.backoff(n, 0)
		full := min(p.Base<<(n-1), p.Max)
		if d < full/2 || d > full {
			t.Fatalf("backoff(%d) = %v, want in [%v, %v]", n, d, full/2, full)
		}
	}
	if d := p.backoff(1, 700*time.Millisecond); d != 700*time.Millisecond {
		t.Fatalf("Retry-After not honoured: %v", d)
	}
	if d := p.backoff(1, 45*time.Second); d != 45*time.Second {
		t.Fatalf("a Retry-After longer than the backoff cap: %v", d)
	}
	if d := p.backoff(1, time.Hour); d != MaxRetryAfter {
		t.Fatalf("a Retry-After of an hour: %v", d)
	}
}

func TestChoose(t *testing.T) {
	tests := []struct {
		name, spec string
		env        map[string]string
		want       string
		err        string
	}{
		{name: "flag wins", spec: "anthropic:claude-x", env: map[string]string{"OPENAI_API_KEY": "k"}, want: "anthropic claude-x"},
		{name: "LPPCTL_LLM", env: map[string]string{"LPPCTL_LLM": "ollama:qwen", "OPENAI_API_KEY": "k"}, want: "ollama qwen"},
		{name: "openai key", env: map[string]string{"OPENAI_API_KEY": "k"}, want: "openai "},
		{name: "openai base only", env: map[string]string{"OPENAI_API_BASE": "http://x"}, want: "openai "},
		{name: "anthropic key", env: map[string]string{"ANTHROPIC_API_KEY": "k"}, want: "anthropic "},
		{name: "ollama host", env: map[string]string{"OLLAMA_HOST": "h:1"}, want: "ollama "},
		{name: "script", spec: "script:demo.yaml", want: "script demo.yaml"},
		{name: "none", err: "no LLM configured: choose one with --llm openai[:MODEL] | anthropic[:MODEL] | ollama[:MODEL] | script:FILE"},
		{name: "unknown", spec: "gemini", err: `unknown provider "gemini"`},
		{name: "script without file", spec: "script:", err: "script: needs a file"},
		{name: "empty model", spec: "openai:", err: `cannot use LLM "openai:" (from --llm): no model after "openai:"; name one (e.g. openai:gpt-4o-mini) or leave out the colon for the default`},
		{name: "case and spaces", spec: " Ollama : qwen3:8b ", want: "ollama qwen3:8b"},
		{name: "openai base URL the SDKs read", env: map[string]string{"OPENAI_BASE_URL": "http://x/v1"}, want: "openai "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := Choose(tt.spec, "--llm", func(k string) string { return tt.env[k] })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				if tt.name == "none" && !errors.Is(err, ErrNoProvider) {
					t.Fatal("not ErrNoProvider")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ch.Provider + " " + ch.Model; got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMissingKeyErrorListsOptions(t *testing.T) {
	_, err := New(Choice{Provider: "anthropic"}, Options{Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY is not set") || !strings.Contains(err.Error(), "--llm openai") {
		t.Fatalf("err = %v", err)
	}
}

func TestScriptServesRepliesByRoleStepAndTurn(t *testing.T) {
	s, err := ParseScript("t.yaml", []byte(`
replies:
  - role: planner
    text: plan
  - role: optimizer
    step: 1
    tool_calls:
      - name: safe_cli_executor
        arguments: {tool_name: list_files}
      - name: safe_py_runner
        arguments: '{"script_name": broken'
  - role: optimizer
    step: 1
    text: "[ATTEMPTS_COMPLETE] one"
  - role: optimizer
    text: any step
    repeat: true
`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r, err := s.Generate(ctx, Request{Agent: "optimizer", Step: 1, Turn: 0})
	if err != nil || len(r.ToolCalls) != 2 || r.ToolCalls[0].Arguments != `{"tool_name":"list_files"}` || r.ToolCalls[1].Arguments != `{"script_name": broken` {
		t.Fatalf("turn 0: %+v %v", r, err)
	}
	if r, _ := s.Generate(ctx, Request{Agent: "optimizer", Step: 1, Turn: 1}); r.Text != "[ATTEMPTS_COMPLETE] one" {
		t.Fatalf("turn 1: %+v", r)
	}
	if r, _ := s.Generate(ctx, Request{Agent: "optimizer", Step: 1, Turn: 7}); r.Text != "any step" {
		t.Fatalf("repeat: %+v", r)
	}
	if r, _ := s.Generate(ctx, Request{Agent: "optimizer", Step: 4, Turn: 0}); r.Text != "any step" {
		t.Fatalf("step-less: %+v", r)
	}
	if _, err := s.Generate(ctx, Request{Agent: "planner", Turn: 1}); err == nil || !strings.Contains(err.Error(), "asked for reply #2 but the script has only 1") {
		t.Fatalf("exhausted: %v", err)
	}
	if _, err := s.Generate(ctx, Request{Agent: "evaluator", Step: 1}); err == nil || !strings.Contains(err.Error(), "no reply for the evaluator at step 1") {
		t.Fatalf("missing: %v", err)
	}
}

func TestScriptRejectsBadFiles(t *testing.T) {
	for name, src := range map[string]string{
		"unknown role": "replies: [{role: critic, text: x}]",
		"unknown key":  "replies: [{role: planner, txt: x}]",
		"empty":        "replies: []",
		"no tool name": "replies: [{role: optimizer, tool_calls: [{arguments: {}}]}]",
	} {
		if _, err := ParseScript("x.yaml", []byte(src)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestConnectionRefusedIsRetriedThenClear(t *testing.T) {
	// A server that is gone: the port is closed, every dial is refused.
	srv, _ := chatServer(t, func(int, map[string]any, http.ResponseWriter) {})
	url := srv.URL
	srv.Close()
	_, err := openaiClient(t, url).Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
	if err == nil || !strings.Contains(err.Error(), "gave up after 3 attempts, the last one failed with connection error") {
		t.Fatalf("err = %v", err)
	}
}
