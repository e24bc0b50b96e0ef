package skills

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/internal/embedtest"
)

// The source system's own check: "I need to find a mug", k=1, over a
// "search" and a "heat" skill.
var mugSkills = []Skill{
	{Name: "heat_in_microwave", Principle: "Put the object in the microwave and turn it on until it is warm.", WhenToApply: "An object must be heated or warmed up."},
	{Name: "search_receptacles", Principle: "Look in every likely receptacle (cabinets, shelves, countertops) one by one until the object turns up.", WhenToApply: "You must locate an object whose place is unknown."},
}

// openAIEmbedder is the real langchaingo OpenAI embedder pointed at srv.
func openAIEmbedder(t *testing.T, srv *embedtest.Server) (Embedder, string) {
	t.Helper()
	env := map[string]string{"OPENAI_API_BASE": srv.URL + "/v1", "LPPCTL_LLM_BACKOFF": "1ms"}
	e, model, err := NewEmbedder("openai:test-embed", func(k string) string { return env[k] })
	require.NoError(t, err)
	return e, model
}

func TestSearchFindsTheMug(t *testing.T) {
	tests := []struct {
		name       string
		embeddings bool
		want       string
	}{
		{name: "BM25 shares no word with the query: nothing", embeddings: false, want: ""},
		{name: "embeddings return the nearest skill", embeddings: true, want: "search_receptacles"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []Option
			if tt.embeddings {
				e, model := openAIEmbedder(t, embedtest.NewServer(t))
				opts = append(opts, WithEmbedder(e, model))
			}
			lib := mustOpen(t, libPath(t), opts...)
			mustAdd(t, lib, mugSkills...)
			hits, err := lib.SearchHits(context.Background(), "I need to find a mug", 1)
			require.NoError(t, err)
			assert.Equal(t, tt.want, hitNames(hits))
		})
	}
}

func TestSearchWithEmbeddingsAlwaysReturnsTopK(t *testing.T) {
	e, model := openAIEmbedder(t, embedtest.NewServer(t))
	path := libPath(t)
	lib := mustOpen(t, path, WithEmbedder(e, model))
	mustAdd(t, lib, mugSkills...)
	// "kubernetes" is near neither skill: both come back all the same,
	// best first, which BM25 (no word in common) would not return.
	hits, err := lib.SearchHits(context.Background(), "kubernetes", 5)
	require.NoError(t, err)
	require.Len(t, hits, 2)
	assert.GreaterOrEqual(t, hits[0].Score, hits[1].Score)
	lex, err := mustOpen(t, path).Rank(context.Background(), "kubernetes", 5)
	require.NoError(t, err)
	assert.Zero(t, lex[0].Score, "BM25 scores it 0")
}

func TestSearchFallsBackToBM25WhenEmbeddingsFail(t *testing.T) {
	srv := embedtest.NewServer(t)
	srv.SetDown(true)
	e, model := openAIEmbedder(t, srv)
	var warnings []error
	lib := mustOpen(t, libPath(t), WithEmbedder(e, model), WithFallback(func(err error) { warnings = append(warnings, err) }))
	mustAdd(t, lib, corpus...)
	assert.Equal(t, "embeddings openai:test-embed", lib.Ranker())

	hits, err := lib.SearchHits(context.Background(), "exponential backoff", 3)
	require.NoError(t, err)
	assert.Equal(t, "retry_flaky_network_calls", hitNames(hits), "BM25 leaves out the skills scoring 0")
	asked := srv.Requests()
	require.Positive(t, asked)

	hits, err = lib.SearchHits(context.Background(), "chunks", 3)
	require.NoError(t, err)
	assert.Equal(t, "summarize_large_files", hitNames(hits))
	assert.Equal(t, asked, srv.Requests(), "the embedder is not asked again once it failed")
	require.Len(t, warnings, 1, "one warning")
	assert.Contains(t, warnings[0].Error(), "cannot search skills: cannot embed skills: ")
	assert.Contains(t, warnings[0].Error(), "embeddings are down")
	assert.Equal(t, "bm25", lib.Ranker())
	assert.ErrorIs(t, lib.EmbeddingsDown(), warnings[0])
}

func TestSearchDoesNotFallBackWhenCancelled(t *testing.T) {
	fe := &fakeEmbedder{fail: context.Canceled}
	warned := 0
	lib := mustOpen(t, libPath(t), WithEmbedder(fe, "fake"), WithFallback(func(error) { warned++ }))
	mustAdd(t, lib, corpus...)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := lib.SearchHits(ctx, "network", 1)
	assert.True(t, errors.Is(err, context.Canceled), "err = %v", err)
	assert.Zero(t, warned)
	assert.NoError(t, lib.EmbeddingsDown())
}

func TestRankReportsTheEmbeddersFailure(t *testing.T) {
	fe := &fakeEmbedder{fail: errors.New("503 from provider")}
	lib := mustOpen(t, libPath(t), WithEmbedder(fe, "fake"))
	mustAdd(t, lib, corpus...)
	_, err := lib.Rank(context.Background(), "x", 1)
	require.EqualError(t, err, "cannot search skills: cannot embed skills: 503 from provider")
}
