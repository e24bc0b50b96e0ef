package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
)

var corpus = []Skill{
	{Name: "read_csv_with_explicit_encoding", Principle: "Pass the encoding explicitly when reading CSV files; the default breaks on accents.", WhenToApply: "A CSV file fails to parse or shows garbled characters."},
	{Name: "retry_flaky_network_calls", Principle: "Retry transient HTTP errors with exponential backoff.", WhenToApply: "A network call fails with 429 or 5xx."},
	{Name: "summarize_large_files", Principle: "Read large files in chunks and summarise each chunk.", WhenToApply: "A file is too large to read at once."},
	{Name: "verify_output_paths", Principle: "Check that every output file exists before reporting success.", WhenToApply: "At the end of a step that writes files."},
}

// fakeEmbedder embeds text as a bag of hashed words, mapping synonyms to
// one word, and counts its calls.
type fakeEmbedder struct {
	mu         sync.Mutex
	docCalls   int
	docTexts   int
	queryCalls int
	fail       error
}

var synonyms = map[string]string{"connection": "network", "timeout": "network", "outage": "network"}

func fakeVector(text string) []float32 {
	v := make([]float32, 256)
	for _, tok := range tokenize(text) {
		if s, ok := synonyms[tok]; ok {
			tok = s
		}
		h := fnv.New32a()
		h.Write([]byte(tok))
		v[h.Sum32()%256]++
	}
	return v
}

func (f *fakeEmbedder) EmbedDocuments(_ context.Context, texts []string) ([][]float32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return nil, f.fail
	}
	f.docCalls++
	f.docTexts += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = fakeVector(t)
	}
	return out, nil
}

func (f *fakeEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queryCalls++
	return fakeVector(text), nil
}

func (f *fakeEmbedder) texts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.docTexts
}

func hitNames(hits []Hit) string { return names(SkillsOf(hits)) }

func TestRankOrdering(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		embedder Embedder
		query    string
		k        int
		want     string
	}{
		{"lexical matches words", nil, "garbled characters in a csv", 2,
			"read_csv_with_explicit_encoding,retry_flaky_network_calls"},
		{"lexical puts non-matching skills last by name", nil, "exponential backoff", 3,
			"retry_flaky_network_calls,read_csv_with_explicit_encoding,summarize_large_files"},
		{"lexical splits snake_case names", nil, "verify output paths", 1,
			"verify_output_paths"},
		{"lexical knows no synonyms", nil, "connection timeout", 1,
			"read_csv_with_explicit_encoding"},
		{"embeddings find synonyms", &fakeEmbedder{}, "connection timeout", 1,
			"retry_flaky_network_calls"},
		{"embeddings rank by similarity", &fakeEmbedder{}, "large file in chunks", 2,
			"summarize_large_files,verify_output_paths"},
		{"top_k capped at library size", nil, "file", 10,
			"summarize_large_files,verify_output_paths,read_csv_with_explicit_encoding,retry_flaky_network_calls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []Option
			if tt.embedder != nil {
				opts = append(opts, WithEmbedder(tt.embedder, "fake"))
			}
			lib := mustOpen(t, libPath(t), opts...)
			mustAdd(t, lib, corpus...)
			hits, err := lib.Rank(ctx, tt.query, tt.k)
			if err != nil {
				t.Fatal(err)
			}
			if got := hitNames(hits); got != tt.want {
				t.Errorf("Rank = %s\nwant   %s", got, tt.want)
			}
			for i := 1; i < len(hits); i++ {
				if hits[i].Score > hits[i-1].Score {
					t.Errorf("scores not descending: %v", hits)
				}
			}
		})
	}
}

