package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lppctl/lppctl/internal/llmenv"
	"github.com/lppctl/lppctl/machine"
)

// What real OpenAI-compatible servers send, through langchaingo's real OpenAI
// client and our transports. Each case names the behaviour; errors are
// asserted in full (the server's URL written as URL).
func TestOpenAICompatibleServers(t *testing.T) {
	msg := func(content any, calls ...any) map[string]any {
		m := map[string]any{"role": "assistant", "content": content}
		if len(calls) > 0 {
			m["tool_calls"] = calls
		}
		return m
	}
	call := func(id any, args any) map[string]any {
		c := map[string]any{"type": "function", "function": map[string]any{"name": "safe_cli_executor", "arguments": args}}
		if id != nil {
			c["id"] = id
		}
		return c
	}
	reply := func(choices ...any) map[string]any {
		return map[string]any{"id": "x", "object": "chat.completion", "created": 1700000000, "model": "m", "choices": choices,
			"usage": map[string]any{"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}
	}
	choice := func(m map[string]any, finish string) map[string]any {
		return map[string]any{"index": 0, "message": m, "finish_reason": finish}
	}
	const args = `{"tool_name":"list_files"}`
	type want struct {
		text     string
		calls    string // "id name args; ..."
		usage    Usage
		noUsage  bool
		stop     string
		err      string
		requests int
	}
	tests := []struct {
		name  string
		path  string // the base URL's path ("/v1" when empty)
		serve string // the paths the server answers: "v1" (default), "root"
		reply func(n int) (status int, header http.Header, body string)
		want  want
	}{
		{name: "content null with tool calls", reply: jsonReply(reply(choice(msg(nil, call("c1", args)), "tool_calls"))),
			want: want{calls: "c1 safe_cli_executor " + args, usage: Usage{11, 7, 18}, stop: "tool_calls", requests: 1}},
		{name: "arguments sent as an object, not a string", reply: jsonReply(reply(choice(msg(nil, call("c1", map[string]any{"tool_name": "list_files"})), "tool_calls"))),
			want: want{calls: "c1 safe_cli_executor " + args, usage: Usage{11, 7, 18}, stop: "tool_calls", requests: 1}},
		{name: "arguments in a code fence", reply: jsonReply(reply(choice(msg(nil, call("c1", "```json\n"+args+"\n```")), "tool_calls"))),
			want: want{calls: "c1 safe_cli_executor " + args, usage: Usage{11, 7, 18}, stop: "tool_calls", requests: 1}},
		{name: "arguments followed by text", reply: jsonReply(reply(choice(msg(nil, call("c1", args+" I hope this helps")), "tool_calls"))),
			want: want{calls: "c1 safe_cli_executor " + args, usage: Usage{11, 7, 18}, stop: "tool_calls", requests: 1}},
		{name: "arguments encoded twice", reply: jsonReply(reply(choice(msg(nil, call("c1", `"{\"tool_name\":\"list_files\"}"`)), "tool_calls"))),
			want: want{calls: "c1 safe_cli_executor " + args, usage: Usage{11, 7, 18}, stop: "tool_calls", requests: 1}},
		{name: "arguments with trailing commas are forgiven", reply: jsonReply(reply(choice(msg(nil, call("c1", `{"tool_name":"list_files",}`), call("c2", "```json\n{\"tool_name\": \"read_file\", \"params\": {\"path\": \"a.txt\",},}\n```")), "tool_calls"))),
			want: want{calls: "c1 safe_cli_executor " + args + `; c2 safe_cli_executor {"tool_name": "read_file", "params": {"path": "a.txt"}}`, usage: Usage{11, 7, 18}, stop: "tool_calls", requests: 1}},
		{name: "arguments with a raw line break in a string are forgiven", reply: jsonReply(reply(choice(msg(nil, call("c1", "{\"script_name\": \"scripts/write_file.py\", \"stdin_text\": \"a\nb\"}")), "tool_calls"))),
			want: want{calls: `c1 safe_cli_executor {"script_name": "scripts/write_file.py", "stdin_text": "a\nb"}`, usage: Usage{11, 7, 18}, stop: "tool_calls", requests: 1}},
		{name: "arguments in single quotes are passed on as they are", reply: jsonReply(reply(choice(msg(nil, call("c1", `{'tool_name': 'list_files'}`)), "tool_calls"))),
			want: want{calls: "c1 safe_cli_executor {'tool_name': 'list_files'}", usage: Usage{11, 7, 18}, stop: "tool_calls", requests: 1}},
		{name: "empty arguments are an empty object", reply: jsonReply(reply(choice(msg(nil, call("c1", "")), "tool_calls"))),
			want: want{calls: "c1 safe_cli_executor {}", usage: Usage{11, 7, 18}, stop: "tool_calls", requests: 1}},
		{name: "missing and repeated tool call ids are made unique", reply: jsonReply(reply(choice(msg("", call(nil, args), call("c0", args), call("c0", args)), "tool_calls"))),
			want: want{calls: "call_1 safe_cli_executor " + args + "; c0 safe_cli_executor " + args + "; c0_3 safe_cli_executor " + args, usage: Usage{11, 7, 18}, stop: "tool_calls", requests: 1}},
		{name: "finish_reason stop with tool calls", reply: jsonReply(reply(choice(msg(nil, call("c1", args)), "stop"))),
			want: want{calls: "c1 safe_cli_executor " + args, usage: Usage{11, 7, 18}, stop: "stop", requests: 1}},
		{name: "finish_reason length", reply: jsonReply(reply(choice(msg("[ATTEMPTS_COMPLETE] the fi"), "length"))),
			want: want{text: "[ATTEMPTS_COMPLETE] the fi", usage: Usage{11, 7, 18}, stop: "length", requests: 1}},
		{name: "missing usage", reply: rawReply(200, `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`),
			want: want{text: "hi", noUsage: true, stop: "stop", requests: 1}},
		{name: "unknown fields, floats for integers, a null choice", reply: rawReply(200, `{"id":"x","created":1.7e9,"system_fingerprint":null,"kv_transfer_params":null,"x":{"y":[1]},
			"choices":[null,{"index":0.0,"logprobs":{"content":"odd"},"message":{"role":"assistant","content":"hi","refusal":null,"annotations":[]},"finish_reason":"stop","stop_reason":null}],
			"usage":{"prompt_tokens":11.0,"completion_tokens":7,"total_tokens":18,"prompt_tokens_details":null}}`),
			want: want{text: "hi", usage: Usage{11, 7, 18}, stop: "stop", requests: 1}},
		{name: "a byte order mark before the JSON is skipped", reply: rawReply(200, "\xef\xbb\xbf"+`{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`),
			want: want{text: "hi", usage: Usage{11, 7, 18}, stop: "stop", requests: 1}},
		{name: "usage counts as strings are read", reply: rawReply(200, `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":"11","completion_tokens":" 7 ","total_tokens":"18","prompt_tokens_details":{"cached_tokens":"0"}}}`),
			want: want{text: "hi", usage: Usage{11, 7, 18}, stop: "stop", requests: 1}},
		{name: "a refusal with no content says so", reply: rawReply(200, `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I'm sorry, I cannot help with that."},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`),
			want: want{usage: Usage{11, 7, 18}, stop: "refusal", requests: 1}},
		{name: "a refusal content part says so", reply: rawReply(200, `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":[{"type":"refusal","refusal":"I can't help with that."}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`),
			want: want{usage: Usage{11, 7, 18}, stop: "refusal", requests: 1}},
		{name: "a legacy completion's text instead of a message", reply: rawReply(200, `{"id":"x","object":"text_completion","choices":[{"index":0,"text":"[ATTEMPTS_COMPLETE] ok","finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`),
			want: want{text: "[ATTEMPTS_COMPLETE] ok", usage: Usage{11, 7, 18}, stop: "stop", requests: 1}},
		{name: "a stream chunk's delta instead of a message", reply: rawReply(200, `{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`),
			want: want{text: "hi", noUsage: true, stop: "stop", requests: 1}},
		{name: "an event stream though none was asked for", reply: rawReply(200, "data: {\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"safe_cli_executor\",\"arguments\":\"\"}}]}}]}\n\n"+
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"tool_name\\\":\"}}]}}]}\n\n"+
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"list_files\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n"+
			"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":7,\"total_tokens\":18}}\n\ndata: [DONE]\n\n", "Content-Type", "text/event-stream"),
			want: want{calls: "c1 safe_cli_executor " + args, usage: Usage{11, 7, 18}, stop: "tool_calls", requests: 1}},
		{name: "an event stream with no completion", reply: rawReply(200, "data: [DONE]\n\n", "Content-Type", "text/event-stream"),
			want: want{err: `cannot call openai:test at URL/v1: an unusable reply: the server answered with an event stream (though none was asked for) that holds no chat completion ("data: [DONE]")`, requests: 1}},
		{name: "content as a list of parts", reply: jsonReply(reply(choice(msg([]any{map[string]any{"type": "text", "text": "[ATTEMPTS_COMPLETE] "}, map[string]any{"type": "text", "text": "done"}}), "stop"))),
			want: want{text: "[ATTEMPTS_COMPLETE] done", usage: Usage{11, 7, 18}, stop: "stop", requests: 1}},
		{name: "reasoning_content is not the answer", reply: jsonReply(reply(choice(map[string]any{"role": "assistant", "content": "[ATTEMPTS_COMPLETE] ok", "reasoning_content": "maybe FAIL?"}, "stop"))),
			want: want{text: "[ATTEMPTS_COMPLETE] ok", usage: Usage{11, 7, 18}, stop: "stop", requests: 1}},
		{name: "think tags before the answer are dropped", reply: jsonReply(reply(choice(msg("<think>\nshould I say [ATTEMPTS_COMPLETE]?\n</think>\n\n[ATTEMPTS_COMPLETE] ok"), "stop"))),
			want: want{text: "[ATTEMPTS_COMPLETE] ok", usage: Usage{11, 7, 18}, stop: "stop", requests: 1}},
		{name: "a tool call written as text stays text", reply: jsonReply(reply(choice(msg(`{"name": "safe_cli_executor", "arguments": {"tool_name": "list_files"}}`), "stop"))),
			want: want{text: `{"name": "safe_cli_executor", "arguments": {"tool_name": "list_files"}}`, usage: Usage{11, 7, 18}, stop: "stop", requests: 1}},
		{name: "several choices: only the first is read, its text and its tool calls", reply: jsonReply(reply(
			choice(msg("[ATTEMPTS_COMPLETE] done"), "stop"),
			map[string]any{"index": 1, "message": msg(nil, call("c9", args)), "finish_reason": "tool_calls"})),
			want: want{text: "[ATTEMPTS_COMPLETE] done", usage: Usage{11, 7, 18}, stop: "stop", requests: 1}},
		{name: "several choices listed out of order: the one with index 0 is read", reply: jsonReply(reply(
			map[string]any{"index": 1, "message": msg("I cannot do that."), "finish_reason": "stop"},
			choice(msg(nil, call("c1", args)), "tool_calls"))),
			want: want{calls: "c1 safe_cli_executor " + args, usage: Usage{11, 7, 18}, stop: "tool_calls", requests: 1}},
		{name: "an event stream with several choices: only choice 0's deltas are read", reply: rawReply(200, "data: {\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"{\\\"score\\\": 40}\"}},{\"index\":1,\"delta\":{\"role\":\"assistant\",\"content\":\" {\\\"score\\\": 95}\"}}]}\n\n"+
			"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"},{\"index\":1,\"delta\":{},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n", "Content-Type", "text/event-stream"),
			want: want{text: `{"score": 40}`, noUsage: true, stop: "stop", requests: 1}},
		{name: "base URL without /v1 on a server that serves only /v1", path: "/", reply: jsonReply(reply(choice(msg("hi"), "stop"))),
			want: want{text: "hi", usage: Usage{11, 7, 18}, stop: "stop", requests: 2}},
		{name: "base URL with /v1 on a server that serves only the root", serve: "root", reply: jsonReply(reply(choice(msg("hi"), "stop"))),
			want: want{text: "hi", usage: Usage{11, 7, 18}, stop: "stop", requests: 2}},
		{name: "base URL ending in /chat/completions", path: "/v1/chat/completions/", reply: jsonReply(reply(choice(msg("hi"), "stop"))),
			want: want{text: "hi", usage: Usage{11, 7, 18}, stop: "stop", requests: 1}},
		{name: "empty choices are retried, then fail", reply: rawReply(200, `{"id":"x","choices":[],"usage":{}}`),
			want: want{err: `cannot call openai:test at URL/v1: gave up after 3 attempts, the last one failed with an unusable reply: the server's reply has no choices ("{\"id\":\"x\",\"choices\":[],\"usage\":{}}")`, requests: 3}},
		{name: "an error object with status 200", reply: rawReply(200, `{"error":{"message":"model 'test' not found, try pulling it first","code":404}}`),
			want: want{err: `cannot call openai:test at URL/v1: an unusable reply: the server answered HTTP 200 with an error: model 'test' not found, try pulling it first`, requests: 1}},
		{name: "an HTML page with status 200", reply: rawReply(200, "<!DOCTYPE html>\n<html><body>Welcome</body></html>", "Content-Type", "text/html; charset=utf-8"),
			want: want{err: `cannot call openai:test at URL/v1: an unusable reply: the server answered HTTP 200 with text/html, not JSON ("<!DOCTYPE html> <html><body>Welcome</body></html>"); is the base URL that of the API (OpenAI-compatible servers usually serve it under /v1)?`, requests: 1}},
		{name: "a plain-text error with status 200 is retried as a server error", reply: rawReply(200, "Internal error, try later\n", "Content-Type", "text/plain"),
			want: want{err: `cannot call openai:test at URL/v1: gave up after 3 attempts, the last one failed with an unusable reply: the server answered HTTP 200 with an error in text/plain instead of a reply ("Internal error, try later"), taken as a server error`, requests: 3}},
		{name: "a plain-text error with status 200, then a reply", reply: func(n int) (int, http.Header, string) {
			if n == 1 {
				return 200, http.Header{"Content-Type": {"text/plain"}}, "Internal error, try later"
			}
			return jsonReply(reply(choice(msg("hi"), "stop")))(n)
		}, want: want{text: "hi", usage: Usage{11, 7, 18}, stop: "stop", requests: 2}},
		{name: "a proxy's error page with status 200 is retried", reply: rawReply(200, "<html><head><title>503 Service Temporarily Unavailable</title></head><body>nginx</body></html>", "Content-Type", "text/html"),
			want: want{err: `cannot call openai:test at URL/v1: gave up after 3 attempts, the last one failed with an unusable reply: the server answered HTTP 200 with an error in text/html instead of a reply ("503 Service Temporarily Unavailable"), taken as a server error`, requests: 3}},
		{name: "a plain-text error that is not the server's for now is not retried", reply: rawReply(200, "Error: model 'test' not found", "Content-Type", "text/plain"),
			want: want{err: `cannot call openai:test at URL/v1: an unusable reply: the server answered HTTP 200 with an error in text/plain instead of a reply ("Error: model 'test' not found")`, requests: 1}},
		{name: "plain text that says no error is a page that is not the API", reply: rawReply(200, "Hello from the reverse proxy", "Content-Type", "text/plain"),
			want: want{err: `cannot call openai:test at URL/v1: an unusable reply: the server answered HTTP 200 with text/plain, not JSON ("Hello from the reverse proxy"); is the base URL that of the API (OpenAI-compatible servers usually serve it under /v1)?`, requests: 1}},
		{name: "an error object with a 5xx code and status 200 is retried", reply: rawReply(200, `{"error":{"message":"upstream connect error","code":503}}`),
			want: want{err: `cannot call openai:test at URL/v1: gave up after 3 attempts, the last one failed with an unusable reply: the server answered HTTP 200 with an error: upstream connect error`, requests: 3}},
		{name: "a 200 reply cut short is retried, then fails saying so", reply: rawReply(200, `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"[ATTEMPTS_COMPLETE] all fi`, "Content-Type", "application/json"),
			want: want{err: `cannot call openai:test at URL/v1: gave up after 3 attempts, the last one failed with an unusable reply: the server's reply was cut short: its JSON ends after 99 bytes, before it is complete ("…:[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"[ATTEMPTS_COMPLETE] all fi")`, requests: 3}},
		{name: "an HTML page with status 502 is retried", reply: rawReply(502, "<html><center><h1>502 Bad Gateway</h1></center></html>", "Content-Type", "text/html"),
			want: want{err: `cannot call openai:test at URL/v1: gave up after 3 attempts, the last one failed with HTTP 502 (server error): the server said: 502 Bad Gateway`, requests: 3}},
		{name: "an error in vLLM's shape", reply: rawReply(400, `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5012 tokens.","type":"BadRequestError","param":null,"code":400}`),
			want: want{err: `cannot call openai:test at URL/v1: HTTP 400: the server said: This model's maximum context length is 4096 tokens. However, you requested 5012 tokens.`, requests: 1}},
		{name: "a plain-text 500", reply: rawReply(500, "Internal Server Error\n", "Content-Type", "text/plain"),
			want: want{err: `cannot call openai:test at URL/v1: gave up after 3 attempts, the last one failed with HTTP 500 (server error): the server said: Internal Server Error`, requests: 3}},
		{name: "an empty 503", reply: rawReply(503, ""),
			want: want{err: `cannot call openai:test at URL/v1: gave up after 3 attempts, the last one failed with HTTP 503 (server error): the server said: (no message)`, requests: 3}},
		{name: "unknown model", reply: rawReply(404, `{"error":{"message":"The model test does not exist.","type":"NotFoundError","code":404}}`),
			want: want{err: `cannot call openai:test at URL/v1: HTTP 404 (check the model name and the base URL): the server said: The model test does not exist.`, requests: 2}},
		{name: "503 then success", reply: func(n int) (int, http.Header, string) {
			if n == 1 {
				return 503, nil, `{"error":{"message":"loading model"}}`
			}
			return jsonReply(reply(choice(msg("hi"), "stop")))(n)
		}, want: want{text: "hi", usage: Usage{11, 7, 18}, stop: "stop", requests: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var requests atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				want := "/v1/chat/completions"
				if tt.serve == "root" {
					want = "/chat/completions"
				}
				if r.URL.Path != want {
					w.WriteHeader(http.StatusNotFound)
					fmt.Fprint(w, `{"detail":"Not Found"}`)
					return
				}
				status, h, body := tt.reply(int(requests.Load()))
				for k, v := range h {
					w.Header()[k] = v
				}
				w.WriteHeader(status)
				fmt.Fprint(w, body)
			}))
			defer srv.Close()
			path := tt.path
			if path == "" {
				path = "/v1"
			}
			c := openaiClient(t, srv.URL+path)
			got, err := c.Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
			if tt.want.err != "" {
				if err == nil {
					t.Fatalf("no error; reply %+v", got)
				}
				if msg := strings.ReplaceAll(err.Error(), srv.URL, "URL"); msg != tt.want.err {
					t.Fatalf("error\n got %s\nwant %s", msg, tt.want.err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if int(requests.Load()) != tt.want.requests {
				t.Errorf("requests = %d, want %d", requests.Load(), tt.want.requests)
			}
			if tt.want.err != "" {
				return
			}
			var calls []string
			for _, tc := range got.ToolCalls {
				calls = append(calls, tc.ID+" "+tc.Name+" "+tc.Arguments)
			}
			if got.Text != tt.want.text || strings.Join(calls, "; ") != tt.want.calls || got.Usage != tt.want.usage ||
				got.UsageMissing != tt.want.noUsage || got.StopReason != tt.want.stop {
				t.Fatalf("reply %+v\ncalls %q", got, strings.Join(calls, "; "))
			}
			if tt.want.requests == 2 && tt.want.err == "" {
				// the working path is kept: one request for the next call
				if _, err := c.Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "again"}}}); err != nil {
					t.Fatal(err)
				}
				if requests.Load() != 3 {
					t.Errorf("second call took %d requests", requests.Load()-2)
				}
			}
		})
	}
}

