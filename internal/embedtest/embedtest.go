// Package embedtest is an embeddings server for tests, on loopback, in
// OpenAI's wire format (POST .../embeddings) and Ollama's (POST
// /api/embed): it answers with Vector of each input and counts the
// requests, so tests can drive the real langchaingo clients and assert what
// they sent. It imports nothing of lppctl.
package embedtest

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
)

// concepts are groups of words a sentence-embedding model would place
// close together; Vector gives each group one dimension.
var concepts = [][]string{
	{"find", "search", "look", "locate", "seek", "where", "hunt", "discover", "lookup"},
	{"heat", "warm", "hot", "microwave", "cook", "temperature", "boil"},
	{"mug", "cup", "glass", "bowl", "dish", "container", "plate"},
	{"network", "connection", "timeout", "outage", "http", "request", "server", "unreachable"},
	{"retry", "again", "backoff", "repeat", "reattempt"},
	{"file", "document", "output", "path"},
	{"verify", "check", "confirm", "validate", "ensure", "exist"},
	{"write", "save", "store", "persist", "create"},
	{"read", "load", "parse", "open"},
	{"csv", "spreadsheet", "table", "column", "row"},
	{"encoding", "utf", "charset", "accent", "garbled", "character", "unicode"},
	{"large", "big", "huge", "chunk", "size", "memory"},
	{"summarise", "summarize", "summary", "digest", "condense"},
	{"test", "unit", "pytest", "suite", "assert"},
	{"fail", "error", "broken", "crash", "exception", "wrong"},
	{"secret", "key", "token", "password", "credential"},
	{"log", "trace", "debug", "diagnose"},
	{"date", "time", "timestamp", "timezone", "utc", "clock"},
	{"transcript", "call", "earning", "quarter", "ticker"},
	{"format", "markdown", "heading", "layout", "style"},
	{"clean", "tidy", "remove", "delete", "temporary"},
}

const dims = 64

var conceptOf = func() map[string]int {
	m := map[string]int{}
	for i, ws := range concepts {
		for _, w := range ws {
			m[w] = i
		}
	}
	return m
}()

// Tokens lowercases text and splits it into words, dropping a plural "s".
func Tokens(text string) []string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for i, f := range fields {
		if len(f) > 3 && strings.HasSuffix(f, "s") && !strings.HasSuffix(f, "ss") {
			fields[i] = f[:len(f)-1]
		}
	}
	return fields
}

