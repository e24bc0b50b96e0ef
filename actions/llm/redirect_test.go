package llm

import (
	"context"
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

	"github.com/lppctl/lppctl/machine"
)

// A server that redirects the POST (http:// to https://, a trailing slash)
// is named with where it points, once, and the run stops in place: the
// call is never sent again as a GET that fails as "failed to reach API
// server" and takes the state's on_error. 307 and 308 keep the POST.
func TestARedirectThatWouldTurnThePostIntoAGetIsNamed(t *testing.T) {
	for _, tt := range []struct {
		name     string
		status   int
		err      string
		requests int32
	}{
		{name: "301", status: http.StatusMovedPermanently, requests: 1,
			err: "cannot call openai:test at URL/v1: an unusable reply: the server redirects the call (HTTP 301) from URL/v1/chat/completions to URL/api/v1/chat/completions, where it would be sent again as a GET without its body, not a POST; set the base URL to the address it points to"},
		{name: "302", status: http.StatusFound, requests: 1,
			err: "cannot call openai:test at URL/v1: an unusable reply: the server redirects the call (HTTP 302) from URL/v1/chat/completions to URL/api/v1/chat/completions, where it would be sent again as a GET without its body, not a POST; set the base URL to the address it points to"},
		{name: "308 keeps the POST and is followed", status: http.StatusPermanentRedirect, requests: 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var requests atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				if r.URL.Path == "/v1/chat/completions" {
					http.Redirect(w, r, "/api/v1/chat/completions", tt.status)
					return
				}
				if r.Method != http.MethodPost {
					http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
					return
				}
				fmt.Fprint(w, `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`)
			}))
			defer srv.Close()
			env := map[string]string{"OPENAI_API_BASE": srv.URL + "/v1"}
			c, err := New(Choice{Provider: "openai", Model: "test"}, Options{Getenv: func(k string) string { return env[k] }, Retry: RetryPolicy{Attempts: 3, Sleep: noSleep, Timeout: 5 * time.Second}})
			require.NoError(t, err)
			reply, err := c.Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
			assert.Equal(t, tt.requests, requests.Load())
			if tt.err == "" {
				require.NoError(t, err)
				assert.Equal(t, "hi", reply.Text)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.err, strings.ReplaceAll(err.Error(), srv.URL, "URL"))
			assert.True(t, errors.Is(err, machine.ErrUnavailable), "a redirect to follow by hand stops the run in place")
		})
	}
}
