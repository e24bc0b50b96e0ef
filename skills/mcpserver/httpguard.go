package mcpserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/lppctl/lppctl/internal/netx"
)

// Timeouts of the HTTP server. A client that sends its headers or its body
// slowly (or never) would otherwise hold a connection open for good.
var (
	headerTimeout = 10 * time.Second // request line and headers
	bodyTimeout   = 30 * time.Second // a POST's body, once the headers are in
	idleTimeout   = 2 * time.Minute  // a kept-alive connection between requests
)

// loopbackHostOnly refuses, with 403, a request whose Host header is not
// exactly a loopback host with an optional port number: 127.0.0.1 (any
// 127.x address), [::1] or localhost. Browsers send the name they resolved,
// so a DNS rebinding page (evil.example resolving to 127.0.0.1) is refused.
// The SDK's own check split the header at its last colon and never looked
// at the port, so "127.0.0.1:8765.evil.example" passed.
func loopbackHostOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !netx.LoopbackHost(r.Host) {
			http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q (this server answers only Host 127.0.0.1, [::1] or localhost, optionally with :PORT)", r.Host), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// readBody reads a POST's body (at most maxHTTPBody bytes) within
// bodyTimeout of its headers, and hands it on in memory. A body that does
// not arrive in time is a 408, and the connection is closed.
func readBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Now().Add(bodyTimeout))
		body, err := io.ReadAll(io.LimitReader(r.Body, maxHTTPBody+1))
		var ne net.Error
		switch {
		case err != nil && (errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()):
			// The deadline stays past: net/http would otherwise wait
			// for the rest of the body before closing the connection.
			w.Header().Set("Connection", "close")
			http.Error(w, fmt.Sprintf("Request Timeout: the body did not arrive within %s", bodyTimeout), http.StatusRequestTimeout)
			return
		case err != nil:
			http.Error(w, "Bad Request: cannot read the body: "+err.Error(), http.StatusBadRequest)
			return
		case len(body) > maxHTTPBody:
			http.Error(w, fmt.Sprintf("Request Entity Too Large: the body is over %d bytes", maxHTTPBody), http.StatusRequestEntityTooLarge)
			return
		}
		_ = rc.SetReadDeadline(time.Time{})
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}
