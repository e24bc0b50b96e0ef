package actions

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
)

// A reply cut at the token limit (finish_reason "length") that is not
// usable is asked again saying it was cut off and to answer shorter, not as
// a JSON syntax error the model would repeat (through the real OpenAI
// client on a local server).
func TestGenerateAsksAgainShorterWhenTheReplyWasCutAtTheTokenLimit(t *testing.T) {
	var mu sync.Mutex
	var asked []string // the last message of each request
	replies := []struct{ content, finish string }{
		{`{"title": "Lamps through the ages, from oil to`, "length"},
		{`{"title": "Lamps", "words": 1200}`, "stop"},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &body)
		mu.Lock()
		n := len(asked)
		asked = append(asked, body.Messages[len(body.Messages)-1].Content)
		mu.Unlock()
		rep := replies[min(n, len(replies)-1)]
		content, _ := json.Marshal(rep.content)
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","model":"test","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":%q}],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`, content, rep.finish)
	}))
	defer srv.Close()
	p := newProject(t, map[string]string{"a/spec.yaml": generateSpec, "a/sys.md": "You name things.", "a/ask.md": "Name a book about {{.topic}}."})
	d := p.deps("a", "")
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_API_BASE": srv.URL, "OPENAI_MODEL": "test"}
	d.LLM, d.Getenv = "openai:test", func(k string) string { return env[k] }
	rec := &recorder{}
	r, err := p.run("a/spec.yaml", d, nil, machine.WithObserver(rec))
	require.NoError(t, err)
	require.Equal(t, "done", r.State(), "vars %v", r.Vars())
	assert.Equal(t, "Lamps", r.Var("title"))
	require.Len(t, asked, 2)
	assert.Equal(t, "Your reply was invalid: "+CutOffProblem+"\nAnswer again with the corrected JSON only.", asked[1])
	assert.Equal(t, `your reply was cut off at the token limit (finish_reason "length"), so it is incomplete; answer again with a shorter reply that fits: the same JSON, with less text in it`, CutOffProblem)
	assert.True(t, strings.Contains(notes(rec.recs), "the reply was invalid (your reply was cut off at the token limit"), notes(rec.recs))
}

// A reply with no text is asked again saying why when the server said so: a
// content filter or a refusal stopped it, it only called a tool the state
// does not offer, or all it wrote was its reasoning; not as "the reply is
// empty" the model cannot act on.
func TestGenerateAsksAgainSayingWhyAReplyHasNoText(t *testing.T) {
	tests := []struct {
		name, message, finish, want string
	}{
		{"a content filter", `{"role":"assistant","content":null}`, "content_filter",
			`the provider stopped your reply before it held any text (finish_reason "content_filter": its content filter or a refusal); answer again with the JSON only`},
		{"a tool call where none is offered", `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"safe_py_runner","arguments":"{}"}}]}`, "tool_calls",
			`your reply is a call of the tool "safe_py_runner" and no text, but no tools are offered here; answer with the JSON as text`},
		{"an empty reply the server says nothing of", `{"role":"assistant","content":""}`, "stop",
			`the reply is empty; answer with one JSON object`},
		{"a reply that is all reasoning (reasoning_content only)", `{"role":"assistant","content":null,"reasoning_content":"The title could be {\"title\": \"Lamps\"} but"}`, "stop",
			`your reply holds only your reasoning and no answer after it (the server gave all of it as reasoning, or your thought block never closed); finish your reasoning, then answer with the JSON`},
		{"a reply that is a thought block that never closed", `{"role":"assistant","content":"<think>The title could be Lamps, or"}`, "stop",
			`your reply holds only your reasoning and no answer after it (the server gave all of it as reasoning, or your thought block never closed); finish your reasoning, then answer with the JSON`},
		{"a thought block cut at the token limit says it was cut", `{"role":"assistant","content":"<think>The title could be Lamps, or"}`, "length",
			`your reply was cut off at the token limit (finish_reason "length"), so it is incomplete; answer again with a shorter reply that fits: the same JSON, with less text in it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var body struct {
					Messages []struct {
						Content string `json:"content"`
					} `json:"messages"`
				}
				b, _ := io.ReadAll(r.Body)
				_ = json.Unmarshal(b, &body)
				mu.Lock()
				n := len(asked)
				asked = append(asked, body.Messages[len(body.Messages)-1].Content)
				mu.Unlock()
				msg, finish := tt.message, tt.finish
				if n > 0 {
					msg, finish = `{"role":"assistant","content":"{\"title\": \"Lamps\", \"words\": 1200}"}`, "stop"
				}
				fmt.Fprintf(w, `{"id":"x","object":"chat.completion","model":"test","choices":[{"index":0,"message":%s,"finish_reason":%q}],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`, msg, finish)
			}))
			defer srv.Close()
			p := newProject(t, map[string]string{"a/spec.yaml": generateSpec, "a/sys.md": "You name things.", "a/ask.md": "Name a book about {{.topic}}."})
			d := p.deps("a", "")
			env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_API_BASE": srv.URL, "OPENAI_MODEL": "test"}
			d.LLM, d.Getenv = "openai:test", func(k string) string { return env[k] }
			r, err := p.run("a/spec.yaml", d, nil)
			require.NoError(t, err)
			require.Equal(t, "done", r.State(), "vars %v", r.Vars())
			require.Len(t, asked, 2)
			assert.Equal(t, "Your reply was invalid: "+tt.want+"\nAnswer again with the corrected JSON only.", asked[1])
		})
	}
}
