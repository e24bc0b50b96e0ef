package skills

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/internal/embedtest"
)

// embedderFor returns the embedder of provider ("openai" or "ollama")
// served by srv, with env added to its environment.
func embedderFor(t *testing.T, provider string, srv *embedtest.Server, env map[string]string) (Embedder, string) {
	t.Helper()
	all := map[string]string{"OPENAI_API_BASE": srv.URL + "/v1", "OLLAMA_HOST": srv.URL}
	for k, v := range env {
		all[k] = v
	}
	e, model, err := NewEmbedder(provider+":test-embed", func(k string) string { return all[k] })
	require.NoError(t, err)
	return e, model
}

// A 429 or a 5xx of the embeddings server is retried as a model call is
// ($LPPCTL_LLM_RETRIES, _BACKOFF, the server's Retry-After), in either
// wire format; only when the attempts run out does the search fall back to
// BM25, with one warning saying plainly what failed.
func TestTransientEmbeddingsFailuresAreRetried(t *testing.T) {
	tests := []struct {
		name     string
		fail     int // requests failing
		status   int
		after    string // Retry-After
		retries  string
		requests int           // requests the first search makes
		waited   time.Duration // at least
		warning  string        // "" = ranked with embeddings
	}{
		{name: "a 429 is retried after its Retry-After", fail: 1, status: http.StatusTooManyRequests, after: "1", requests: 3, waited: time.Second},
		{name: "two 503s are retried", fail: 2, status: http.StatusServiceUnavailable, requests: 4},
		{name: "a 500 past the attempts falls back", fail: 9, status: http.StatusInternalServerError, retries: "3", requests: 3,
			warning: "cannot search skills: cannot embed skills: the embeddings server at SERVER failed 3 attempts, the last with HTTP 500 (server error): try again later"},
		{name: "one attempt only: no retry", fail: 1, status: http.StatusBadGateway, retries: "1", requests: 1,
			warning: "cannot search skills: cannot embed skills: the embeddings server at SERVER failed: HTTP 502 (server error): try again later"},
		{name: "a 401 is not retried", fail: 9, status: http.StatusUnauthorized, requests: 1,
			warning: "cannot search skills: cannot embed skills: the embeddings server at SERVER answered HTTP 401 (check the API key): try again later"},
	}
	for _, provider := range []string{"openai", "ollama"} {
		for _, tt := range tests {
			t.Run(provider+"/"+tt.name, func(t *testing.T) {
				srv := embedtest.NewServer(t)
				env := map[string]string{"LPPCTL_LLM_BACKOFF": "1ms", "LPPCTL_LLM_RETRIES": tt.retries}
				e, model := embedderFor(t, provider, srv, env)
				var warnings []string
				lib := mustOpen(t, libPath(t), WithEmbedder(e, model), WithFallback(func(err error) { warnings = append(warnings, err.Error()) }))
				mustAdd(t, lib, corpus...)
				skillRequests := 1 // one batch
				if provider == "ollama" {
					skillRequests = len(corpus) // one request a text
				}
				srv.FailNext(tt.fail, tt.status, tt.after)

				start := time.Now()
				hits, err := lib.SearchHits(context.Background(), "exponential backoff", 3)
				require.NoError(t, err)
				assert.GreaterOrEqual(t, time.Since(start), tt.waited)
				if tt.warning == "" {
					assert.Empty(t, warnings)
					assert.Equal(t, tt.requests+skillRequests-1, srv.Requests(), "the failed requests again, then the rest")
					right, _ := embedderFor(t, provider, embedtest.NewServer(t), nil)
					other := mustOpen(t, libPath(t), WithEmbedder(right, model))
					mustAdd(t, other, corpus...)
					want, err := other.SearchHits(context.Background(), "exponential backoff", 3)
					require.NoError(t, err)
					assert.Equal(t, hitNames(want), hitNames(hits), "the ranking of a server that never failed")
					assert.Equal(t, "embeddings "+model, lib.Ranker())
					return
				}
				where := srv.URL + "/v1/embeddings"
				if provider == "ollama" {
					where = srv.URL + "/api/embed"
				}
				assert.Equal(t, tt.requests, srv.Requests())
				require.Equal(t, []string{strings.ReplaceAll(tt.warning, "SERVER", where)}, warnings)
				assert.Equal(t, "bm25", lib.Ranker())
			})
		}
	}
}

