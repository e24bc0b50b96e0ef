package skills

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Hit is a search result: a skill and its relevance score (BM25 score with
// the lexical ranker, cosine similarity with embeddings).
type Hit struct {
	Skill
	Score float64 `json:"score"`
}

// SkillsOf returns the skills of hits, in order.
func SkillsOf(hits []Hit) []Skill {
	out := make([]Skill, len(hits))
	for i, h := range hits {
		out[i] = h.Skill
	}
	return out
}

// Search returns at most topK skills relevant to query, best first, and
// records the use of each (usage_count+1, last_used_iteration = the current
// iteration). See SearchHits.
func (l *Library) Search(ctx context.Context, query string, topK int) ([]Skill, error) {
	hits, err := l.SearchHits(ctx, query, topK)
	return SkillsOf(hits), err
}

// SearchHits is Search with scores, and the one ranking every consumer of
// the library uses: the agent's prompts (planner and optimizer), `lppctl
// skills search` and the MCP server's search_skills. With an embedder it
// returns the topK skills nearest to the query by cosine similarity, always
// (as a FAISS inner-product search does), whatever their score; without
// one it ranks with BM25 and leaves out the skills that score 0 (no word in
// common with the query), so it may return fewer than topK hits, or none.
// When the embedder fails (the provider is down, the cache cannot be
// written...) it ranks with BM25 instead, reports the failure once to the
// function given by WithFallback, and asks the embedder nothing more for
// the Library's lifetime. It records the use of the hits only; the
// returned skills carry their updated counters.
func (l *Library) SearchHits(ctx context.Context, query string, topK int) ([]Hit, error) {
	hits, semantic, err := l.rankForSearch(ctx, query, topK)
	if err != nil {
		return nil, err
	}
	if !semantic {
		hits = hits[:relevant(hits)]
	}
	if len(hits) == 0 {
		return nil, nil
	}
	if err := l.recordUse(hits); err != nil {
		return nil, fmt.Errorf("cannot record skill usage: %w", err)
	}
	return hits, nil
}

// relevant returns the number of leading hits (best first) that score above 0.
func relevant(hits []Hit) int {
	for i, h := range hits {
		if h.Score <= 0 {
			return i
		}
	}
	return len(hits)
}

// Rank returns the topK skills most relevant to query, best first, without
// recording their use. topK is capped at the library's size, so an empty
// library gives no hits and no error. Every skill is ranked, so the result
// holds min(topK, size) skills even when some score 0 (lexical ranking puts
// those last, by name; SearchHits leaves them out). Ties are broken by name.
// Unlike SearchHits, Rank does not fall back: an embedder's failure is its
// error.
func (l *Library) Rank(ctx context.Context, query string, topK int) ([]Hit, error) {
	return l.rank(ctx, query, topK, l.embedder != nil)
}

// rank is Rank with embeddings (semantic) or BM25. The error of the
// embeddings path is an *embeddingError.
func (l *Library) rank(ctx context.Context, query string, topK int, semantic bool) ([]Hit, error) {
	if topK < 1 {
		return nil, fmt.Errorf("cannot search skills: top_k must be at least 1, got %d: %w", topK, ErrInvalid)
	}
	if strings.TrimSpace(query) == "" {
		return nil, fmt.Errorf("cannot search skills: query is empty: %w", ErrInvalid)
	}
	snap, err := l.load()
	if err != nil {
		return nil, err
	}
	if len(snap.list) == 0 {
		return nil, nil
	}
	topK = min(topK, len(snap.list))
	var scores []float64
	if semantic {
		scores, err = l.embeddingScores(ctx, snap, norm.NFC.String(query))
		if err != nil {
			return nil, &embeddingError{err: fmt.Errorf("cannot search skills: %w", err)}
		}
	} else {
		scores = snap.lexIndex().scores(query)
	}
	return topHits(snap.list, scores, topK), nil
}

// topHits picks the k best scores (ties by name, which is list order).
func topHits(list []Skill, scores []float64, k int) []Hit {
	better := func(i, j int) bool { // i ranks before j
		if scores[i] != scores[j] {
			return scores[i] > scores[j]
		}
		return i < j
	}
	var idx []int
	if k > 64 {
		idx = make([]int, len(list))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int {
			if better(a, b) {
				return -1
			}
			return 1
		})
		idx = idx[:k]
	} else {
		// Keep a sorted window of the k best: O(n·k) with tiny k beats a full sort.
		idx = make([]int, 0, k+1)
		for i := range list {
			if len(idx) == k && !better(i, idx[k-1]) {
				continue
			}
			pos := len(idx)
			for pos > 0 && better(i, idx[pos-1]) {
				pos--
			}
			idx = slices.Insert(idx, pos, i)
			if len(idx) > k {
				idx = idx[:k]
			}
		}
	}
	hits := make([]Hit, len(idx))
	for n, i := range idx {
		hits[n] = Hit{Skill: list[i], Score: scores[i]}
	}
	return hits
}

