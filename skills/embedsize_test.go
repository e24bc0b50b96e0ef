package skills

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sizedEmbedder is fakeVector cut or padded to a dimension count that a
// test changes, as a provider does when the model behind a name changes;
// it can fail from a given call of EmbedDocuments on.
type sizedEmbedder struct {
	mu        sync.Mutex
	docDims   int
	queryDims int
	calls     int // EmbedDocuments calls
	texts     int // texts embedded
	maxBatch  int
	failFrom  int // 0: never
}

func (e *sizedEmbedder) resize(v []float32, n int) []float32 {
	out := make([]float32, n)
	copy(out, v)
	out[0]++ // never all zeros
	return out
}

func (e *sizedEmbedder) EmbedDocuments(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls++
	if e.failFrom > 0 && e.calls >= e.failFrom {
		return nil, errors.New("503 from provider")
	}
	e.texts += len(texts)
	e.maxBatch = max(e.maxBatch, len(texts))
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = e.resize(fakeVector(t), e.docDims)
	}
	return out, nil
}

func (e *sizedEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.resize(fakeVector(text), e.queryDims), nil
}

func (e *sizedEmbedder) set(docDims, queryDims int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.docDims, e.queryDims, e.texts = docDims, queryDims, 0
}

func (e *sizedEmbedder) embedded() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.texts
}

// The cache is keyed by the model's name, but the model behind a name can
// change its vector size (another server, another version): the cached
// vectors of the old size are stale, embedded again, not a failure of
// every later search.
func TestVectorsOfAnotherSizeAreEmbeddedAgain(t *testing.T) {
	ctx := context.Background()
	path := libPath(t)
	e := &sizedEmbedder{}
	e.set(256, 256)
	mustAdd(t, mustOpen(t, path), corpus...)
	search := func() ([]Hit, []error) {
		var warnings []error
		lib := mustOpen(t, path, WithEmbedder(e, "same-name"), WithFallback(func(err error) { warnings = append(warnings, err) }))
		hits, err := lib.SearchHits(ctx, "connection timeout", 1)
		require.NoError(t, err)
		return hits, warnings
	}
	_, warnings := search()
	require.Empty(t, warnings)
	require.Equal(t, len(corpus), e.embedded())

	e.set(128, 128)
	hits, warnings := search()
	assert.Empty(t, warnings, "no fallback to BM25")
	assert.Equal(t, "retry_flaky_network_calls", hitNames(hits))
	assert.Equal(t, len(corpus), e.embedded(), "every stale vector is embedded again")
	data, err := os.ReadFile(path[:len(path)-len(".json")] + ".embeddings.bin")
	require.NoError(t, err)
	cached, err := decodeCache(data)
	require.NoError(t, err)
	for k, v := range cached {
		assert.Len(t, v, 128, "cached vector %s", k)
	}
	e.set(128, 128)
	_, warnings = search()
	assert.Empty(t, warnings)
	assert.Zero(t, e.embedded(), "the new vectors are cached")

	t.Run("a skill added after the change: the query tells which size is stale", func(t *testing.T) {
		e.set(64, 64)
		mustAdd(t, mustOpen(t, path), Skill{Name: "check_network_first", Principle: "Ping the server before a long download.", WhenToApply: "Before network work."})
		_, warnings := search()
		assert.Empty(t, warnings)
		assert.Equal(t, len(corpus)+1, e.embedded())
	})

	t.Run("a server whose query and skill vectors differ in size falls back to BM25", func(t *testing.T) {
		e.set(32, 48)
		hits, warnings := search()
		require.Len(t, warnings, 1)
		assert.Equal(t, `cannot search skills: cannot embed skills: the embedding of "check_network_first" has 32 dimensions, the query's has 48`, warnings[0].Error())
		assert.Empty(t, hits, "BM25: no skill shares a word with the query")
	})
}

// A large library is embedded in calls of at most embedBatchSize texts,
// each with its own deadline, and what the calls that succeeded returned is
// cached: an outage halfway costs the rest only, not everything again.
func TestALargeLibraryIsEmbeddedInBatchesThatAreKept(t *testing.T) {
	ctx := context.Background()
	path := libPath(t)
	n := 2*embedBatchSize + 10
	lib := mustOpen(t, path)
	for i := range n {
		mustAdd(t, lib, Skill{Name: fmt.Sprintf("skill_%04d", i), Principle: fmt.Sprintf("principle %d", i), WhenToApply: "always"})
	}
	e := &sizedEmbedder{failFrom: 2}
	e.set(64, 64)
	var warnings []error
	down := mustOpen(t, path, WithEmbedder(e, "m"), WithFallback(func(err error) { warnings = append(warnings, err) }))
	_, err := down.SearchHits(ctx, "principle 7", 1)
	require.NoError(t, err)
	require.Len(t, warnings, 1)
	assert.Equal(t, "cannot search skills: cannot embed skills: 503 from provider", warnings[0].Error())
	assert.Equal(t, embedBatchSize, e.embedded(), "the first call's vectors")

	e.failFrom = 0
	e.set(64, 64)
	e.maxBatch = 0
	up := mustOpen(t, path, WithEmbedder(e, "m"), WithFallback(func(err error) { t.Errorf("fallback: %v", err) }))
	hits, err := up.SearchHits(ctx, "principle 7", 1)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Equal(t, n-embedBatchSize, e.embedded(), "only the skills the failed run did not embed")
	assert.Equal(t, embedBatchSize, e.maxBatch)
}
