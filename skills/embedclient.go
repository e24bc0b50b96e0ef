package skills

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/lppctl/lppctl/internal/llmenv"
)

// The embedder's HTTP client. langchaingo's embedders send the requests;
// the transport under them (embedTransport) makes each request as a model
// call is made: each attempt with its own deadline ($LPPCTL_LLM_TIMEOUT),
// a 429, a 5xx or a dropped connection retried with backoff
// ($LPPCTL_LLM_RETRIES attempts, the first wait $LPPCTL_LLM_BACKOFF, at
// least what the server's Retry-After asks), and a 200 reply checked
// (vectors put back in input order, the count of vectors). A request with no
// answer within the deadline is not retried: a hang costs one timeout. What ended a
// call is recorded in plain words for the embedder (embedClient) to return
// instead of langchaingo's paraphrase of it ("API returned unexpected status
// code: 502", "failed to reach API server").

// embedRetry bounds the attempts of one embeddings request.
type embedRetry struct {
	attempts int
	base     time.Duration // first wait; doubles each retry
	timeout  time.Duration // per attempt
}

// Bounds of the waits between attempts, as for model calls.
const (
	embedMaxWait       = 20 * time.Second
	embedMaxRetryAfter = time.Minute
)

// embedRetryFrom reads the retry bounds from the environment. A value
// that cannot be read is refused before a run starts
// (actions.CheckRetryEnv); here it keeps the default.
func embedRetryFrom(getenv func(string) string) embedRetry {
	r := embedRetry{attempts: 4, base: time.Second, timeout: llmenv.DefaultTimeout}
	env, _ := llmenv.Read(getenv)
	if env.Attempts > 0 {
		r.attempts = env.Attempts
	}
	if env.Backoff > 0 {
		r.base = env.Backoff
	}
	if env.Timeout > 0 {
		r.timeout = env.Timeout
	}
	return r
}

// wait is the pause before retry n (1-based): exponential, with jitter
// over its upper half, at least the server's Retry-After (up to a minute).
func (r embedRetry) wait(n int, retryAfter time.Duration) time.Duration {
	d := r.base << (n - 1)
	if d > embedMaxWait || d <= 0 {
		d = max(r.base, embedMaxWait)
	}
	d = d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
	if retryAfter > d {
		d = min(retryAfter, embedMaxRetryAfter)
	}
	return d
}

// embedCall records, for one call of the embedder, what ended it.
type embedCall struct {
	mu  sync.Mutex
	err error
}

type embedCallKey struct{}

// fail records err as what ended the call of req (the first one wins) and
// returns it.
func fail(req *http.Request, err error) error {
	if c, ok := req.Context().Value(embedCallKey{}).(*embedCall); ok {
		c.mu.Lock()
		if c.err == nil {
			c.err = err
		}
		c.mu.Unlock()
	}
	return err
}

// embedClient is the Embedder NewEmbedder returns: langchaingo's, with the
// transport's account of a failure returned as it is.
type embedClient struct{ e Embedder }

func (c embedClient) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	call := &embedCall{}
	vs, err := c.e.EmbedDocuments(context.WithValue(ctx, embedCallKey{}, call), texts)
	return vs, call.explain(ctx, err)
}

func (c embedClient) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	call := &embedCall{}
	v, err := c.e.EmbedQuery(context.WithValue(ctx, embedCallKey{}, call), text)
	return v, call.explain(ctx, err)
}

// explain returns the error of a call: the caller's cancellation, else what
// the transport found, else the client's own error.
func (c *embedCall) explain(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	return err
}

// embedTransport makes the embeddings requests (see above).
type embedTransport struct {
	next  http.RoundTripper
	retry embedRetry
}

// maxEmbedReply bounds an embeddings reply read into memory.
const maxEmbedReply = 512 << 20