// BM25 parameters.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// bm25Index is an inverted index over the skills of one snapshot. A skill's
// document is its name (counted twice: names are dense), principle and
// when_to_apply.
type bm25Index struct {
	postings map[string][]posting
	docLen   []float64
	avgLen   float64
}

type posting struct {
	doc int32
	tf  float32
}

func (s *snapshot) lexIndex() *bm25Index {
	s.ix.mu.Lock()
	defer s.ix.mu.Unlock()
	if s.ix.lex == nil {
		s.ix.lex = buildBM25(s.list)
	}
	return s.ix.lex
}

func buildBM25(list []Skill) *bm25Index {
	ix := &bm25Index{postings: map[string][]posting{}, docLen: make([]float64, len(list))}
	total := 0.0
	tf := map[string]int{}
	for d, s := range list {
		clear(tf)
		n := 0
		add := func(text string) {
			for _, t := range tokenize(text) {
				tf[t]++
				n++
			}
		}
		add(s.Name)
		add(s.Name)
		add(s.Principle)
		add(s.WhenToApply)
		for t, c := range tf {
			ix.postings[t] = append(ix.postings[t], posting{doc: int32(d), tf: float32(c)})
		}
		ix.docLen[d] = float64(n)
		total += float64(n)
	}
	if len(list) > 0 {
		ix.avgLen = total / float64(len(list))
	}
	return ix
}

// scores returns every document's BM25 score for query (Lucene's IDF, which
// is never negative).
func (ix *bm25Index) scores(query string) []float64 {
	scores := make([]float64, len(ix.docLen))
	if ix.avgLen == 0 {
		return scores
	}
	n := float64(len(ix.docLen))
	seen := map[string]bool{}
	for _, t := range tokenize(query) {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			f := float64(p.tf)
			norm := bm25K1 * (1 - bm25B + bm25B*ix.docLen[p.doc]/ix.avgLen)
			scores[p.doc] += idf * f * (bm25K1 + 1) / (f + norm)
		}
	}
	return scores
}

// stopwords are dropped by tokenize.
var stopwords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true,
	"by": true, "for": true, "from": true, "in": true, "into": true, "is": true, "it": true,
	"of": true, "on": true, "or": true, "that": true, "the": true, "this": true, "to": true,
	"was": true, "when": true, "with": true, "before": true, "after": true, "its": true,
}

// tokenize lowercases text, splits it on anything but letters and digits
// (so snake_case and kebab-case names split into words), drops stopwords
// and strips a plural "s".
func tokenize(text string) []string {
	// In NFC, so that a letter typed with a combining accent is one letter
	// (a combining mark is no letter: "gre\u0301et" would be "gre" and "et").
	fields := strings.FieldsFunc(strings.ToLower(norm.NFC.String(text)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := fields[:0]
	for _, f := range fields {
		if stopwords[f] {
			continue
		}
		out = append(out, stem(f))
	}
	return out
}

func stem(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") &&
		!strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") {
		if strings.HasSuffix(w, "ies") && len(w) > 4 {
			return w[:len(w)-3] + "y"
		}
		return w[:len(w)-1]
	}
	return w
}
