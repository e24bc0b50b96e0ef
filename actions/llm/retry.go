package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lppctl/lppctl/internal/llmenv"
	"github.com/lppctl/lppctl/machine"
)

// RetryPolicy bounds the retries of transient provider errors (HTTP 429 and
// 5xx, timeouts, dropped connections).
type RetryPolicy struct {
	Attempts int           // total attempts, first included (default 4)
	Base     time.Duration // first backoff (default 1s); doubles each retry
	Max      time.Duration // longest single wait (default 20s)
	Timeout  time.Duration // per attempt (default 120s; 0 keeps the default, <0 none)
	Sleep    func(ctx context.Context, d time.Duration) error
	// OnRetry, when set, is told of each retry before its wait: what failed
	// (the model, its server and why) and the attempt about to be made.
	OnRetry func(what string, attempt, of int, wait time.Duration)
}

// DefaultRetry is used when a provider is built without one.
var DefaultRetry = RetryPolicy{Attempts: 4, Base: time.Second, Max: 20 * time.Second, Timeout: llmenv.DefaultTimeout}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.Attempts <= 0 {
		p.Attempts = DefaultRetry.Attempts
	}
	if p.Base <= 0 {
		p.Base = DefaultRetry.Base
	}
	if p.Max <= 0 {
		p.Max = DefaultRetry.Max
	}
	if p.Timeout == 0 {
		p.Timeout = DefaultRetry.Timeout
	}
	if p.Sleep == nil {
		p.Sleep = sleepCtx
	}
	return p
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// backoff returns the wait before retry n (1-based): exponential with full jitter
// over the upper half, at least the server's Retry-After (up to MaxRetryAfter).
func (p RetryPolicy) backoff(n int, retryAfter time.Duration) time.Duration {
	d := p.Base << (n - 1)
	if d > p.Max || d <= 0 {
		d = p.Max
	}
	d = d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
	if retryAfter > d {
		d = min(retryAfter, max(p.Max, MaxRetryAfter))
	}
	return d
}

// MaxRetryAfter is the longest a server's Retry-After is waited for (the
// backoff cap when that is longer): rate limits often ask for 30-60 s.
const MaxRetryAfter = time.Minute

// attemptInfo is filled by the status-recording transport during one attempt.
type attemptInfo struct {
	mu         sync.Mutex
	status     int
	retryAfter time.Duration
	transport  error  // the transport's own error: providers' clients may replace it with a plain message
	said       string // what the server said with an error status (its message, or its page's text)
}

type attemptKey struct{}

// statusTransport records each response's status code (and Retry-After) in
// the attemptInfo carried by the request's context.
type statusTransport struct{ base http.RoundTripper }

func (t statusTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if info, ok := req.Context().Value(attemptKey{}).(*attemptInfo); ok && err != nil {
		info.mu.Lock()
		info.transport = err
		info.mu.Unlock()
	}
	if info, ok := req.Context().Value(attemptKey{}).(*attemptInfo); ok && resp != nil {
		var said string
		if resp.StatusCode >= 400 {
			// Read the start of the body for the message, and give it back
			// whole: clients read {"error": {"message"}} only, and vLLM sends
			// {"message"}, proxies send HTML.
			head, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<10))
			resp.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
			said = serverSaid(head, resp.Header.Get("Content-Type"))
		}
		info.mu.Lock()
		info.status = resp.StatusCode
		info.retryAfter = llmenv.RetryAfter(resp.Header.Get("Retry-After"), time.Now())
		info.said = said
		info.mu.Unlock()
	}
	return resp, err
}

var (
	htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	htmlTag   = regexp.MustCompile(`(?s)<[^>]*>`)
)

// serverSaid extracts the message of an error body: the JSON error's message
// ({"error": {"message"}}, {"error": "..."}, {"message"}, {"detail"}), an
// HTML page's title or text, or the start of the text.
func serverSaid(body []byte, contentType string) string {
	b := bytes.TrimSpace(body)
	if len(b) == 0 {
		return ""
	}
	var obj map[string]any
	if json.Unmarshal(b, &obj) == nil {
		for _, k := range []string{"error", "message", "detail"} {
			if v, ok := obj[k]; ok && v != nil {
				if m, ok := v.(map[string]any); ok {
					if msg, ok := m["message"].(string); ok && msg != "" {
						return llmenv.Said(msg)
					}
				}
				if s, ok := v.(string); ok && s != "" {
					return llmenv.Said(s)
				}
			}
		}
		return llmenv.Said(string(b))
	}
	if strings.Contains(contentType, "html") || bytes.HasPrefix(b, []byte("<")) {
		if m := htmlTitle.FindSubmatch(b); m != nil {
			return llmenv.Said(string(m[1]))
		}
		return llmenv.Said(htmlTag.ReplaceAllString(string(b), " "))
	}
	return llmenv.Said(string(b))
}

