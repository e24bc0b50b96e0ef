package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// sseChunk is one "data:" event of a chat completion stream: choice 0's
// delta content and finish reason ("" for none), or with noChoices a
// usage-only chunk.
func sseChunk(content, finish string) string {
	ch := map[string]any{"index": 0, "delta": map[string]any{"content": content}, "finish_reason": nil}
	if finish != "" {
		ch["finish_reason"] = finish
	}
	b, _ := json.Marshal(map[string]any{"object": "chat.completion.chunk", "model": "m", "choices": []any{ch}})
	return "data: " + string(b) + "\n\n"
}

// Event streams that real servers and proxies send though none was asked
// for: the ones that are whole are read as one reply, whatever comes before
// their first data line; the ones that stop before they say they are done,
// or on an error, are retried and never read as the model's whole answer.
func TestAnEventStreamIsReadOnlyWhenItIsWhole(t *testing.T) {
	const answer = `{"score": 91, "verdict": "PASS"}`
	parts := sseChunk(answer[:12], "") + sseChunk(answer[12:], "")
	usage := "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":7,\"total_tokens\":18}}\n\n"
	tests := []struct {
		name     string
		body     string
		text     string
		usage    Usage
		err      string
		requests int
	}{
		{name: "a keep-alive comment before the first chunk", body: ": keep-alive\n\n" + parts + sseChunk("", "stop") + usage + "data: [DONE]\n\n",
			text: answer, usage: Usage{11, 7, 18}, requests: 1},
		{name: "a proxy's comment before the first chunk", body: ": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\n" + parts + sseChunk("", "stop") + "data: [DONE]\n\n",
			text: answer, requests: 1},
		{name: "event lines before each chunk", body: "event: message\n" + sseChunk(answer[:12], "") + "event: message\n" + sseChunk(answer[12:], "stop") + "event: done\ndata: [DONE]\n\n",
			text: answer, requests: 1},
		{name: "a finish_reason without [DONE] is whole", body: parts + sseChunk("", "stop"),
			text: answer, requests: 1},
		{name: "[DONE] without a finish_reason is whole", body: parts + "data: [DONE]\n\n",
			text: answer, requests: 1},
		{name: "a stream that stops before it is done is retried, then fails saying so", body: parts,
			err:      `cannot call openai:test at URL/v1: gave up after 3 attempts, the last one failed with an unusable reply: the server's event stream was cut short: it ends after 2 chunk(s) with neither a finish_reason nor [DONE] ("…},\"finish_reason\":null,\"index\":0}],\"model\":\"m\",\"object\":\"chat.completion.chunk\"}")`,
			requests: 3},
		{name: "a stream that stops on an error is retried, then fails with the server's error", body: sseChunk(answer[:12], "") + "data: {\"error\":{\"message\":\"upstream overloaded\",\"code\":503}}\n\n",
			err:      `cannot call openai:test at URL/v1: gave up after 3 attempts, the last one failed with an unusable reply: the server's event stream stopped on an error after 1 chunk(s): upstream overloaded`,
			requests: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var requests atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				w.Header().Set("Content-Type", "text/event-stream")
				for _, piece := range strings.SplitAfter(tt.body, "\n") { // odd chunking: one line at a time
					fmt.Fprint(w, piece)
					w.(http.Flusher).Flush()
				}
			}))
			defer srv.Close()
			got, err := openaiClient(t, srv.URL+"/v1").Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
			if int(requests.Load()) != tt.requests {
				t.Errorf("requests = %d, want %d", requests.Load(), tt.requests)
			}
			if tt.err != "" {
				if err == nil {
					t.Fatalf("no error; reply %+v", got)
				}
				if msg := strings.ReplaceAll(err.Error(), srv.URL, "URL"); msg != tt.err {
					t.Fatalf("error\n got %s\nwant %s", msg, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != tt.text || got.Usage != tt.usage {
				t.Fatalf("reply %+v, want text %q usage %+v", got, tt.text, tt.usage)
			}
		})
	}
}

// What a reasoning model thought is not its answer, whatever shape the
// thought takes in the reply's text.
func TestAThoughtIsNeverReadAsTheAnswer(t *testing.T) {
	tests := []struct {
		name, content, finish, text string
	}{
		{name: "a closed block before the answer", content: "<think>\n{\"verdict\": \"PASS\"}\n</think>\n\n{\"verdict\": \"FAIL\"}", finish: "stop", text: `{"verdict": "FAIL"}`},
		{name: "a block cut at the token limit holds no answer", content: "<think>\nthe verdict is {\"verdict\": \"PASS\"} I think, but", finish: "length", text: ""},
		{name: "a closing tag alone: the template opened the thought in the prompt", content: "hmm, {\"verdict\": \"PASS\"}? no.\n</think>\n\n{\"verdict\": \"FAIL\"}", finish: "stop", text: `{"verdict": "FAIL"}`},
		{name: "a closing tag after an opening one in the answer is kept", content: "Use <think> and </think> tags.", finish: "stop", text: "Use <think> and </think> tags."},
		{name: "no tags", content: `{"verdict": "FAIL"}`, finish: "stop", text: `{"verdict": "FAIL"}`},
		{name: "a closed thinking block before the answer", content: "<thinking>{\"verdict\": \"PASS\"}</thinking>\n{\"verdict\": \"FAIL\"}", finish: "stop", text: `{"verdict": "FAIL"}`},
		{name: "a reasoning block cut at the token limit holds no answer", content: "<reasoning>maybe {\"verdict\": \"PASS\"}", finish: "length", text: ""},
		{name: "a thought block, then another tag's block, then the answer", content: "<thought>a</thought><think>b</think>answer", finish: "stop", text: "answer"},
		{name: "a tag that is not a thought's is the answer's text", content: "<answer>{\"verdict\": \"PASS\"}</answer>", finish: "stop", text: "<answer>{\"verdict\": \"PASS\"}</answer>"},
		{name: "a JSON answer holding a closing tag is kept whole", content: `{"summary": "the model writes </think> after its reasoning", "verdict": "PASS"}`, finish: "stop", text: `{"summary": "the model writes </think> after its reasoning", "verdict": "PASS"}`},
		{name: "a closing tag inside a line of the answer is kept", content: "Qwen3 ends its thought with </think> and then answers.\nSo strip up to it.", finish: "stop", text: "Qwen3 ends its thought with </think> and then answers.\nSo strip up to it."},
		{name: "a closing tag alone at the end of the reply: all thought, no answer", content: "the verdict is PASS, I think\n</think>", finish: "stop", text: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := chatServer(t, func(n int, body map[string]any, w http.ResponseWriter) {
				b, _ := json.Marshal(map[string]any{"id": "x", "object": "chat.completion", "model": "test",
					"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": tt.content}, "finish_reason": tt.finish}}})
				fmt.Fprint(w, string(b))
			})
			got, err := openaiClient(t, srv.URL+"/v1").Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != tt.text {
				t.Fatalf("text %q, want %q", got.Text, tt.text)
			}
		})
	}
}
