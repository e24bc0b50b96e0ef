package skills

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/internal/embedtest"
)

// What a real embeddings server gets wrong: the ranking is the one of a
// server that answers right, or BM25 after one warning saying what was
// wrong; never a ranking built on misplaced or meaningless vectors.
func TestAnEmbeddingsServersMistakeNeverRanksSkillsWrong(t *testing.T) {
	tests := []struct {
		name     string
		mistake  embedtest.Mistake
		env      map[string]string
		warning  string // "" = no fallback
		requests int    // the requests the server gets (0: not checked)
	}{
		{
			name:    "vectors out of order are put back by their index",
			mistake: embedtest.Reversed,
		},
		{
			name:    "one vector short is refused",
			mistake: embedtest.OneShort,
			warning: "cannot search skills: cannot embed skills: the embeddings server's reply holds 3 vectors for 4 texts",
		},
		{
			name:    "indexes that are not 0..n-1 are refused",
			mistake: embedtest.SameIndex,
			warning: "cannot search skills: cannot embed skills: the embeddings server's reply gives vector 2 of 4 the index 0 (each text's vector must come once, indexed 0 to 3)",
		},
		{
			name:    "a proxy's page is refused",
			mistake: embedtest.Page,
			warning: `cannot search skills: cannot embed skills: the embeddings server's reply is not a JSON object: it begins "<html><head><title>Sign in</title></head><body>Sign in to continue.</body></html"…`,
		},
		{
			name:    "a reply without vectors is refused",
			mistake: embedtest.NoVectors,
			warning: `cannot search skills: cannot embed skills: the embeddings server's reply has no "data" list of vectors: it is "{\"object\":\"list\",\"model\":\"test-embed\"}"`,
		},
		{
			name:    "all-zero vectors are refused",
			mistake: embedtest.Zeros,
			warning: `cannot search skills: cannot embed skills: the embedding of "read_csv_with_explicit_encoding" is all zeros (64 dimensions)`,
		},
		{
			name:     "a server that never answers costs one timeout",
			mistake:  embedtest.NoAnswer,
			env:      map[string]string{"LPPCTL_LLM_TIMEOUT": "200ms", "LPPCTL_LLM_RETRIES": "2", "LPPCTL_LLM_BACKOFF": "1ms"},
			warning:  "cannot search skills: cannot embed skills: the embeddings server at SERVER/v1/embeddings failed: no answer within 200ms ($LPPCTL_LLM_TIMEOUT); a request that times out is not retried",
			requests: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := embedtest.NewServer(t)
			srv.SetMistake(tt.mistake)
			env := map[string]string{"OPENAI_API_BASE": srv.URL + "/v1"}
			for k, v := range tt.env {
				env[k] = v
			}
			e, model, err := NewEmbedder("openai:test-embed", func(k string) string { return env[k] })
			require.NoError(t, err)
			var warnings []string
			lib := mustOpen(t, libPath(t), WithEmbedder(e, model), WithFallback(func(err error) { warnings = append(warnings, err.Error()) }))
			mustAdd(t, lib, corpus...)

			start := time.Now()
			got, err := lib.SearchHits(context.Background(), "exponential backoff", 3)
			require.NoError(t, err)
			require.Less(t, time.Since(start), time.Minute, "bounded by the timeout")

			search := func(opts ...Option) []Hit {
				other := mustOpen(t, libPath(t), opts...)
				mustAdd(t, other, corpus...)
				hits, err := other.SearchHits(context.Background(), "exponential backoff", 3)
				require.NoError(t, err)
				return hits
			}
			right := search(WithEmbedder(openAIEmbedder(t, embedtest.NewServer(t))))
			if tt.warning == "" {
				assert.Empty(t, warnings)
				assert.Equal(t, hitNames(right), hitNames(got), "the same ranking as a server without the mistake")
				return
			}
			require.Equal(t, []string{strings.ReplaceAll(tt.warning, "SERVER", srv.URL)}, warnings)
			if tt.requests > 0 {
				assert.Equal(t, tt.requests, srv.Requests(), "requests made")
			}
			assert.Equal(t, hitNames(search()), hitNames(got), "BM25's ranking")
		})
	}
}
