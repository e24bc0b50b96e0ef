package skills

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Run with: go test ./skills -run '^$' -bench 10k -benchtime 200x
// and, to include usage log compactions, -bench SearchLexical10k -benchtime 3000x

const benchSkills = 10_000

var benchQueries = []string{
	"retry flaky network request with backoff",
	"csv file encoding garbled characters",
	"verify output files exist before reporting",
	"large input split into chunks",
	"parse dates in reports",
}

// benchLibrary writes a library of n synthetic skills (a 3,000-word
// vocabulary with Zipf-like frequencies plus the query words) and returns its path.
func benchLibrary(b *testing.B, n int) string {
	b.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%c%c%d", 'a'+rune(i%26), 'a'+rune(i/26%26), i)
	}
	for _, q := range benchQueries {
		vocab = append(vocab, strings.Fields(q)...)
	}
	zipf := rand.NewZipf(r, 1.1, 1, uint64(len(vocab)-1))
	words := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = vocab[zipf.Uint64()]
		}
		return strings.Join(ws, " ")
	}
	m := make(map[string]Skill, n)
	for i := range n {
		name := fmt.Sprintf("%s_%s_%d", vocab[r.IntN(len(vocab))], vocab[r.IntN(len(vocab))], i)
		m[name] = Skill{Name: name, Principle: words(20), WhenToApply: words(10)}
	}
	data, err := encodeLibrary(m, nil)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "skills.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// benchEmbedder is a cheap deterministic 768-dimension embedder (the size of
// nomic-embed-text), so the benchmark measures ranking, not a provider.
type benchEmbedder struct{}

const benchDims = 768

func benchVector(text string) []float32 {
	v := make([]float32, benchDims)
	for _, tok := range strings.Fields(text) {
		h := fnv.New64a()
		h.Write([]byte(tok))
		x := h.Sum64()
		v[x%benchDims] += 1
		v[(x>>20)%benchDims] -= 0.5
	}
	return v
}

func (benchEmbedder) EmbedDocuments(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = benchVector(t)
	}
	return out, nil
}

func (benchEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	return benchVector(text), nil
}

func benchRank(b *testing.B, lib *Library) {
	ctx := context.Background()
	if _, err := lib.Rank(ctx, benchQueries[0], 5); err != nil { // build the index / fill the cache
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		hits, err := lib.Rank(ctx, benchQueries[i%len(benchQueries)], 5)
		if err != nil || len(hits) != 5 {
			b.Fatal(err, len(hits))
		}
	}
}

// BenchmarkRankLexical10k: BM25 ranking of 10,000 skills, index built.
func BenchmarkRankLexical10k(b *testing.B) {
	lib, err := Open(benchLibrary(b, benchSkills))
	if err != nil {
		b.Fatal(err)
	}
	benchRank(b, lib)
}

// BenchmarkRankEmbeddings10k: cosine ranking of 10,000 cached 768-d vectors.
func BenchmarkRankEmbeddings10k(b *testing.B) {
	lib, err := Open(benchLibrary(b, benchSkills), WithEmbedder(benchEmbedder{}, "bench"))
	if err != nil {
		b.Fatal(err)
	}
	benchRank(b, lib)
}

// BenchmarkBuildLexicalIndex10k: the one-off cost of the first lexical
// search after the file changed (parse not included).
func BenchmarkBuildLexicalIndex10k(b *testing.B) {
	lib, err := Open(benchLibrary(b, benchSkills))
	if err != nil {
		b.Fatal(err)
	}
	snap, _ := lib.load()
	for b.Loop() {
		buildBM25(snap.list)
	}
}

// BenchmarkLoadEmbeddingCache10k: the one-off cost of reading 10,000 cached
// vectors from disk in a fresh process.
func BenchmarkLoadEmbeddingCache10k(b *testing.B) {
	path := benchLibrary(b, benchSkills)
	lib, err := Open(path, WithEmbedder(benchEmbedder{}, "bench"))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := lib.Rank(context.Background(), "x", 1); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		fresh, _ := Open(path, WithEmbedder(benchEmbedder{}, "bench"))
		if _, err := fresh.loadVectors(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchLexical10k: Search, i.e. ranking plus persisting the usage
// counts: an fsynced append to the usage log, and every compactLines
// searches an atomic, fsynced rewrite of the 10,000-skill file (run it for
// at least 2,000 iterations to include compactions).
func BenchmarkSearchLexical10k(b *testing.B) {
	lib, err := Open(benchLibrary(b, benchSkills))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := lib.Rank(ctx, benchQueries[0], 5); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := lib.Search(ctx, benchQueries[i%len(benchQueries)], 5); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchLexicalSmall: Search on a library small enough (500
// skills, under directBytes) that each search rewrites the file atomically
// with the new counters instead of appending to the usage log.
func BenchmarkSearchLexicalSmall(b *testing.B) {
	path := benchLibrary(b, 500)
	if fi, err := os.Stat(path); err != nil || fi.Size() > directBytes {
		b.Fatalf("the library is not small: %v, %v", fi.Size(), err)
	}
	lib, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := lib.Search(ctx, benchQueries[i%len(benchQueries)], 5); err != nil {
			b.Fatal(err)
		}
	}
}
