package ui

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"strings"
	"sync"
)

// staticFiles serves the embedded assets with an ETag (a hash of the
// file's content), so that a page load revalidates them with a 304 instead
// of downloading them again; the vendored Mermaid library (its version
// pinned by the build) is also cached for a day without asking.
type staticFiles struct {
	fsys  fs.FS
	files http.Handler
	mu    sync.Mutex
	tags  map[string]string
}

func newStaticFiles(fsys fs.FS) *staticFiles {
	return &staticFiles{fsys: fsys, files: http.FileServerFS(fsys), tags: map[string]string{}}
}

func (s *staticFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/")
	// Files only: a folder (/static/, /static/vendor/) is no asset, and
	// its listing is not served.
	if info, err := fs.Stat(s.fsys, strings.TrimSuffix(cmp.Or(name, "."), "/")); err != nil || info.IsDir() {
		http.NotFound(w, r)
		return
	}
	if tag := s.etag(name); tag != "" {
		w.Header().Set("ETag", tag)
		if strings.HasPrefix(name, "vendor/") {
			w.Header().Set("Cache-Control", "public, max-age=86400")
		} else {
			w.Header().Set("Cache-Control", "no-cache") // revalidate: 304 while unchanged
		}
	}
	s.files.ServeHTTP(w, r)
}

// etag returns the file's ETag ("" for no such file), computed once.
func (s *staticFiles) etag(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tag, ok := s.tags[name]; ok {
		return tag
	}
	b, err := fs.ReadFile(s.fsys, name)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	tag := `"` + hex.EncodeToString(sum[:8]) + `"`
	s.tags[name] = tag
	return tag
}
