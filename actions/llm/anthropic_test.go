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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/lppctl/lppctl/machine"
)

// The anthropic adapter: several tool calls of one assistant message go out
// as one message per call, and a reply's text and tool_use blocks are merged.
func TestAnthropicToolCallsRoundTrip(t *testing.T) {
	var sent []any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/messages" {
			http.NotFound(w, r)
			return
		}
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		sent, _ = body["messages"].([]any)
		fmt.Fprint(w, `{"id":"m1","type":"message","role":"assistant","model":"claude-x","stop_reason":"tool_use",
			"content":[{"type":"text","text":"Listing first."},{"type":"tool_use","id":"tu9","name":"safe_cli_executor","input":{"tool_name":"list_files"}}],
			"usage":{"input_tokens":21,"output_tokens":8}}`)
	}))
	defer srv.Close()
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL + "/v1"}
	c, err := New(Choice{Provider: "anthropic", Model: "claude-x"}, Options{Getenv: func(k string) string { return env[k] }, Retry: RetryPolicy{Attempts: 1, Sleep: noSleep, Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := c.Generate(context.Background(), Request{Messages: []Message{
		{Role: RoleSystem, Text: "sys"}, {Role: RoleUser, Text: "go"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "a", Name: "safe_cli_executor", Arguments: `{"tool_name":"tree"}`}, {ID: "b", Name: "safe_py_runner", Arguments: "{broken"}}},
		{Role: RoleTool, ToolCallID: "a", Name: "safe_cli_executor", Text: "."},
		{Role: RoleTool, ToolCallID: "b", Name: "safe_py_runner", Text: "[ERROR] bad"},
	}, Tools: []Tool{{Name: "safe_cli_executor", Description: "d", Parameters: map[string]any{"type": "object"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "Listing first." || len(reply.ToolCalls) != 1 || reply.ToolCalls[0].ID != "tu9" || reply.ToolCalls[0].Arguments != `{"tool_name":"list_files"}` {
		t.Fatalf("reply = %+v", reply)
	}
	if reply.Usage.PromptTokens != 21 || reply.Usage.CompletionTokens != 8 || reply.Usage.TotalTokens != 29 {
		t.Fatalf("usage = %+v", reply.Usage)
	}
	// user, assistant(tool a), assistant(tool b), user(result a), user(result b)
	if len(sent) != 5 {
		t.Fatalf("sent %d messages: %v", len(sent), sent)
	}
	b := sent[2].(map[string]any)["content"].([]any)[0].(map[string]any)
	if b["type"] != "tool_use" || b["id"] != "b" {
		t.Fatalf("second tool call = %v", b)
	}
}

// Anthropic's quirks: an empty content list is an empty answer, its usage
// counted; a missing usage is reported as missing; a base URL without /v1
// (the SDKs' form) works.
func TestAnthropicReplies(t *testing.T) {
	for _, tt := range []struct {
		name, path, body, text string
		noUsage                bool
	}{
		{name: "empty content", path: "/v1", body: `{"id":"m","type":"message","role":"assistant","content":[],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":0}}`},
		{name: "no usage", path: "/v1", body: `{"id":"m","type":"message","role":"assistant","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn"}`, text: "hi", noUsage: true},
		{name: "base URL without /v1", path: "", body: `{"id":"m","type":"message","role":"assistant","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`, text: "hi"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/v1/messages" {
					http.NotFound(w, r)
					return
				}
				fmt.Fprint(w, tt.body)
			}))
			defer srv.Close()
			env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL + tt.path}
			c, err := New(Choice{Provider: "anthropic", Model: "claude-x"}, Options{Getenv: func(k string) string { return env[k] }, Retry: RetryPolicy{Attempts: 1, Sleep: noSleep, Timeout: 5 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			reply, err := c.Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
			if err != nil {
				t.Fatal(err)
			}
			if reply.Text != tt.text || reply.UsageMissing != tt.noUsage || len(reply.ToolCalls) != 0 {
				t.Fatalf("reply %+v", reply)
			}
		})
	}
}

type panicModel struct{ llms.Model }

func (panicModel) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	var m map[string]int
	//lint:ignore SA5000 the panic is the point: a client that fails on a reply it did not expect
	m["x"]++ // a nil map: what a client does with a reply it did not expect
	return nil, nil
}

func TestAProviderClientPanicIsAnError(t *testing.T) {
	c := &lcClient{model: panicModel{}, provider: "openai", name: "m", base: "http://h/v1", retry: RetryPolicy{Attempts: 1, Sleep: noSleep}}
	_, err := c.Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
	if want := "cannot call openai:m at http://h/v1: the openai client failed on the server's reply: assignment to entry in nil map"; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
}

// bedrockLikeServer answers the Messages API as Anthropic-compatible
// endpoints such as Bedrock do: a request holding tool_use or tool_result
// blocks must define tools (HTTP 400 otherwise).
func bedrockLikeServer(t *testing.T, sent *map[string]any) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		*sent = body
		msgs, _ := body["messages"].([]any)
		_, hasTools := body["tools"]
		for _, m := range msgs {
			blocks, _ := m.(map[string]any)["content"].([]any)
			for _, b := range blocks {
				typ, _ := b.(map[string]any)["type"].(string)
				if (typ == "tool_use" || typ == "tool_result") && !hasTools {
					w.WriteHeader(http.StatusBadRequest)
					fmt.Fprint(w, `{"type":"error","error":{"type":"invalid_request_error","message":"Requests which include `+"`tool_use` or `tool_result`"+` blocks must define tools."}}`)
					return
				}
			}
		}
		fmt.Fprint(w, `{"id":"m1","type":"message","role":"assistant","model":"claude-x","stop_reason":"end_turn",
			"content":[{"type":"text","text":"{\"verdict\": \"PASS\"}"}],"usage":{"input_tokens":5,"output_tokens":3}}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The evaluator's last request offers no tools, but its history holds the
// tool calls it made: sent as tool_use/tool_result blocks with tools defined,
// and as text without them.
func TestAnthropicRequestWithoutToolsCarriesNoToolBlocks(t *testing.T) {
	var sent map[string]any
	srv := bedrockLikeServer(t, &sent)
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL + "/v1"}
	c, err := New(Choice{Provider: "anthropic", Model: "claude-x"}, Options{Getenv: func(k string) string { return env[k] }, Retry: RetryPolicy{Attempts: 1, Sleep: noSleep, Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	history := []Message{
		{Role: RoleSystem, Text: "sys"}, {Role: RoleUser, Text: "check the greeting"},
		{Role: RoleAssistant, Text: "Reading it.", ToolCalls: []ToolCall{{ID: "a", Name: "safe_cli_executor", Arguments: `{"tool_name":"read_file","params":{"path":"out.txt"}}`}}},
		{Role: RoleTool, ToolCallID: "a", Name: "safe_cli_executor", Text: "Hello, Ada!"},
		{Role: RoleUser, Text: "Give your verdict now."},
	}
	blockTypes := func() []string {
		var types []string
		for _, m := range sent["messages"].([]any) {
			for _, b := range m.(map[string]any)["content"].([]any) {
				types = append(types, m.(map[string]any)["role"].(string)+":"+b.(map[string]any)["type"].(string))
			}
		}
		return types
	}

	t.Run("with tools: tool blocks", func(t *testing.T) {
		if _, err := c.Generate(context.Background(), Request{Messages: history, Tools: []Tool{{Name: "safe_cli_executor", Description: "d", Parameters: map[string]any{"type": "object"}}}}); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(blockTypes()); got != "[user:text assistant:text assistant:tool_use user:tool_result user:text]" {
			t.Errorf("blocks = %s", got)
		}
	})
	t.Run("without tools: text only", func(t *testing.T) {
		reply, err := c.Generate(context.Background(), Request{Messages: history})
		if err != nil {
			t.Fatal(err)
		}
		if reply.Text != `{"verdict": "PASS"}` {
			t.Errorf("reply = %+v", reply)
		}
		if got := fmt.Sprint(blockTypes()); got != "[user:text assistant:text user:text]" {
			t.Fatalf("blocks = %s", got)
		}
		msgs := sent["messages"].([]any)
		text := func(i int) string {
			return msgs[i].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
		}
		if got, want := text(1), "Reading it.\n[tool call a] safe_cli_executor {\"tool_name\":\"read_file\",\"params\":{\"path\":\"out.txt\"}}"; got != want {
			t.Errorf("assistant text = %q, want %q", got, want)
		}
		if got, want := text(2), "[tool result a (safe_cli_executor)]\nHello, Ada!\n\nGive your verdict now."; got != want {
			t.Errorf("user text = %q, want %q", got, want)
		}
		if _, ok := sent["tools"]; ok {
			t.Error("tools sent")
		}
	})
}

// A 200 reply of /messages that is not a message is never read as an empty
// answer: an error object is retried when the server is overloaded (then
// the run stops in place), and a stream nobody asked for is refused saying so.
func TestAnAnthropicReplyThatIsNotAMessageIsNotAnEmptyAnswer(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		requests   int32
		err        string
		unavail    bool
	}{
		{name: "an overloaded error with status 200 is retried", body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, requests: 2, unavail: true,
			err: "cannot call anthropic:claude-x at URL/v1: gave up after 2 attempts, the last one failed with an unusable reply: the server answered HTTP 200 with an error (overloaded_error): Overloaded"},
		{name: "an invalid request error with status 200 is not retried", body: `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`, requests: 1,
			err: "cannot call anthropic:claude-x at URL/v1: an unusable reply: the server answered HTTP 200 with an error (invalid_request_error): prompt is too long: 210000 tokens > 200000 maximum"},
		{name: "an event stream though none was asked for", body: "event: message_start\ndata: {\"type\":\"message_start\"}\n\n", requests: 1,
			err: `cannot call anthropic:claude-x at URL/v1: an unusable reply: the server answered with an event stream (though none was asked for), which is not read as a message ("event: message_start data: {\"type\":\"message_start\"}"); does a proxy between lppctl and the API force streaming?`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var requests atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				fmt.Fprint(w, tt.body)
			}))
			defer srv.Close()
			env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL + "/v1"}
			c, err := New(Choice{Provider: "anthropic", Model: "claude-x"}, Options{Getenv: func(k string) string { return env[k] }, Retry: RetryPolicy{Attempts: 2, Sleep: noSleep, Timeout: 5 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			reply, err := c.Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
			if err == nil {
				t.Fatalf("no error; reply %+v", reply)
			}
			if got := strings.ReplaceAll(err.Error(), srv.URL, "URL"); got != tt.err {
				t.Fatalf("error\n got %s\nwant %s", got, tt.err)
			}
			if errors.Is(err, machine.ErrUnavailable) != tt.unavail {
				t.Errorf("unavailable = %v, want %v", !tt.unavail, tt.unavail)
			}
			if requests.Load() != tt.requests {
				t.Errorf("requests = %d, want %d", requests.Load(), tt.requests)
			}
		})
	}
}

// What real servers and gateways put in a message that langchaingo's client
// cannot read is never a failed call nor a lost reason: blocks of other
// types are dropped, an empty message keeps its stop_reason and usage,
// usage counts as strings are read, and an HTML page is named as such.
func TestAnAnthropicMessageWithWhatTheClientCannotReadIsStillRead(t *testing.T) {
	for _, tt := range []struct {
		name, ctype, body string
		want              Reply
		err               string
	}{
		{name: "a redacted thinking block before the text is dropped",
			body: `{"type":"message","role":"assistant","content":[{"type":"redacted_thinking","data":"abc"},{"type":"text","text":"{\"ok\": true}"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":2}}`,
			want: Reply{Text: `{"ok": true}`, StopReason: "end_turn", Usage: Usage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5}, Attempts: 1}},
		{name: "server tool blocks are dropped",
			body: `{"type":"message","role":"assistant","content":[{"type":"server_tool_use","id":"s1","name":"web_search","input":{"q":"x"}},{"type":"web_search_tool_result","tool_use_id":"s1","content":[]},{"type":"text","text":"done"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":2}}`,
			want: Reply{Text: "done", StopReason: "end_turn", Usage: Usage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5}, Attempts: 1}},
		{name: "a refusal with no content keeps its stop reason",
			body: `{"type":"message","role":"assistant","content":[],"stop_reason":"refusal","usage":{"input_tokens":3,"output_tokens":0}}`,
			want: Reply{StopReason: "refusal", Usage: Usage{PromptTokens: 3, TotalTokens: 3}, Attempts: 1}},
		{name: "usage counts given as strings are read",
			body: `{"type":"message","role":"assistant","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":"100","output_tokens":"10"}}`,
			want: Reply{Text: "hi", StopReason: "end_turn", Usage: Usage{PromptTokens: 100, CompletionTokens: 10, TotalTokens: 110}, Attempts: 1}},
		{name: "a tool input given as a JSON string is its object",
			body: `{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read","input":"{\"path\": \"a.txt\"}"}],"stop_reason":"tool_use","usage":{"input_tokens":3,"output_tokens":2}}`,
			want: Reply{ToolCalls: []ToolCall{{ID: "t1", Name: "read", Arguments: `{"path":"a.txt"}`}}, StopReason: "tool_use", Usage: Usage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5}, Attempts: 1}},
		{name: "a byte order mark before the JSON is skipped",
			body: "\xef\xbb\xbf" + `{"type":"message","role":"assistant","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":2}}`,
			want: Reply{Text: "hi", StopReason: "end_turn", Usage: Usage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5}, Attempts: 1}},
		{name: "a plain-text error with status 200 says it is a server error", ctype: "text/plain", body: "Internal error, try later",
			err: `cannot call anthropic:claude-x at URL/v1: gave up after 1 attempt, the last one failed with an unusable reply: the server answered HTTP 200 with an error in text/plain instead of a reply ("Internal error, try later"), taken as a server error`},
		{name: "an HTML page with status 200 is named", ctype: "text/html", body: "<html><body>Sign in</body></html>",
			err: `cannot call anthropic:claude-x at URL/v1: an unusable reply: the server answered HTTP 200 with text/html, not JSON ("<html><body>Sign in</body></html>"); is ANTHROPIC_BASE_URL that of the API?`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.ctype != "" {
					w.Header().Set("Content-Type", tt.ctype)
				}
				fmt.Fprint(w, tt.body)
			}))
			defer srv.Close()
			env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL + "/v1"}
			c, err := New(Choice{Provider: "anthropic", Model: "claude-x"}, Options{Getenv: func(k string) string { return env[k] }, Retry: RetryPolicy{Attempts: 1, Sleep: noSleep, Timeout: 5 * time.Second}})
			require.NoError(t, err)
			reply, err := c.Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
			if tt.err != "" {
				require.Error(t, err)
				assert.Equal(t, tt.err, strings.ReplaceAll(err.Error(), srv.URL, "URL"))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, reply)
		})
	}
}
