package temporal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// BlobStore holds the values a run's payloads refer to (Temporal's
// claim-check pattern), each stored once under the hash of its bytes. Every
// worker and client of a task queue must see the same store: a directory
// on a shared mount, or an object store.
type BlobStore interface {
	// Put stores b under its reference (BlobRef(b)); storing the same bytes
	// again is a no-op.
	Put(ctx context.Context, ref string, b []byte) error
	// Get returns the bytes stored under ref.
	Get(ctx context.Context, ref string) ([]byte, error)
	// Where names the store in messages.
	Where() string
}

// BlobRef is the reference of b in a BlobStore: "sha256:" and its hash.
func BlobRef(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// validRef reports whether ref is a BlobRef (so that it names no path).
func validRef(ref string) bool {
	h, ok := strings.CutPrefix(ref, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}

// DirStore is a BlobStore in a directory: DIR/sha256/AB/HASH, written to a
// temporary file and renamed, so that a reader never sees half a blob.
type DirStore struct{ dir string }

// NewDirStore returns the store in dir (made by the first Put).
func NewDirStore(dir string) (*DirStore, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("cannot use blob store %s: it is a file, not a folder", dir)
	}
	return &DirStore{dir: dir}, nil
}

func (s *DirStore) Where() string { return s.dir }

func (s *DirStore) path(ref string) (string, error) {
	if !validRef(ref) {
		return "", fmt.Errorf("%q is not a blob reference (sha256:HEX)", ref)
	}
	h := strings.TrimPrefix(ref, "sha256:")
	return filepath.Join(s.dir, "sha256", h[:2], h), nil
}

func (s *DirStore) Put(_ context.Context, ref string, b []byte) error {
	p, err := s.path(ref)
	if err != nil {
		return err
	}
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("cannot store blob %s in %s: %w", ref, s.dir, err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot store blob %s in %s: %w", ref, s.dir, err)
	}
	werr := f.Chmod(0o644) // the workers of a shared mount read it
	if werr == nil {
		_, werr = f.Write(b)
	}
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), p)
	}
	if werr != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("cannot store blob %s in %s: %w", ref, s.dir, werr)
	}
	return nil
}

func (s *DirStore) Get(_ context.Context, ref string) ([]byte, error) {
	p, err := s.path(ref)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &MissingBlobError{Ref: ref, Store: s.dir}
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read blob %s in %s: %w", ref, s.dir, err)
	}
	if BlobRef(b) != ref {
		return nil, fmt.Errorf("blob %s in %s is damaged: its content does not match its hash", ref, s.dir)
	}
	return b, nil
}

// blobCache keeps recently used blobs in memory, up to a total size: a
// value a run refers to at every step is read from the store once.
type blobCache struct {
	mu    sync.Mutex
	max   int
	size  int
	order []string
	m     map[string][]byte
}

func newBlobCache(max int) *blobCache { return &blobCache{max: max, m: map[string][]byte{}} }

func (c *blobCache) get(ref string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[ref]
	return b, ok
}

func (c *blobCache) add(ref string, b []byte) {
	if len(b) > c.max/2 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[ref]; ok {
		return
	}
	c.m[ref] = b
	c.order = append(c.order, ref)
	c.size += len(b)
	for c.size > c.max && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.size -= len(c.m[old])
		delete(c.m, old)
	}
}

// memStore is a BlobStore in this process's memory (an Engine's default,
// for tests).
type memStore struct{ m sync.Map }

func newMemStore() *memStore { return &memStore{} }

func (s *memStore) Where() string { return "memory" }

func (s *memStore) Put(_ context.Context, ref string, b []byte) error {
	s.m.Store(ref, b)
	return nil
}

func (s *memStore) Get(_ context.Context, ref string) ([]byte, error) {
	if b, ok := s.m.Load(ref); ok {
		return b.([]byte), nil
	}
	return nil, fmt.Errorf("cannot find blob %s in this process's memory", ref)
}

// MissingBlobError is a blob a store does not hold: the value was stored
// in another store (every worker and client of a task queue must share
// one, --blobs).
type MissingBlobError struct {
	Ref   string
	Store string // the store's directory or s3:// address
}

func (e *MissingBlobError) Error() string {
	return fmt.Sprintf("cannot find blob %s in %s: every worker and client of the task queue must share one blob store (--blobs)", e.Ref, e.Store)
}
