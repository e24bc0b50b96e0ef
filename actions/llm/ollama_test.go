package llm

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// ollamaNativeServer is an Ollama without /v1 whose /api/chat answers body.
func ollamaNativeServer(t *testing.T, status int, body string) Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, "404 page not found")
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	env := map[string]string{"OLLAMA_HOST": srv.URL}
	c, err := New(Choice{Provider: "ollama", Model: "qwen3:8b"}, Options{Getenv: func(k string) string { return env[k] },
		Retry: RetryPolicy{Attempts: 2, Sleep: noSleep, Timeout: 5 * time.Second}})
	require.NoError(t, err)
	return c
}

// A proxy in front of Ollama that drops "stream": false sends the reply as
// NDJSON chunks: they are merged into the reply Ollama would have sent.
func TestAnOllamaReplyStreamedThoughNotAskedIsMergedIntoOne(t *testing.T) {
	stream := `{"model":"qwen3:8b","message":{"role":"assistant","content":"","thinking":"hm"},"done":false}
{"model":"qwen3:8b","message":{"role":"assistant","content":"{\"score\": "},"done":false}
{"model":"qwen3:8b","message":{"role":"assistant","content":"91}"},"done":false}
{"model":"qwen3:8b","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"ls","arguments":{"dir":"."}}}]},"done":false}
{"model":"qwen3:8b","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":12,"eval_count":7}
`
	reply, err := ollamaNativeServer(t, 200, stream).Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "go"}}})
	require.NoError(t, err)
	require.Equal(t, `{"score": 91}`, reply.Text)
	require.Len(t, reply.ToolCalls, 1)
	require.Equal(t, "ls", reply.ToolCalls[0].Name)
	require.Equal(t, `{"dir":"."}`, reply.ToolCalls[0].Arguments)
	require.Equal(t, Usage{12, 7, 19}, reply.Usage)
	require.Equal(t, 1, reply.Attempts)
}

func TestAnOllamaNativeReplyThatCannotBeReadSaysWhyAndNamesTheURLCalled(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"a stream cut before its last chunk", 200,
			`{"message":{"role":"assistant","content":"{\"score\""},"done":false}` + "\n" + `{"message":{"role":"assistant","content":": 9"},"done":false}` + "\n",
			`cannot call ollama:qwen3:8b at %s/api/chat: gave up after 2 attempts, the last one failed with an unusable reply: the server's streamed /api/chat reply (though none was asked for) was cut short: it ends before its last chunk ("done": true) (…`},
		{"a stream with an error", 200,
			`{"message":{"role":"assistant","content":"{"},"done":false}` + "\n" + `{"error":"model runner crashed"}` + "\n",
			`cannot call ollama:qwen3:8b at %s/api/chat: an unusable reply: the server's streamed /api/chat reply (though none was asked for) holds an error at line 2: model runner crashed`},
		{"lines that are not JSON", 200, "hello\nworld\n",
			`cannot call ollama:qwen3:8b at %s/api/chat: an unusable reply: the server's /api/chat reply is not one JSON object ("hello world")`},
		{"a plain-text error with status 200 is retried", 200, "Internal error, try later",
			`cannot call ollama:qwen3:8b at %s/api/chat: gave up after 2 attempts, the last one failed with an unusable reply: the server answered HTTP 200 with an error in a body that is not JSON instead of a reply ("Internal error, try later"), taken as a server error`},
		{"a JSON error saying the server is busy is retried", 200, `{"error":"server busy, please try again"}`,
			`cannot call ollama:qwen3:8b at %s/api/chat: gave up after 2 attempts, the last one failed with an unusable reply: the server answered HTTP 200 with an error: server busy, please try again`},
		{"a server error", 500, `{"error":"out of memory"}`,
			`cannot call ollama:qwen3:8b at %s/api/chat: gave up after 2 attempts, the last one failed with HTTP 500`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ollamaNativeServer(t, tt.status, tt.body)
			host := strings.TrimSuffix(c.(*lcClient).base, "/v1")
			_, err := c.Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "go"}}})
			require.Error(t, err)
			want := fmt.Sprintf(tt.want, host)
			if strings.HasSuffix(want, "…") {
				require.True(t, strings.HasPrefix(err.Error(), strings.TrimSuffix(want, "…")), "got %s", err)
			} else {
				require.True(t, strings.HasPrefix(err.Error(), want), "got %s\nwant %s", err, want)
			}
		})
	}
}

// Token counts a proxy sends as strings (or as anything else) never make an
// Ollama reply unreadable: numeric strings are read, the rest is unknown.
func TestAnOllamaReplyWithTokenCountsAsStringsIsRead(t *testing.T) {
	for _, tt := range []struct {
		name, counts string
		usage        Usage
		missing      bool
	}{
		{name: "numeric strings", counts: `"prompt_eval_count":"12","eval_count":" 7 "`, usage: Usage{12, 7, 19}},
		{name: "a float", counts: `"prompt_eval_count":12.0,"eval_count":7`, usage: Usage{12, 7, 19}},
		{name: "not numbers", counts: `"prompt_eval_count":"many","eval_count":null`, missing: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"model":"qwen3:8b","message":{"role":"assistant","content":"{\"score\": 91}"},"done":true,"done_reason":"stop",` + tt.counts + `}`
			reply, err := ollamaNativeServer(t, 200, body).Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "go"}}})
			require.NoError(t, err)
			require.Equal(t, `{"score": 91}`, reply.Text)
			require.Equal(t, tt.usage, reply.Usage)
			require.Equal(t, tt.missing, reply.UsageMissing)
		})
	}
}
