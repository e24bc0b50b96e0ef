package skills

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lppctl/lppctl/internal/llmenv"
)

// boundedEmbedder gives each call of an embedder its own deadline, so a
// provider that accepts the connection and never answers costs one
// timeout (then BM25, with the fallback's warning), not a hung run.
type boundedEmbedder struct {
	e       Embedder
	timeout time.Duration
}

// embedTimeout is the deadline of one embedding call: $LPPCTL_LLM_TIMEOUT,
// as for a model call, else llmenv.DefaultTimeout. A value that cannot be
// read is refused before a run starts (actions.CheckRetryEnv); here it
// keeps the default.
func embedTimeout(getenv func(string) string) time.Duration {
	if env, err := llmenv.Read(getenv); err == nil && env.Timeout > 0 {
		return env.Timeout
	}
	return llmenv.DefaultTimeout
}

func (b boundedEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	vs, err := b.e.EmbedDocuments(ctx, texts)
	return vs, b.explain(ctx, err)
}

func (b boundedEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	v, err := b.e.EmbedQuery(ctx, text)
	return v, b.explain(ctx, err)
}

// explain names the deadline when it is what ended the call (langchaingo
// words it "request timeout: API call exceeded deadline").
func (b boundedEmbedder) explain(ctx context.Context, err error) error {
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("no answer within %s ($LPPCTL_LLM_TIMEOUT): %w", b.timeout, err)
	}
	return err
}

// orderedEmbeddings is the HTTP transport of the OpenAI-compatible
// embedder. The API gives each vector the index of its input; langchaingo
// takes the vectors in the order they come, so a server that answers out of
// order (batching servers may) would give one skill another's vector, a
// wrong ranking with no error. The transport puts the data back in index
// order, and turns a reply whose indexes are not 0..n-1 once each into an
// error that says so.
type orderedEmbeddings struct{ next http.RoundTripper }

func (t orderedEmbeddings) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.HasSuffix(req.URL.Path, "/embeddings") {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	fixed, problem := orderEmbeddingData(body, inputCount(req))
	if problem == "" && len(fixed) == len(body) && (len(body) == 0 || &fixed[0] == &body[0]) {
		resp.Body = io.NopCloser(bytes.NewReader(body)) // untouched
		return resp, nil
	}
	if problem != "" {
		// langchaingo reports a non-200 reply with its error message.
		fixed, _ = json.Marshal(map[string]any{"error": map[string]string{"message": problem}})
		resp.StatusCode, resp.Status = http.StatusBadGateway, "502 Bad Gateway"
	}
	resp.Body = io.NopCloser(bytes.NewReader(fixed))
	resp.ContentLength = int64(len(fixed))
	resp.Header.Del("Content-Length")
	resp.Header.Del("Content-Encoding")
	return resp, nil
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
	if json.NewDecoder(rc).Decode(&payload) != nil {
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
// the indexes are not a permutation of 0..n-1. A body that is not such a
// JSON object is returned as it is, for the client's own error.
func orderEmbeddingData(body []byte, want int) ([]byte, string) {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return body, ""
	}
	var items []json.RawMessage
	if json.Unmarshal(top["data"], &items) != nil {
		return body, ""
	}
	if want >= 0 && len(items) != want {
		return nil, fmt.Sprintf("the server's 200 reply is unusable: it holds %d embeddings for %d inputs", len(items), want)
	}
	if len(items) == 0 {
		return body, ""
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
			return nil, fmt.Sprintf("the server's 200 reply is unusable: item %d of %d has index %d (each input's vector must come once, indexed 0 to %d)", i, len(items), n, len(items)-1)
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
