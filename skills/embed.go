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
		hc := &http.Client{Transport: embedTransport{next: httputil.DefaultTransport, retry: embedRetryFrom(getenv)}}
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
		return embedClient{e: e}, "openai:" + model, nil
	case "ollama":
		if model == "" {
			model = DefaultOllamaEmbeddingModel
		}
		hc := &http.Client{Transport: embedTransport{next: httputil.DefaultTransport, retry: embedRetryFrom(getenv)}}
		opts := []ollama.Option{ollama.WithModel(model), ollama.WithHTTPClient(hc)}
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
		return embedClient{e: e}, "ollama:" + model, nil
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
// A query vector of another size than the skills' (the model behind the
// name changed: another server, another version) makes the skills'
// vectors be embedded again, once, instead of failing every search from
// then on.
func (l *Library) embeddingScores(ctx context.Context, snap *snapshot, query string) ([]float64, error) {
	ix, err := l.embIndexFor(ctx, snap, 0)
	if err != nil && !errors.Is(err, errMixedSizes) {
		return nil, err
	}
	q, err := l.embedder.EmbedQuery(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("cannot embed query: %w", err)
	}
	if p := checkVector(q); p != "" {
		return nil, fmt.Errorf("cannot embed query: its embedding %s", p)
	}
	if ix == nil || len(q) != ix.dims {
		if ix, err = l.embIndexFor(ctx, snap, len(q)); err != nil {
			return nil, err
		}
	}
	normalize(q)
	scores := make([]float64, len(snap.list))
	for i := range scores {
		scores[i] = float64(dot(ix.data[i*ix.dims:(i+1)*ix.dims], q))
	}
	return scores, nil
}

// embedBatchSize is the number of skill texts one embedding call asks for.
// Each request has its own deadline (embedTransport), and the vectors of the
// calls that succeeded are cached even when a later one fails, so a large
// library is embedded over as many calls as it takes (Ollama's embedder
// sends one request per text), and an outage halfway keeps what was done.
const embedBatchSize = 256

// vectorSize is the dimension count the skills' vectors must have: the
// query's, or, when unknown (0), that of the first vector embedded now,
// else of the first skill's cached vector.
type vectorSize struct {
	n     int
	query bool // n is the query's
}

// errMixedSizes is a skill's vector whose size differs from another
// skill's: one of them is stale, which only the query's size tells.
var errMixedSizes = errors.New("skill vectors of different sizes")

func (s vectorSize) mismatch(name string, n int) error {
	if s.query {
		return fmt.Errorf("the embedding of %q has %d dimensions, the query's has %d", name, n, s.n)
	}
	return fmt.Errorf("the embedding of %q has %d dimensions, another skill's has %d: %w", name, n, s.n, errMixedSizes)
}

// embIndexFor returns the vectors of snap's skills, all of dims dimensions
// (0: of one size, else an error wrapping errMixedSizes), embedding only
// the skills whose text (or the model) changed since they were cached, or
// whose cached vector is not of dims dimensions: the model behind the name
// changed, so the vectors of the old one are stale.
func (l *Library) embIndexFor(ctx context.Context, snap *snapshot, dims int) (*embIndex, error) {
	if _, ix := snap.indexes(); ix != nil && ix.model == l.model && (dims == 0 || ix.dims == dims) {
		return ix, nil
	}
	size := vectorSize{n: dims, query: dims > 0}
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
		if v, ok := vectors[k]; !ok || (dims > 0 && len(v) != dims) {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		if vectors, err = l.embedSkills(ctx, snap, missing, keys, &size); err != nil {
			return nil, err
		}
	}
	if size.n == 0 {
		size.n = len(vectors[keys[0]])
	}
	ix := &embIndex{model: l.model, dims: size.n, data: make([]float32, 0, size.n*len(keys))}
	for i, k := range keys {
		v := vectors[k]
		if len(v) != size.n {
			return nil, size.mismatch(snap.list[i].Name, len(v))
		}
		ix.data = append(ix.data, v...)
	}
	snap.ix.mu.Lock()
	snap.ix.emb = ix
	snap.ix.mu.Unlock()
	return ix, nil
}

// embedSkills embeds the skills of snap at the indexes missing, in calls of
// at most embedBatchSize texts, caches what it got (also when a call
// failed: the next search asks only for the rest) and returns the cached
// vectors. Every vector must be usable and of size's dimension count (set
// by the first one when it is 0).
func (l *Library) embedSkills(ctx context.Context, snap *snapshot, missing []int, keys []string, size *vectorSize) (map[string][]float32, error) {
	fresh := make(map[string][]float32, len(missing))
	var embedErr error
	for len(missing) > 0 && embedErr == nil {
		batch := missing[:min(embedBatchSize, len(missing))]
		missing = missing[len(batch):]
		embedErr = l.embedBatch(ctx, snap, batch, keys, size, fresh)
	}
	vectors, err := l.loadVectors()
	if len(fresh) > 0 {
		vectors, err = l.storeVectors(fresh, keys)
		if err != nil {
			return nil, fmt.Errorf("cannot save embedding cache: %w", err)
		}
	}
	if embedErr != nil {
		return nil, fmt.Errorf("cannot embed skills: %w", embedErr)
	}
	return vectors, err
}

// embedBatch embeds the skills of snap at the indexes batch, in one call,
// into fresh (keyed by keys), when every vector is usable and of size's
// dimension count.
func (l *Library) embedBatch(ctx context.Context, snap *snapshot, batch []int, keys []string, size *vectorSize, fresh map[string][]float32) error {
	texts := make([]string, len(batch))
	for n, i := range batch {
		texts[n] = embedText(snap.list[i])
	}
	vs, err := l.embedder.EmbedDocuments(ctx, texts)
	if err != nil {
		return err
	}
	if len(vs) != len(texts) {
		return fmt.Errorf("got %d embeddings for %d texts", len(vs), len(texts))
	}
	for n, i := range batch {
		v := vs[n]
		if p := checkVector(v); p != "" {
			return fmt.Errorf("the embedding of %q %s", snap.list[i].Name, p)
		}
		if size.n == 0 {
			size.n = len(v)
		}
		if len(v) != size.n {
			return size.mismatch(snap.list[i].Name, len(v))
		}
	}
	for n, i := range batch {
		normalize(vs[n])
		fresh[keys[i]] = vs[n]
	}
	return nil
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