func jsonReply(v any) func(int) (int, http.Header, string) {
	b, _ := json.Marshal(v)
	return rawReply(200, string(b))
}

func rawReply(status int, body string, header ...string) func(int) (int, http.Header, string) {
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	return func(int) (int, http.Header, string) { return status, h, body }
}

// Servers that stop answering: each attempt times out at the policy's
// timeout, is retried, and the call fails clearly instead of hanging.
func TestServersThatStopAnswering(t *testing.T) {
	tests := []struct {
		name    string
		handler func(w http.ResponseWriter, r *http.Request)
		err     string
	}{
		{name: "accepts the request, never answers", handler: func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}, err: "cannot call openai:test at URL/v1: gave up after 2 attempts, the last one failed with timeout (no complete answer within 300ms): context deadline exceeded"},
		{name: "sends the headers, never the body", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			fmt.Fprint(w, `{"id":"x","choices":[`)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}, err: "cannot call openai:test at URL/v1: gave up after 2 attempts, the last one failed with timeout (no complete answer within 300ms): context deadline exceeded"},
		{name: "closes the connection in the middle of the body", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "500")
			w.WriteHeader(200)
			fmt.Fprint(w, `{"id":"x","choices":[{"index":0,"mess`)
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}, err: "cannot call openai:test at URL/v1: gave up after 2 attempts, the last one failed with connection closed: unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body) // so the server sees the client hang up
				tt.handler(w, r)
			}))
			defer srv.Close()
			env := map[string]string{"OPENAI_API_BASE": srv.URL + "/v1"}
			c, err := New(Choice{Provider: "openai", Model: "test"}, Options{
				Getenv: func(k string) string { return env[k] },
				Retry:  RetryPolicy{Attempts: 2, Sleep: noSleep, Timeout: 300 * time.Millisecond},
			})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = c.Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
			if err == nil || strings.ReplaceAll(err.Error(), srv.URL, "URL") != tt.err {
				t.Fatalf("err\n got %v\nwant %s", err, tt.err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("took %v", d)
			}
		})
	}
}

