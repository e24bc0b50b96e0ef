package mcpserver

import (
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxSessions bounds the streamable HTTP sessions kept at once. The SDK
// keeps a session until the client deletes it, and clients that start a
// session per connection and never send DELETE are common: without a bound
// every initialize stays in memory (about 13 KiB each) for the server's
// life. An initialize that would start one more ends the oldest (its client
// gets 404 and, as the transport specification asks, starts a new session).
// Idle sessions are not timed out: an editor left alone for hours keeps its
// session.
const maxSessions = 1000

// boundSessions ends the oldest sessions of srv before a request that starts
// a session (a POST without an Mcp-Session-Id, which requireSession lets
// through only for an initialize) would make more than max.
func boundSessions(srv *mcp.Server, max int, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			sessions := slices.Collect(srv.Sessions()) // oldest first
			for len(sessions) >= max {
				sessions[0].Close()
				sessions = sessions[1:]
			}
		}
		next.ServeHTTP(w, r)
	})
}
