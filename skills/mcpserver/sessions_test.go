package mcpserver

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A client that starts a session per connection and never deletes it does
// not make the server keep them all: past maxSessions the oldest ends, and
// its client gets 404 (start a new session), the newest still answer.
func TestHTTPSessionsPastTheBoundEndTheOldest(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	srv := New(newLibrary(t), "test")
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- ServeHTTP(ctx, srv, "127.0.0.1:0", func(a net.Addr) { addrc <- a }) }()
	defer func() { cancel(); require.NoError(t, <-done) }()
	endpoint := "http://" + (<-addrc).String()
	post := func(session, body string) (int, string) {
		req, err := http.NewRequest("POST", endpoint, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
	}
	start := func() string {
		code, session := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
		require.Equal(t, http.StatusOK, code)
		require.NotEmpty(t, session)
		return session
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	first := start()
	var last string
	for range maxSessions {
		last = start()
	}
	n := 0
	for range srv.Sessions() {
		n++
	}
	assert.Equal(t, maxSessions, n)
	code, _ := post(first, ping)
	assert.Equal(t, http.StatusNotFound, code, "the oldest session")
	code, _ = post(last, ping)
	assert.Equal(t, http.StatusOK, code, "the newest session")
}