// A search cancelled while it waits to retry is an error, not a fallback.
func TestACancelledSearchIsNotAFallbackWhileItWaitsToRetry(t *testing.T) {
	srv := embedtest.NewServer(t)
	e, model := embedderFor(t, "openai", srv, map[string]string{"LPPCTL_LLM_BACKOFF": "1ms"})
	warned := 0
	lib := mustOpen(t, libPath(t), WithEmbedder(e, model), WithFallback(func(error) { warned++ }))
	mustAdd(t, lib, corpus...)
	srv.FailNext(1, http.StatusTooManyRequests, "30")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := lib.SearchHits(ctx, "exponential backoff", 3)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 10*time.Second, "the wait ends with the context")
	assert.Zero(t, warned)
	assert.NoError(t, lib.EmbeddingsDown())
}

// Ollama's wire format ranks as OpenAI's does, and its server's mistakes
// fall back to BM25 saying what they are.
func TestOllamaEmbeddingsRankAsOpenAIsDo(t *testing.T) {
	rank := func(provider string, mistake embedtest.Mistake) (string, []string) {
		srv := embedtest.NewServer(t)
		srv.SetMistake(mistake)
		e, model := embedderFor(t, provider, srv, nil)
		var warnings []string
		lib := mustOpen(t, libPath(t), WithEmbedder(e, model), WithFallback(func(err error) { warnings = append(warnings, err.Error()) }))
		mustAdd(t, lib, corpus...)
		hits, err := lib.SearchHits(context.Background(), "the connection keeps timing out", 3)
		require.NoError(t, err)
		return hitNames(hits), warnings
	}
	openai, warnings := rank("openai", embedtest.NoMistake)
	require.Empty(t, warnings)
	ollama, warnings := rank("ollama", embedtest.NoMistake)
	require.Empty(t, warnings)
	assert.Equal(t, openai, ollama)

	_, warnings = rank("ollama", embedtest.OneShort)
	assert.Equal(t, []string{"cannot search skills: cannot embed skills: the embeddings server's reply holds 0 vectors for 1 text"}, warnings)
	_, warnings = rank("ollama", embedtest.NoVectors)
	assert.Equal(t, []string{`cannot search skills: cannot embed skills: the embeddings server's reply has no "embeddings" list of vectors: it is "{\"object\":\"list\",\"model\":\"test-embed\"}"`}, warnings)
	_, warnings = rank("ollama", embedtest.Zeros)
	assert.Equal(t, []string{`cannot search skills: cannot embed skills: the embedding of "read_csv_with_explicit_encoding" is all zeros (64 dimensions)`}, warnings)
}

// A server that is not there is retried too, and named with the error.
func TestAnEmbeddingsServerThatIsNotThereIsRetriedThenNamed(t *testing.T) {
	srv := embedtest.NewServer(t)
	e, model := embedderFor(t, "openai", srv, map[string]string{"LPPCTL_LLM_BACKOFF": "1ms", "LPPCTL_LLM_RETRIES": "2"})
	var warnings []string
	lib := mustOpen(t, libPath(t), WithEmbedder(e, model), WithFallback(func(err error) { warnings = append(warnings, err.Error()) }))
	mustAdd(t, lib, corpus...)
	srv.Close()
	_, err := lib.SearchHits(context.Background(), "exponential backoff", 3)
	require.NoError(t, err)
	require.Len(t, warnings, 1)
	host := strings.TrimPrefix(srv.URL, "http://")
	assert.Equal(t, "cannot search skills: cannot embed skills: the embeddings server at "+srv.URL+"/v1/embeddings failed 2 attempts, the last with a connection error (dial tcp "+host+": connect: connection refused)", warnings[0])
}