func (t embedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	where := req.URL.Scheme + "://" + req.URL.Host + req.URL.Path
	attempts := t.retry.attempts
	if req.GetBody == nil && req.Body != nil && req.Body != http.NoBody {
		attempts = 1 // the body cannot be sent again
	}
	for n := 1; ; n++ {
		resp, body, err := t.attempt(req, n)
		if cerr := req.Context().Err(); cerr != nil {
			return nil, cerr
		}
		var why string
		var retryAfter time.Duration
		switch {
		case err != nil && errors.Is(err, context.DeadlineExceeded):
			// A server that took the request and never answered would most
			// likely hang again: one timeout, not one per attempt, before the
			// embedder falls back to BM25 (a 429 or 5xx is retried).
			return nil, fail(req, fmt.Errorf("the embeddings server at %s failed: no answer within %s ($LPPCTL_LLM_TIMEOUT); a request that times out is not retried", where, t.retry.timeout))
		case err != nil:
			why = "a connection error (" + err.Error() + ")"
		case resp.StatusCode == http.StatusOK:
			fixed, problem := checkEmbeddingReply(req, body)
			if problem != "" {
				return nil, fail(req, errors.New("the embeddings server's reply "+problem))
			}
			resp.Body = io.NopCloser(bytes.NewReader(fixed))
			resp.ContentLength = int64(len(fixed))
			resp.Header.Del("Content-Length")
			resp.Header.Del("Content-Encoding")
			return resp, nil
		case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
			why = fmt.Sprintf("HTTP %d%s: %s", resp.StatusCode, statusMeaning(resp.StatusCode), serverSays(body))
			retryAfter = llmenv.RetryAfter(resp.Header.Get("Retry-After"), time.Now())
		default:
			// Not worth a retry: the key, the model or the URL is wrong.
			return nil, fail(req, fmt.Errorf("the embeddings server at %s answered HTTP %d%s: %s", where, resp.StatusCode, statusMeaning(resp.StatusCode), serverSays(body)))
		}
		if n >= attempts {
			if attempts == 1 {
				return nil, fail(req, fmt.Errorf("the embeddings server at %s failed: %s", where, why))
			}
			return nil, fail(req, fmt.Errorf("the embeddings server at %s failed %d attempts, the last with %s", where, attempts, why))
		}
		timer := time.NewTimer(t.retry.wait(n, retryAfter))
		select {
		case <-req.Context().Done():
			timer.Stop()
			return nil, req.Context().Err()
		case <-timer.C:
		}
	}
}

// attempt sends req once (n: its attempt number) within the retry's
// deadline, and reads the whole reply within it.
func (t embedTransport) attempt(req *http.Request, n int) (*http.Response, []byte, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.retry.timeout)
	defer cancel()
	r := req.Clone(ctx)
	if n > 1 && req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			return nil, nil, err
		}
		r.Body = b
	}
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxEmbedReply))
	if err != nil {
		return nil, nil, err
	}
	return resp, body, nil
}

// statusMeaning names what an HTTP error status usually means.
func statusMeaning(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return " (rate limited)"
	case status >= 500:
		return " (server error)"
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return " (check the API key)"
	case status == http.StatusNotFound:
		return " (check the model name and the base URL)"
	}
	return ""
}

// serverSays is the message of an error reply: {"error": {"message"}}
// (OpenAI), {"error": "..."} (Ollama), {"message"} or {"detail"}, else the
// start of the text.
func serverSays(body []byte) string {
	b := bytes.TrimSpace(body)
	var obj map[string]any
	if json.Unmarshal(b, &obj) == nil {
		for _, k := range []string{"error", "message", "detail"} {
			switch v := obj[k].(type) {
			case map[string]any:
				if msg, ok := v["message"].(string); ok && msg != "" {
					return llmenv.Said(msg)
				}
			case string:
				if v != "" {
					return llmenv.Said(v)
				}
			}
		}
	}
	if len(b) == 0 {
		return "(no message)"
	}
	return llmenv.Said(string(b))
}

