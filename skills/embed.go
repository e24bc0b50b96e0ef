package skills

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/httputil"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
)

// Embedder turns texts into vectors. It matches langchaingo's
// embeddings.Embedder, so any langchaingo embedder fits.
type Embedder interface {
	EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error)
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

var _ Embedder = (embeddings.Embedder)(nil)

// Default embedding models.
const (
	DefaultOpenAIEmbeddingModel = "text-embedding-3-small"
	DefaultOllamaEmbeddingModel = "nomic-embed-text"
)

// NewEmbedder builds the embedder named by spec: "none" or "" (nil: lexical
// ranking), "openai[:model]" (an OpenAI-compatible /embeddings endpoint;
// OPENAI_API_KEY, base URL from OPENAI_API_BASE or OPENAI_BASE_URL) or
// "ollama[:model]" (OLLAMA_HOST). getenv looks up the environment
// (os.Getenv when nil). It returns the embedder and the model name.
func NewEmbedder(spec string, getenv func(string) string) (Embedder, string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	kind, model, _ := strings.Cut(strings.TrimSpace(spec), ":")
	switch kind {
	case "", "none":
		if model != "" {
			return nil, "", fmt.Errorf("cannot configure embeddings: %q takes no model: %w", spec, ErrInvalid)
		}
		return nil, "", nil
	case "openai":
		if model == "" {
			model = DefaultOpenAIEmbeddingModel
		}
		base := firstNonEmpty(getenv("OPENAI_API_BASE"), getenv("OPENAI_BASE_URL"))
		token := getenv("OPENAI_API_KEY")
		if token == "" {
			if base == "" {
				return nil, "", fmt.Errorf("cannot configure embeddings: OPENAI_API_KEY is not set: %w", ErrInvalid)
			}
			token = "unused" // local OpenAI-compatible servers often need none
		}
		hc := &http.Client{Transport: orderedEmbeddings{next: httputil.DefaultTransport}}
		opts := []openai.Option{openai.WithToken(token), openai.WithEmbeddingModel(model), openai.WithHTTPClient(hc)}
		if base != "" {
			opts = append(opts, openai.WithBaseURL(base))
		}
		llm, err := openai.New(opts...)
		if err != nil {
			return nil, "", fmt.Errorf("cannot configure embeddings: %w", err)
		}
		e, err := embeddings.NewEmbedder(llm)
		if err != nil {
			return nil, "", fmt.Errorf("cannot configure embeddings: %w", err)
		}
		return boundedEmbedder{e: e, timeout: embedTimeout(getenv)}, "openai:" + model, nil
	case "ollama":
		if model == "" {
			model = DefaultOllamaEmbeddingModel
		}
		opts := []ollama.Option{ollama.WithModel(model)}
		if host := getenv("OLLAMA_HOST"); host != "" {
			if !strings.Contains(host, "://") {
				host = "http://" + host
			}
			if _, err := url.Parse(host); err != nil {
				return nil, "", fmt.Errorf("cannot configure embeddings: OLLAMA_HOST: %w", err)
			}
			opts = append(opts, ollama.WithServerURL(host))
		}
		llm, err := ollama.New(opts...)
		if err != nil {
			return nil, "", fmt.Errorf("cannot configure embeddings: %w", err)
		}
		e, err := embeddings.NewEmbedder(llm)
		if err != nil {
			return nil, "", fmt.Errorf("cannot configure embeddings: %w", err)
		}
		return boundedEmbedder{e: e, timeout: embedTimeout(getenv)}, "ollama:" + model, nil
	default:
		return nil, "", fmt.Errorf("cannot configure embeddings: unknown provider %q (want openai[:model], ollama[:model] or none): %w", kind, ErrInvalid)
	}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// embedText is the text embedded for a skill.
func embedText(s Skill) string {
	return s.Name + ": " + s.Principle + "\nWhen to apply: " + s.WhenToApply
}

// embedKey identifies a skill's vector in the cache: a hash of the model and
// the embedded text, so a vector is recomputed only when either changes.
func embedKey(model string, s Skill) string {
	h := sha256.Sum256([]byte(model + "\x00" + embedText(s)))
	return hex.EncodeToString(h[:16])
}

// vectorCache is the in-memory copy of the embedding cache file.
type vectorCache struct {
	info    os.FileInfo
	vectors map[string][]float32 // embedKey → unit vector
}

// embIndex holds the unit vectors of one snapshot's skills, row-major.
type embIndex struct {
	model string
	dims  int
	data  []float32
}

// embeddingScores returns the cosine similarity of query to every skill.
func (l *Library) embeddingScores(ctx context.Context, snap *snapshot, query string) ([]float64, error) {
	ix, err := l.embIndexFor(ctx, snap)
	if err != nil {
		return nil, err
	}
	q, err := l.embedder.EmbedQuery(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("cannot embed query: %w", err)
	}
	if p := checkVector(q); p != "" {
		return nil, fmt.Errorf("cannot embed query: its embedding %s", p)
	}
	if len(q) != ix.dims {
		return nil, fmt.Errorf("query embedding has %d dimensions, skills have %d", len(q), ix.dims)
	}
	normalize(q)
	scores := make([]float64, len(snap.list))
	for i := range scores {
		scores[i] = float64(dot(ix.data[i*ix.dims:(i+1)*ix.dims], q))
	}
	return scores, nil
}

// embIndexFor returns the vectors of snap's skills, embedding only the
// skills whose text (or the model) changed since they were cached.
func (l *Library) embIndexFor(ctx context.Context, snap *snapshot) (*embIndex, error) {
	if _, ix := snap.indexes(); ix != nil && ix.model == l.model {
		return ix, nil
	}
	keys := make([]string, len(snap.list))
	for i, s := range snap.list {
		keys[i] = embedKey(l.model, s)
	}
	vectors, err := l.loadVectors()
	if err != nil {
		return nil, err
	}
	var missing []int
	for i, k := range keys {
		if _, ok := vectors[k]; !ok {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		texts := make([]string, len(missing))
		for n, i := range missing {
			texts[n] = embedText(snap.list[i])
		}
		vs, err := l.embedder.EmbedDocuments(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("cannot embed skills: %w", err)
		}
		if len(vs) != len(texts) {
			return nil, fmt.Errorf("cannot embed skills: got %d embeddings for %d texts", len(vs), len(texts))
		}
		fresh := make(map[string][]float32, len(missing))
		for n, i := range missing {
			v := vs[n]
			if p := checkVector(v); p != "" {
				return nil, fmt.Errorf("cannot embed skills: the embedding of %q %s", snap.list[i].Name, p)
			}
			normalize(v)
			fresh[keys[i]] = v
		}
		vectors, err = l.storeVectors(fresh, keys)
		if err != nil {
			return nil, fmt.Errorf("cannot save embedding cache: %w", err)
		}
	}
	dims := len(vectors[keys[0]])
	ix := &embIndex{model: l.model, dims: dims, data: make([]float32, 0, dims*len(keys))}
	for i, k := range keys {
		v := vectors[k]
		if len(v) != dims {
			return nil, fmt.Errorf("embedding of %q has %d dimensions, others have %d", snap.list[i].Name, len(v), dims)
		}
		ix.data = append(ix.data, v...)
	}
	snap.ix.mu.Lock()
	snap.ix.emb = ix
	snap.ix.mu.Unlock()
	return ix, nil
}

// loadVectors returns the cached vectors, rereading the cache file when it changed.
func (l *Library) loadVectors() (map[string][]float32, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.Open(l.cachePath)
	if errors.Is(err, fs.ErrNotExist) {
		if l.vec == nil {
			l.vec = &vectorCache{vectors: map[string][]float32{}}
		}
		return l.vec.vectors, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot load embedding cache: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot load embedding cache: %w", err)
	}
	if l.vec != nil && l.vec.info != nil && sameVersion(l.vec.info, fi) {
		return l.vec.vectors, nil
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("cannot load embedding cache: %w", err)
	}
	vectors, err := decodeCache(data)
	if err != nil {
		// A broken cache only costs recomputation.
		vectors = map[string][]float32{}
	}
	l.vec = &vectorCache{info: fi, vectors: vectors}
	return vectors, nil
}

// storeVectors merges fresh vectors into the cache file under the library
// lock, keeping only the keys in keep plus what other processes stored, and
// returns the merged set.
func (l *Library) storeVectors(fresh map[string][]float32, keep []string) (map[string][]float32, error) {
	var merged map[string][]float32
	err := l.withLock(func(*os.File) error {
		current, err := l.loadVectors()
		if err != nil {
			return err
		}
		wanted := make(map[string]bool, len(keep))
		for _, k := range keep {
			wanted[k] = true
		}
		merged = make(map[string][]float32, len(keep))
		for k, v := range current {
			if wanted[k] {
				merged[k] = v
			}
		}
		for k, v := range fresh {
			merged[k] = v
		}
		data, err := encodeCache(merged)
		if err != nil {
			return err
		}
		if err := writeFileAtomic(l.cachePath, data, 0o644); err != nil {
			return err
		}
		fi, err := os.Stat(l.cachePath)
		if err != nil {
			return err
		}
		l.mu.Lock()
		l.vec = &vectorCache{info: fi, vectors: merged}
		l.mu.Unlock()
		return nil
	})
	return merged, err
}

// cacheMagic opens the embedding cache file. The file is binary so that
// tens of megabytes of vectors load in milliseconds: after the magic, one
// record per vector: the 16-byte key, the dimension count as a little-endian
// uint32, then that many little-endian float32s.
const cacheMagic = "lppctl-embeddings-v1\n"

func encodeCache(vectors map[string][]float32) ([]byte, error) {
	size := len(cacheMagic)
	for _, v := range vectors {
		size += 20 + 4*len(v)
	}
	buf := make([]byte, 0, size)
	buf = append(buf, cacheMagic...)
	for _, k := range slices.Sorted(maps.Keys(vectors)) {
		key, err := hex.DecodeString(k)
		if err != nil || len(key) != 16 {
			return nil, fmt.Errorf("bad cache key %q", k)
		}
		v := vectors[k]
		buf = append(buf, key...)
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(v)))
		for _, x := range v {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
	}
	return buf, nil
}

func decodeCache(data []byte) (map[string][]float32, error) {
	if !bytes.HasPrefix(data, []byte(cacheMagic)) {
		return nil, errors.New("not an lppctl embedding cache")
	}
	data = data[len(cacheMagic):]
	out := map[string][]float32{}
	for len(data) > 0 {
		if len(data) < 20 {
			return nil, errors.New("truncated embedding cache")
		}
		key := hex.EncodeToString(data[:16])
		n := int(binary.LittleEndian.Uint32(data[16:20]))
		data = data[20:]
		if n > len(data)/4 {
			return nil, errors.New("truncated embedding cache")
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		}
		data = data[4*n:]
		out[key] = v
	}
	return out, nil
}

// dot returns the dot product of two vectors of equal length.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// normalize scales v to unit length in place (a zero vector stays zero).
func normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
}