// Vector embeds text as a bag of concepts: the words of one concept group
// add to that group's dimension; other words are hashed, with half the
// weight, into the dimensions past the groups. It stands in for a sentence
// embedding model: unlike BM25 it knows that "find" and "search" are close.
func Vector(text string) []float32 {
	v := make([]float32, dims)
	for _, w := range Tokens(text) {
		if c, ok := conceptOf[w]; ok {
			v[c]++
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[len(concepts)+int(h.Sum32()%uint32(dims-len(concepts)))] += 0.5
	}
	return v
}

// Server is an OpenAI-compatible embeddings endpoint.
type Server struct {
	*httptest.Server

	mu       sync.Mutex
	requests int
	inputs   int
	down     bool
	mistake  Mistake
	models   []string
	failures []failure // the next requests' error replies, in order
}

// failure is an error reply: a status and its Retry-After header ("" for none).
type failure struct {
	status     int
	retryAfter string
}

// NewServer starts a Server, closed when the test ends.
func NewServer(t testing.TB) *Server {
	s := &Server{}
	s.Server = httptest.NewServer(s)
	t.Cleanup(s.Close)
	return s
}

// ServeHTTP answers POST requests to a path ending in /embeddings
// (OpenAI's format) or to /api/embed (Ollama's); while the server is down
// (SetDown) it answers 503.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ollama := r.URL.Path == "/api/embed"
	if !ollama && !strings.HasSuffix(r.URL.Path, "/embeddings") || r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	var req struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad JSON"}}`, http.StatusBadRequest)
		return
	}
	var inputs []string
	if json.Unmarshal(req.Input, &inputs) != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			http.Error(w, `{"error":{"message":"input must be a string or a list of strings"}}`, http.StatusBadRequest)
			return
		}
		inputs = []string{one}
	}
	s.mu.Lock()
	s.requests++
	s.inputs += len(inputs)
	s.models = append(s.models, req.Model)
	down, mistake := s.down, s.mistake
	var fail *failure
	if len(s.failures) > 0 {
		fail = &s.failures[0]
		s.failures = s.failures[1:]
	}
	s.mu.Unlock()
	if fail != nil {
		if fail.retryAfter != "" {
			w.Header().Set("Retry-After", fail.retryAfter)
		}
		writeError(w, ollama, fail.status, "try again later")
		return
	}
	if mistake == NoAnswer {
		<-r.Context().Done() // accepted, never answered
		return
	}
	if down {
		writeError(w, ollama, http.StatusServiceUnavailable, "embeddings are down")
		return
	}
	type datum struct {
		Object    string    `json:"object"`
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	}
	resp := struct {
		Object string  `json:"object"`
		Data   []datum `json:"data"`
		Model  string  `json:"model"`
		Usage  any     `json:"usage"`
	}{Object: "list", Model: req.Model, Usage: map[string]int{"prompt_tokens": 0, "total_tokens": 0}}
	for i, in := range inputs {
		resp.Data = append(resp.Data, datum{Object: "embedding", Embedding: Vector(in), Index: i})
	}
	switch mistake {
	case Reversed:
		slices.Reverse(resp.Data)
	case OneShort:
		resp.Data = resp.Data[:len(resp.Data)-1]
	case SameIndex:
		for i := range resp.Data {
			resp.Data[i].Index = 0
		}
	case Zeros:
		for i := range resp.Data {
			resp.Data[i].Embedding = make([]float32, len(resp.Data[i].Embedding))
		}
	}
	switch mistake {
	case Page:
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><head><title>Sign in</title></head><body>Sign in to continue.</body></html>\n"))
		return
	case NoVectors:
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object":"list","model":"` + req.Model + `"}` + "\n"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if ollama {
		out := struct {
			Model      string      `json:"model"`
			Embeddings [][]float32 `json:"embeddings"`
		}{Model: req.Model, Embeddings: [][]float32{}}
		for _, d := range resp.Data {
			out.Embeddings = append(out.Embeddings, d.Embedding)
		}
		json.NewEncoder(w).Encode(out)
		return
	}
	json.NewEncoder(w).Encode(resp)
}

// writeError answers an error status the way the server's API does:
// {"error": {"message": ...}} for OpenAI, {"error": ...} for Ollama.
func writeError(w http.ResponseWriter, ollama bool, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if ollama {
		json.NewEncoder(w).Encode(map[string]string{"error": msg})
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"message": msg}})
}

// FailNext makes the next n requests answer status, with the header
// Retry-After: retryAfter when it is not "", then serve again.
func (s *Server) FailNext(n, status int, retryAfter string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.failures = append(s.failures, failure{status: status, retryAfter: retryAfter})
	}
}

// Mistake is a way a real embeddings server gets its reply wrong.
type Mistake int

const (
	NoMistake Mistake = iota
	Reversed          // the vectors in reverse order, each with its true index
	OneShort          // one vector fewer than the inputs
	SameIndex         // every vector indexed 0
	Zeros             // all-zero vectors
	NoAnswer          // the request accepted and never answered
	Page              // a 200 HTML page (a proxy's login page)
	NoVectors         // a 200 JSON object without the list of vectors
)

// SetMistake makes the server's next replies make m.
func (s *Server) SetMistake(m Mistake) {
	s.mu.Lock()
	s.mistake = m
	s.mu.Unlock()
}

// SetDown makes the server answer 503 (true) or serve again (false).
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	s.down = down
	s.mu.Unlock()
}

// Requests is the number of embeddings requests served so far (503s included).
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Inputs is the number of texts those requests asked to embed.
func (s *Server) Inputs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inputs
}

// Models lists the model of each request, in order.
func (s *Server) Models() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.models...)
}