// checkEmbeddingReply checks the 200 reply body of req: an OpenAI-style
// reply ("data", each item with the index of its input) comes back with
// its items in index order, an Ollama reply ("embeddings") as it is; a
// problem (worded to follow "the embeddings server's reply ") when it does
// not hold one vector per text, or the indexes are not 0..n-1 once each.
// A body that is not a JSON object (a proxy's login page), or holds no list
// of vectors, is a problem too: langchaingo would say "invalid character
// '<'" or "empty response".
func checkEmbeddingReply(req *http.Request, body []byte) ([]byte, string) {
	want := inputCount(req)
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil || top == nil {
		return nil, fmt.Sprintf("is not a JSON object: %s", begins(body))
	}
	field := "data"
	if strings.HasSuffix(req.URL.Path, "/api/embed") {
		field = "embeddings"
	}
	var items []json.RawMessage
	if raw, ok := top[field]; !ok || json.Unmarshal(raw, &items) != nil || items == nil {
		return nil, fmt.Sprintf("has no %q list of vectors: %s", field, begins(body))
	}
	if field == "data" {
		return orderEmbeddingData(top, items, body, want)
	}
	if want >= 0 && len(items) != want {
		return nil, holds(len(items), want)
	}
	return body, ""
}

// begins quotes the start of a reply.
func begins(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	if s == "" {
		return "it is empty"
	}
	if len(s) > 80 {
		s = s[:80]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		return fmt.Sprintf("it begins %q…", s)
	}
	return fmt.Sprintf("it is %q", s)
}

func holds(got, want int) string {
	texts := "texts"
	if want == 1 {
		texts = "text"
	}
	vectors := "vectors"
	if got == 1 {
		vectors = "vector"
	}
	return fmt.Sprintf("holds %d %s for %d %s", got, vectors, want, texts)
}

// inputCount is the number of texts the request asks vectors for, or -1.
func inputCount(req *http.Request) int {
	if req.GetBody == nil {
		return -1
	}
	rc, err := req.GetBody()
	if err != nil {
		return -1
	}
	defer rc.Close()
	var payload struct {
		Input json.RawMessage `json:"input"`
	}
	if json.NewDecoder(rc).Decode(&payload) != nil || payload.Input == nil {
		return -1
	}
	var texts []json.RawMessage
	if json.Unmarshal(payload.Input, &texts) == nil {
		return len(texts)
	}
	return 1
}

// orderEmbeddingData returns body with its "data" items sorted by their
// "index", or a problem when there are not want of them (-1: unknown) or
// the indexes are not a permutation of 0..n-1.
func orderEmbeddingData(top map[string]json.RawMessage, items []json.RawMessage, body []byte, want int) ([]byte, string) {
	if want >= 0 && len(items) != want {
		return nil, holds(len(items), want)
	}
	type item struct {
		Index *int `json:"index"`
	}
	idx := make([]int, len(items))
	seen := make([]bool, len(items))
	sorted := true
	for i, raw := range items {
		var it item
		if json.Unmarshal(raw, &it) != nil || it.Index == nil {
			return body, "" // no indexes: the order is all there is
		}
		n := *it.Index
		if n < 0 || n >= len(items) || seen[n] {
			return nil, fmt.Sprintf("gives vector %d of %d the index %d (each text's vector must come once, indexed 0 to %d)", i+1, len(items), n, len(items)-1)
		}
		seen[n] = true
		idx[i] = n
		sorted = sorted && n == i
	}
	if sorted {
		return body, ""
	}
	ordered := make([]json.RawMessage, len(items))
	for i, n := range idx {
		ordered[n] = items[i]
	}
	data, err := json.Marshal(ordered)
	if err != nil {
		return body, ""
	}
	top["data"] = data
	out, err := json.Marshal(top)
	if err != nil {
		return body, ""
	}
	return out, ""
}

// checkVector refuses a vector no cosine can be taken of: empty, all zeros,
// or holding a NaN or an infinity.
func checkVector(v []float32) string {
	if len(v) == 0 {
		return "is empty"
	}
	if slices.IndexFunc(v, func(x float32) bool { return x != x || x > maxFloat32 || x < -maxFloat32 }) >= 0 {
		return "holds a number that is not finite"
	}
	if !slices.ContainsFunc(v, func(x float32) bool { return x != 0 }) {
		return "is all zeros (" + strconv.Itoa(len(v)) + " dimensions)"
	}
	return ""
}

const maxFloat32 = 3.4028234663852886e38