func TestSearchRecordsUsage(t *testing.T) {
	path := libPath(t)
	lib := mustOpen(t, path, WithIteration(7))
	mustAdd(t, lib, corpus...)
	got, err := lib.Search(context.Background(), "network backoff", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "retry_flaky_network_calls" || got[0].UsageCount != 1 || got[0].LastUsedIteration != 7 {
		t.Fatalf("Search = %+v", got)
	}
	// Persisted: a fresh Library reads the counters back.
	s, err := mustOpen(t, path).Get("retry_flaky_network_calls")
	if err != nil || s.UsageCount != 1 || s.LastUsedIteration != 7 {
		t.Errorf("persisted skill = %+v, %v", s, err)
	}
	// Rank records nothing.
	if _, err := lib.Rank(context.Background(), "network backoff", 1); err != nil {
		t.Fatal(err)
	}
	if s, _ := lib.Get("retry_flaky_network_calls"); s.UsageCount != 1 {
		t.Errorf("Rank changed usage_count to %d", s.UsageCount)
	}
	// Without WithIteration the current iteration is the highest seen.
	lib2 := mustOpen(t, path)
	mustAdd(t, lib2, Skill{Name: "newer", Principle: "p", WhenToApply: "w", CreatedIteration: 9})
	got, _ = lib2.Search(context.Background(), "exponential", 1)
	if got[0].LastUsedIteration != 9 {
		t.Errorf("last_used_iteration = %d, want 9", got[0].LastUsedIteration)
	}
}

func TestSearchEdgeCases(t *testing.T) {
	ctx := context.Background()
	empty := mustOpen(t, libPath(t))
	hits, err := empty.Search(ctx, "anything", 5)
	if err != nil || len(hits) != 0 {
		t.Errorf("empty library: %v, %v", hits, err)
	}
	lib := mustOpen(t, libPath(t))
	mustAdd(t, lib, corpus...)
	tests := []struct {
		query string
		k     int
		want  string
	}{
		{"x", 0, "cannot search skills: top_k must be at least 1, got 0: invalid"},
		{"  ", 3, "cannot search skills: query is empty: invalid"},
	}
	for _, tt := range tests {
		_, err := lib.Search(ctx, tt.query, tt.k)
		if err == nil || err.Error() != tt.want || !errors.Is(err, ErrInvalid) {
			t.Errorf("Search(%q, %d) err = %v, want %s", tt.query, tt.k, err, tt.want)
		}
	}
}

func TestEmbeddingCacheAvoidsRecomputation(t *testing.T) {
	ctx := context.Background()
	path := libPath(t)
	fe := &fakeEmbedder{}
	lib := mustOpen(t, path, WithEmbedder(fe, "fake"))
	mustAdd(t, lib, corpus...)

	step := func(name string, do func(), wantTexts int) {
		t.Helper()
		before := fe.texts()
		do()
		if got := fe.texts() - before; got != wantTexts {
			t.Errorf("%s: embedded %d skill texts, want %d", name, got, wantTexts)
		}
	}
	search := func(l *Library) func() {
		return func() {
			if _, err := l.Search(ctx, "network", 2); err != nil {
				t.Fatal(err)
			}
		}
	}
	step("first search embeds every skill", search(lib), 4)
	step("second search (usage counts changed) embeds nothing", search(lib), 0)
	if _, err := os.Stat(lib.cachePath); err != nil {
		t.Fatalf("no cache file: %v", err)
	}
	fe2 := &fakeEmbedder{}
	lib2 := mustOpen(t, path, WithEmbedder(fe2, "fake"))
	before := fe2.texts()
	search(lib2)()
	if fe2.texts() != before {
		t.Errorf("a new Library did not reuse the cache file: embedded %d texts", fe2.texts())
	}
	step("changing one skill's text re-embeds that skill only", func() {
		if _, err := lib2.Update("verify_output_paths", Update{Principle: ptr("Check the outputs.")}); err != nil {
			t.Fatal(err)
		}
		search(lib)()
	}, 1)
	step("adding a skill embeds it only", func() {
		mustAdd(t, lib, Skill{Name: "new_one", Principle: "p", WhenToApply: "w"})
		search(lib)()
	}, 1)
	fe3 := &fakeEmbedder{}
	lib3 := mustOpen(t, path, WithEmbedder(fe3, "other-model"))
	search(lib3)()
	if fe3.texts() != 5 {
		t.Errorf("another model embedded %d texts, want 5", fe3.texts())
	}
}

// openAIServer is an OpenAI-compatible /v1/embeddings endpoint backed by fakeVector.
func openAIServer(t *testing.T, requests *int, model *string) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost || r.Header.Get("Authorization") != "Bearer test-key" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		*requests++
		*model = req.Model
		mu.Unlock()
		type datum struct {
			Object    string    `json:"object"`
			Embedding []float32 `json:"embedding"`
			Index     int       `json:"index"`
		}
		resp := struct {
			Object string  `json:"object"`
			Data   []datum `json:"data"`
			Model  string  `json:"model"`
		}{Object: "list", Model: req.Model}
		for i, in := range req.Input {
			resp.Data = append(resp.Data, datum{Object: "embedding", Embedding: fakeVector(in), Index: i})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestSearchThroughLangchaingoOpenAIClient(t *testing.T) {
	var requests int
	var model string
	srv := openAIServer(t, &requests, &model)
	env := map[string]string{"OPENAI_API_KEY": "test-key", "OPENAI_API_BASE": srv.URL + "/v1"}
	e, name, err := NewEmbedder("openai:test-embed", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if name != "openai:test-embed" {
		t.Errorf("model = %q", name)
	}
	lib := mustOpen(t, libPath(t), WithEmbedder(e, name))
	mustAdd(t, lib, corpus...)
	hits, err := lib.SearchHits(context.Background(), "connection outage", 1)
	if err != nil {
		t.Fatal(err)
	}
	if hitNames(hits) != "retry_flaky_network_calls" {
		t.Errorf("hits = %s", hitNames(hits))
	}
	if requests != 2 || model != "test-embed" { // one batch of documents, one query
		t.Errorf("server saw %d requests for model %q, want 2 for test-embed", requests, model)
	}
}

func TestNewEmbedder(t *testing.T) {
	tests := []struct {
		spec      string
		env       map[string]string
		wantModel string
		wantErr   string
	}{
		{spec: "", wantModel: ""},
		{spec: "none", wantModel: ""},
		{spec: "openai", env: map[string]string{"OPENAI_API_KEY": "k"}, wantModel: "openai:text-embedding-3-small"},
		{spec: "openai:m", env: map[string]string{"OPENAI_API_BASE": "http://127.0.0.1:1/v1"}, wantModel: "openai:m"},
		{spec: "ollama", wantModel: "ollama:nomic-embed-text"},
		{spec: "ollama:all-minilm", env: map[string]string{"OLLAMA_HOST": "127.0.0.1:11434"}, wantModel: "ollama:all-minilm"},
		{spec: "openai", wantErr: "cannot configure embeddings: OPENAI_API_KEY is not set: invalid"},
		{spec: "cohere", wantErr: `cannot configure embeddings: unknown provider "cohere" (want openai[:model], ollama[:model] or none): invalid`},
		{spec: "none:x", wantErr: `cannot configure embeddings: "none:x" takes no model: invalid`},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			e, model, err := NewEmbedder(tt.spec, func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !errors.Is(err, ErrInvalid) {
					t.Errorf("err = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil || model != tt.wantModel || (e == nil) != (tt.wantModel == "") {
				t.Errorf("NewEmbedder = %v, %q, %v", e, model, err)
			}
		})
	}
}

func TestBrokenEmbeddingCacheIsRecomputed(t *testing.T) {
	path := libPath(t)
	fe := &fakeEmbedder{}
	lib := mustOpen(t, path, WithEmbedder(fe, "fake"))
	mustAdd(t, lib, corpus...)
	if err := os.WriteFile(lib.cachePath, []byte("lppctl-embeddings-v1\ntrunc"), 0o644); err != nil {
		t.Fatal(err)
	}
	hits, err := lib.Rank(context.Background(), "connection timeout", 1)
	if err != nil || hitNames(hits) != "retry_flaky_network_calls" || fe.texts() != 4 {
		t.Errorf("Rank = %s, %v after embedding %d texts", hitNames(hits), err, fe.texts())
	}
	data, _ := os.ReadFile(lib.cachePath)
	if v, err := decodeCache(data); err != nil || len(v) != 4 {
		t.Errorf("rewritten cache holds %d vectors, %v", len(v), err)
	}
}

func TestSearchLeavesOutSkillsThatScoreZero(t *testing.T) {
	ctx := context.Background()
	path := libPath(t)
	lib := mustOpen(t, path)
	mustAdd(t, lib, corpus...)
	// Rank ranks everything; Search keeps only the skills sharing a word.
	if ranked, _ := lib.Rank(ctx, "exponential backoff", 3); hitNames(ranked) != "retry_flaky_network_calls,read_csv_with_explicit_encoding,summarize_large_files" {
		t.Errorf("Rank = %s", hitNames(ranked))
	}
	hits, err := lib.SearchHits(ctx, "exponential backoff", 3)
	if err != nil {
		t.Fatal(err)
	}
	if hitNames(hits) != "retry_flaky_network_calls" || hits[0].Score <= 0 || hits[0].UsageCount != 1 {
		t.Errorf("SearchHits = %+v", hits)
	}
	// Nothing relevant: no hits, no error, nothing recorded.
	got, err := lib.Search(ctx, "kubernetes", 5)
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("Search(unrelated) = %#v, %v", got, err)
	}
	list, _ := mustOpen(t, path).List()
	var uses []string
	for _, s := range list {
		uses = append(uses, fmt.Sprintf("%s=%d", s.Name, s.UsageCount))
	}
	want := "read_csv_with_explicit_encoding=0 retry_flaky_network_calls=1 summarize_large_files=0 verify_output_paths=0"
	if strings.Join(uses, " ") != want {
		t.Errorf("usage counts %s\nwant %s", strings.Join(uses, " "), want)
	}
}