var statusInText = regexp.MustCompile(`status code:? (\d{3})`)

// transient reports whether err (with the recorded status) is worth retrying,
// and describes it.
func transient(err error, status int) (bool, string) {
	var re *replyError
	if errors.As(err, &re) {
		return re.transient, "an unusable reply"
	}
	if status == 0 {
		if m := statusInText.FindStringSubmatch(err.Error()); m != nil {
			status, _ = strconv.Atoi(m[1])
		}
	}
	switch {
	case status == http.StatusTooManyRequests:
		return true, "HTTP 429 (rate limited)"
	case status >= 500 && status <= 599:
		return true, fmt.Sprintf("HTTP %d (server error)", status)
	case status >= 400:
		return false, fmt.Sprintf("HTTP %d%s", status, statusHint(status))
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true, "timeout"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true, "timeout"
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return true, "connection error"
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true, "connection closed"
	}
	return false, ""
}

// statusError is an HTTP error status with what the server said.
type statusError struct {
	status int
	said   string
	err    error // the client's error
}

func (e *statusError) Error() string { return "the server said: " + e.said }
func (e *statusError) Unwrap() error { return e.err }

// refusedAccess reports a status that says the provider's setup is wrong
// (the key, the account, the model or the base URL), not the request: 401,
// 402, 403 and 404.
func refusedAccess(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusPaymentRequired, http.StatusForbidden, http.StatusNotFound:
		return true
	}
	return false
}

// statusHint says what a permanent HTTP status usually means.
func statusHint(status int) string {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return " (check the API key)"
	case http.StatusNotFound:
		return " (check the model name and the base URL)"
	}
	return ""
}

// withRetry runs call until it succeeds, fails permanently or the attempts
// run out (then its error is machine.ErrUnavailable). It returns the number
// of attempts made. where names the model and where it is, e.g.
// "openai:gpt-4o-mini at http://127.0.0.1:8000/v1", as of the last attempt
// (an ollama client moves to the native API on its first attempt).
func withRetry(ctx context.Context, p RetryPolicy, where func() string, call func(ctx context.Context) error) (int, error) {
	p = p.withDefaults()
	var last error
	var lastWhy string
	for n := 1; ; n++ {
		info := &attemptInfo{}
		actx := context.WithValue(ctx, attemptKey{}, info)
		var cancel context.CancelFunc = func() {}
		if p.Timeout > 0 {
			actx, cancel = context.WithTimeout(actx, p.Timeout)
		}
		err := call(actx)
		what := where()
		timedOut := actx.Err() != nil
		cancel()
		if err == nil {
			return n, nil
		}
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
		info.mu.Lock()
		status, ra, terr, said := info.status, info.retryAfter, info.transport, info.said
		info.mu.Unlock()
		if terr != nil && status == 0 {
			// The transport's own error says more than the client's:
			// langchaingo's OpenAI client turns "connection refused" into
			// "network error: failed to reach API server", and a reply
			// compatTransport refused into the same.
			err = terr
		}
		ok, why := transient(err, status)
		if status >= 400 {
			// The server's own words, not the client's paraphrase.
			if said == "" {
				said = "(no message)"
			}
			err = &statusError{status: status, said: said, err: err}
		}
		if timedOut {
			ok, why = true, fmt.Sprintf("timeout (no complete answer within %s)", p.Timeout)
		}
		if !ok {
			if why != "" {
				err = fmt.Errorf("cannot call %s: %s: %w", what, why, err)
			} else {
				err = fmt.Errorf("cannot call %s: %w", what, err)
			}
			var re *replyError
			if refusedAccess(status) || errors.As(err, &re) && re.setup {
				// A key refused, a model or API not found: the provider's
				// setup, not the model's answer. Unavailable, the run stops
				// in place (a spec's on_error routes are not spent on it)
				// and resume makes the call again once it is fixed.
				err = machine.Unavailable(err)
			}
			return n, err
		}
		last, lastWhy = err, why
		if n >= p.Attempts {
			break
		}
		wait := p.backoff(n, ra)
		if p.OnRetry != nil {
			p.OnRetry(fmt.Sprintf("%s: %s", what, why), n+1, p.Attempts, wait)
		}
		if err := p.Sleep(ctx, wait); err != nil {
			return n, err
		}
	}
	tries := fmt.Sprintf("%d attempts", p.Attempts)
	if p.Attempts == 1 {
		tries = "1 attempt"
	}
	// The provider is down, overloaded or silent: not what the model said.
	// Marked unavailable, the run stops in place instead of taking the
	// state's on_error route, and resume makes the call again.
	return p.Attempts, machine.Unavailable(fmt.Errorf("cannot call %s: gave up after %s, the last one failed with %s: %w", where(), tries, lastWhy, last))
}
