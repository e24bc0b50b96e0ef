package llm

import (
	"fmt"
	"net/http"
)

// maxRedirects is how many redirects a call follows (net/http's default).
const maxRedirects = 10

// checkRedirect refuses a redirect that would send the call again as
// another method: net/http turns a POST answered with 301, 302 or 303 into
// a GET without its body (a proxy that sends http:// to https://, a server
// that adds a trailing slash), and the GET then fails in a way that names
// neither the redirect nor the base URL (langchaingo's client says
// "network error: failed to reach API server"). The refusal is recorded for
// the attempt, says where the server points, and is a setup problem: the
// run stops in place. 307 and 308 keep the method and body and are
// followed.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	first := via[0]
	if req.Method == first.Method {
		return nil
	}
	status := 0
	if req.Response != nil {
		status = req.Response.StatusCode
	}
	err := &replyError{setup: true, msg: fmt.Sprintf("the server redirects the call (HTTP %d) from %s to %s, where it would be sent again as a %s without its body, not a %s; set the base URL to the address it points to",
		status, displayURL(first.URL.String()), displayURL(req.URL.String()), req.Method, first.Method)}
	if info, ok := req.Context().Value(attemptKey{}).(*attemptInfo); ok {
		info.mu.Lock()
		info.transport, info.status = err, 0
		info.mu.Unlock()
	}
	return err
}