func TestRetryAfterSecondsAndHTTPDate(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tt := range []struct {
		header string
		want   time.Duration
	}{
		{"7", 7 * time.Second},
		{" 0 ", 0},
		{"-3", 0},
		{now.Add(9 * time.Second).Format(http.TimeFormat), 9 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"soon", 0},
		{"", 0},
	} {
		if got := llmenv.RetryAfter(tt.header, now); got != tt.want {
			t.Errorf("RetryAfter(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
	// through the client: the wait before the retry is at least the date's delay
	var mu sync.Mutex
	var waits []time.Duration
	srv, _ := chatServer(t, func(n int, _ map[string]any, w http.ResponseWriter) {
		if n == 1 {
			w.Header().Set("Retry-After", time.Now().Add(5*time.Second).UTC().Format(http.TimeFormat))
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		fmt.Fprint(w, completion("ok"))
	})
	env := map[string]string{"OPENAI_API_BASE": srv.URL}
	c, err := New(Choice{Provider: "openai", Model: "test"}, Options{Getenv: func(k string) string { return env[k] },
		Retry: RetryPolicy{Attempts: 2, Base: time.Millisecond, Max: time.Minute, Sleep: func(_ context.Context, d time.Duration) error {
			mu.Lock()
			waits = append(waits, d)
			mu.Unlock()
			return nil
		}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	if len(waits) != 1 || waits[0] < 3*time.Second || waits[0] > 5*time.Second {
		t.Fatalf("waits = %v, want one of about 4-5s", waits)
	}
}

// The API key never shows in an error, even when the server echoes it; no key
// at all is fine for local servers.
func TestAPIKeyNeverInErrors(t *testing.T) {
	const key = "sk-test-SECRET-0123456789"
	var auth atomic.Value
	srv, _ := chatServer(t, func(n int, _ map[string]any, w http.ResponseWriter) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided: `+key+`"}}`)
	})
	srv.Config.Handler = func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			auth.Store(r.Header.Get("Authorization"))
			h.ServeHTTP(w, r)
		})
	}(srv.Config.Handler)
	for _, tt := range []struct {
		name, key, wantAuth, err string
	}{
		{"echoed key", key, "Bearer " + key, "cannot call openai:test at URL/v1: HTTP 401 (check the API key): the server said: Incorrect API key provided: [REDACTED]"},
		{"no key", "", "Bearer none", "cannot call openai:test at URL/v1: HTTP 401 (check the API key): the server said: Incorrect API key provided: " + key},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"OPENAI_API_BASE": srv.URL + "/v1", "OPENAI_API_KEY": tt.key}
			c, err := New(Choice{Provider: "openai", Model: "test"}, Options{Getenv: func(k string) string { return env[k] }, Retry: RetryPolicy{Attempts: 1, Sleep: noSleep}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
			if err == nil || strings.ReplaceAll(err.Error(), srv.URL, "URL") != tt.err {
				t.Fatalf("err\n got %v\nwant %s", err, tt.err)
			}
			if auth.Load() != tt.wantAuth {
				t.Fatalf("Authorization = %v", auth.Load())
			}
		})
	}
}

func TestBaseURLs(t *testing.T) {
	for _, tt := range []struct{ in, want, err string }{
		{in: "http://127.0.0.1:8000/v1", want: "http://127.0.0.1:8000/v1"},
		{in: "http://127.0.0.1:8000/v1/", want: "http://127.0.0.1:8000/v1"},
		{in: "127.0.0.1:8000/v1", want: "http://127.0.0.1:8000/v1"},
		{in: " http://h:1/v1/chat/completions ", want: "http://h:1/v1"},
		{in: "https://h/openai/", want: "https://h/openai"},
		{in: "ftp://h/v1", err: `"ftp://h/v1" is not an http(s) URL`},
		{in: "http://", err: `"http://" is not an http(s) URL`},
	} {
		got, err := normalizeBaseURL(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q: err = %v", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("normalizeBaseURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{"127.0.0.1:11434", "http://127.0.0.1:11434/v1"},
		{"localhost", "http://localhost:11434/v1"},
		{"http://gpu-box:8080/", "http://gpu-box:8080/v1"},
		{"https://ollama.example/v1", "https://ollama.example/v1"},
		{"0.0.0.0:11434", "http://0.0.0.0:11434/v1"},
	} {
		if got, err := ollamaBase(tt.in); err != nil || got != tt.want {
			t.Errorf("ollamaBase(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// With no model named, a local server's own model is used: vLLM and LM
// Studio refuse the default's name.
func TestServerModel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			fmt.Fprint(w, `{"object":"list","data":[{"id":"Qwen/Qwen2.5-7B-Instruct","object":"model"},{"id":"other"}]}`)
		case "/withdefault/v1/models":
			fmt.Fprint(w, `{"data":[{"id":"x"},{"id":"gpt-4o-mini"}]}`)
		case "/keyed/v1/models":
			if r.Header.Get("Authorization") != "Bearer sk-local" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			fmt.Fprint(w, `{"data":[{"id":"keyed-model"}]}`)
		case "/rootonly/models":
			fmt.Fprint(w, `{"data":[{"id":"root-model"}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	for _, tt := range []struct {
		name string
		ch   Choice
		env  map[string]string
		want string
	}{
		{"the server's first model", Choice{Provider: "openai"}, map[string]string{"OPENAI_API_BASE": srv.URL + "/v1"}, "Qwen/Qwen2.5-7B-Instruct"},
		{"base URL without /v1", Choice{Provider: "openai"}, map[string]string{"OPENAI_API_BASE": srv.URL}, "Qwen/Qwen2.5-7B-Instruct"},
		{"the default when listed", Choice{Provider: "openai"}, map[string]string{"OPENAI_API_BASE": srv.URL + "/withdefault/v1"}, "gpt-4o-mini"},
		{"models at the root", Choice{Provider: "openai"}, map[string]string{"OPENAI_BASE_URL": srv.URL + "/rootonly/v1"}, "root-model"},
		{"a server that wants the key", Choice{Provider: "openai"}, map[string]string{"OPENAI_API_BASE": srv.URL + "/keyed/v1", "OPENAI_API_KEY": "sk-local"}, "keyed-model"},
		{"ollama", Choice{Provider: "ollama"}, map[string]string{"OLLAMA_HOST": srv.URL}, "Qwen/Qwen2.5-7B-Instruct"},
		{"named with --llm", Choice{Provider: "openai", Model: "m"}, map[string]string{"OPENAI_API_BASE": srv.URL + "/v1"}, ""},
		{"named with OPENAI_MODEL", Choice{Provider: "openai"}, map[string]string{"OPENAI_API_BASE": srv.URL + "/v1", "OPENAI_MODEL": "m"}, ""},
		{"OpenAI itself", Choice{Provider: "openai"}, map[string]string{"OPENAI_API_KEY": "k"}, ""},
		{"no list", Choice{Provider: "openai"}, map[string]string{"OPENAI_API_BASE": srv.URL + "/nothing/v1"}, ""},
		{"anthropic", Choice{Provider: "anthropic"}, map[string]string{"ANTHROPIC_BASE_URL": srv.URL}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ServerModel(context.Background(), tt.ch, func(k string) string { return tt.env[k] }, nil); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// An Ollama without /v1 (old, a proxy, a mock of the native API): the first
// call falls back to /api/chat, with tools, and stays there.
func TestOllamaNativeAPI(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	var sent map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		switch r.URL.Path {
		case "/api/tags":
			fmt.Fprint(w, `{"models":[{"name":"qwen3:8b","model":"qwen3:8b"}]}`)
		case "/api/chat":
			_ = json.NewDecoder(r.Body).Decode(&sent)
			fmt.Fprint(w, `{"model":"qwen3:8b","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"safe_cli_executor","arguments":{"tool_name":"list_files"}}}]},"done":true,"done_reason":"stop","prompt_eval_count":31,"eval_count":9}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, "404 page not found")
		}
	}))
	defer srv.Close()
	env := map[string]string{"OLLAMA_HOST": srv.URL}
	getenv := func(k string) string { return env[k] }
	ch := Choice{Provider: "ollama"}
	if ch.Model = ServerModel(context.Background(), ch, getenv, nil); ch.Model != "qwen3:8b" {
		t.Fatalf("server model %q", ch.Model)
	}
	c, err := New(ch, Options{Getenv: getenv, Retry: RetryPolicy{Attempts: 2, Sleep: noSleep, Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Messages: []Message{
		{Role: RoleSystem, Text: "sys"}, {Role: RoleUser, Text: "go"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "a", Name: "safe_cli_executor", Arguments: `{"tool_name":"tree"}`}}},
		{Role: RoleTool, ToolCallID: "a", Name: "safe_cli_executor", Text: "."},
	}, Tools: []Tool{{Name: "safe_cli_executor", Description: "d", Parameters: map[string]any{"type": "object"}}}}
	for i := 0; i < 2; i++ {
		reply, err := c.Generate(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(reply.ToolCalls) != 1 || reply.ToolCalls[0].Arguments != `{"tool_name":"list_files"}` || reply.ToolCalls[0].ID != "call_1" ||
			reply.Usage != (Usage{31, 9, 40}) || reply.Attempts != 1 {
			t.Fatalf("reply %+v", reply)
		}
	}
	mu.Lock()
	got := strings.Join(paths, " ")
	mu.Unlock()
	if want := "/api/tags /v1/chat/completions /chat/completions /api/chat /api/chat"; !strings.HasSuffix(got, want) {
		t.Fatalf("paths %s, want ...%s", got, want)
	}
	msgs, _ := sent["messages"].([]any)
	tools, _ := sent["tools"].([]any)
	if sent["model"] != "qwen3:8b" || sent["stream"] != false || len(msgs) != 4 || len(tools) != 1 {
		t.Fatalf("sent %v", sent)
	}
	asst := msgs[2].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)
	if args, _ := asst["arguments"].(map[string]any); args["tool_name"] != "tree" {
		t.Fatalf("history tool call %v", asst)
	}
	if tool := msgs[3].(map[string]any); tool["role"] != "tool" || tool["content"] != "." || tool["tool_name"] != "safe_cli_executor" {
		t.Fatalf("tool result %v", tool)
	}
}

// A provider that fails through every retry (5xx, 429, a timeout) is
// unavailable (machine.ErrUnavailable: the run stops in place, not through
// on_error), and so is one whose setup is wrong (401, 403: the key; 404:
// the model or the base URL), which resume retries once it is fixed; one
// that refuses the request itself (400: too long, malformed) is not: that
// is the run's own failure.
func TestGivingUpOnAProviderMarksItUnavailable(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		unavailable bool
		body        string
	}{
		{"503 through every retry", 503, true, ""},
		{"429 through every retry", 429, true, ""},
		{"400 at once", 400, false, ""},
		{"401 at once: the key", 401, true, ""},
		{"403 at once: the key's rights", 403, true, ""},
		{"404 at once: the model or the base URL", 404, true, ""},
		{"an HTML page with 200 at once: the base URL is not the API's", 200, true, "<html><body>Please sign in</body></html>"},
		{"an error object with 200 at once: the request's, as the server says", 200, false, `{"error":{"message":"prompt too long"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				fmt.Fprint(w, cmp.Or(tt.body, `{"error":{"message":"no"}}`))
			}))
			defer srv.Close()
			_, err := openaiClient(t, srv.URL+"/v1").Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
			if err == nil {
				t.Fatal("no error")
			}
			if got := errors.Is(err, machine.ErrUnavailable); got != tt.unavailable {
				t.Fatalf("errors.Is(err, machine.ErrUnavailable) = %v, want %v: %v", got, tt.unavailable, err)
			}
		})
	}
}

// A server that takes its time over /models is asked no longer than
// $LPPCTL_LLM_TIMEOUT bounds a model call, when that is under the 5 s the
// question takes at most: LPPCTL_LLM_TIMEOUT=1s with a stuck server waited
// 5 s before the first call went out.
func TestServerModelWaitsNoLongerThanTheCallTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	env := map[string]string{"OPENAI_API_BASE": srv.URL + "/v1", "LPPCTL_LLM_TIMEOUT": "200ms"}
	start := time.Now()
	got := ServerModel(context.Background(), Choice{Provider: "openai"}, func(k string) string { return env[k] }, nil)
	took := time.Since(start)
	if got != "" {
		t.Fatalf("got %q from a server that never answered", got)
	}
	if took > 2*time.Second {
		t.Fatalf("the question took %v; LPPCTL_LLM_TIMEOUT is 200ms", took)
	}
}
