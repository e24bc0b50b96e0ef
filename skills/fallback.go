package skills

import (
	"context"
	"errors"
)

// embeddingError is a failure of the embeddings path of a search (the
// provider, the vector cache), as opposed to the library's own errors.
type embeddingError struct{ err error }

func (e *embeddingError) Error() string { return e.err.Error() }
func (e *embeddingError) Unwrap() error { return e.err }

// WithFallback calls warn when a search ranks with BM25 because the
// embedder failed. It is called once per Library: after the first failure
// the library ranks lexically without asking the embedder again, so an
// outage costs one failed request, not one per search.
func WithFallback(warn func(err error)) Option {
	return func(l *Library) { l.warnFallback = warn }
}

// EmbeddingsDown returns the embedder's failure that made this Library rank
// lexically, or nil while it ranks with embeddings (or has no embedder).
func (l *Library) EmbeddingsDown() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.down
}

// Ranker names the ranking SearchHits uses now: "bm25", or "embeddings
// MODEL" (the model as given to WithEmbedder).
func (l *Library) Ranker() string {
	if l.embedder == nil || l.EmbeddingsDown() != nil {
		return "bm25"
	}
	return "embeddings " + l.model
}

// rankForSearch ranks with embeddings when the library has a working
// embedder (semantic true), else with BM25; an embedder that fails is
// marked down and the search is ranked with BM25. A cancelled context is
// an error, not a fallback.
func (l *Library) rankForSearch(ctx context.Context, query string, topK int) (hits []Hit, semantic bool, err error) {
	if l.embedder != nil && l.EmbeddingsDown() == nil {
		hits, err := l.rank(ctx, query, topK, true)
		var ee *embeddingError
		if err == nil || !errors.As(err, &ee) || ctx.Err() != nil {
			return hits, err == nil, err
		}
		l.mu.Lock()
		first := l.down == nil
		if first {
			l.down = err
		}
		l.mu.Unlock()
		if first && l.warnFallback != nil {
			l.warnFallback(err)
		}
	}
	hits, err = l.rank(ctx, query, topK, false)
	return hits, false, err
}
