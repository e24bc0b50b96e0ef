package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// DefaultLibraryPath is where the skill library lives unless configured.
const DefaultLibraryPath = ".lppctl/skills.json"

// Skill is one learned, general principle. The library file is one JSON
// object mapping each name to its Skill.
type Skill struct {
	Name              string `json:"name"`
	Principle         string `json:"principle"`
	WhenToApply       string `json:"when_to_apply"`
	CreatedIteration  int    `json:"created_iteration"`
	LastUsedIteration int    `json:"last_used_iteration"`
	UsageCount        int    `json:"usage_count"`
}

// Update names the fields of a skill to change; nil fields stay as they are.
type Update struct {
	Name        *string // rename the skill
	Principle   *string
	WhenToApply *string
}

// Library is the skill library stored in one JSON file. Its methods are safe
// for concurrent use, and separate Library values (in this process or
// others) on the same file never lose each other's updates: every change is
// a read-modify-write under an exclusive flock on the sibling file
// "<path>.lock", and every save replaces the file atomically. Searches
// record usage by appending to the sibling log "<path>.usage.jsonl" (see
// usage.go) instead of rewriting the file. Reads take no lock: they always
// see a whole file and whole log lines.
type Library struct {
	path      string
	lockPath  string
	logPath   string // usage log
	runsPath  string // iterations of agent runs
	cachePath string
	embedder  Embedder
	model     string
	iteration int
	run       string
	// warnFallback is told once when the embedder fails (WithFallback).
	warnFallback func(error)

	mu   sync.Mutex // guards snap, vec and down
	snap *snapshot  // the last version of the file (and usage log) read or written
	vec  *vectorCache
	down error // the embedder's failure: searches rank with BM25 from then on
}

// Option configures a Library.
type Option func(*Library)

// WithEmbedder ranks searches by cosine similarity of embeddings from e;
// model names the embedding model and is part of the cache key.
func WithEmbedder(e Embedder, model string) Option {
	return func(l *Library) { l.embedder, l.model = e, model }
}

// WithEmbeddingCache stores embeddings in path instead of the default
// "<library path without .json>.embeddings.bin".
func WithEmbeddingCache(path string) Option {
	return func(l *Library) { l.cachePath = path }
}

// WithIteration sets the current iteration, recorded as last_used_iteration
// by searches. Without it (or WithRun) the current iteration is the latest:
// the highest of the last run's iteration (see WithRun) and every
// created_iteration or last_used_iteration in the library.
func WithIteration(n int) Option {
	return func(l *Library) { l.iteration = n }
}

// WithRun makes the current iteration that of the agent run id: one run is
// one iteration. Open registers a run it has not seen before as a new
// iteration, one past the latest (see WithIteration); opening again with the
// same id (a later step, a resumed run) gets the same iteration. The runs are
// kept in "<path>.runs.json"; an empty id changes nothing.
func WithRun(id string) Option {
	return func(l *Library) { l.run = id }
}

// Open returns the library stored at path (DefaultLibraryPath when empty).
// A missing file is an empty library; a file that is not a JSON object of
// skills is an error.
func Open(path string, opts ...Option) (*Library, error) {
	l := OpenUnchecked(path, opts...)
	l.sweep()
	if _, err := l.load(); err != nil {
		return nil, err
	}
	if l.run != "" && l.iteration == 0 {
		it, err := l.startRun(l.run)
		if err != nil {
			return nil, fmt.Errorf("cannot start the iteration of run %q: %w", l.run, err)
		}
		l.iteration = it
	}
	return l, nil
}

// OpenUnchecked is Open without reading the file: a missing or broken file
// is reported by every method that needs the skills, until it is fixed.
// For long-running servers (lppctl mcp serve), which should start and say
// what is wrong rather than exit. WithRun is not applied (it needs the file).
func OpenUnchecked(path string, opts ...Option) *Library {
	if path == "" {
		path = DefaultLibraryPath
	}
	l := &Library{path: path, lockPath: path + ".lock", logPath: path + ".usage.jsonl", runsPath: path + ".runs.json"}
	for _, o := range opts {
		o(l)
	}
	if l.cachePath == "" {
		l.cachePath = strings.TrimSuffix(path, ".json") + ".embeddings.bin"
	}
	return l
}

// Path returns the library file's path.
func (l *Library) Path() string { return l.path }

// Embedder returns the configured embedder, or nil for lexical ranking.
func (l *Library) Embedder() Embedder { return l.embedder }

// List returns every skill, sorted by name.
func (l *Library) List() ([]Skill, error) {
	s, err := l.load()
	if err != nil {
		return nil, err
	}
	return slices.Clone(s.list), nil
}

// Count returns the number of skills.
func (l *Library) Count() (int, error) {
	s, err := l.load()
	if err != nil {
		return 0, err
	}
	return len(s.list), nil
}

// Get returns the named skill, or an error wrapping ErrNotFound.
func (l *Library) Get(name string) (Skill, error) {
	s, err := l.load()
	if err != nil {
		return Skill{}, err
	}
	stored, ok, err := storedName(name, slices.Collect(maps.Keys(s.index)))
	if err != nil {
		return Skill{}, fmt.Errorf("cannot get skill: %w", err)
	}
	if !ok {
		return Skill{}, fmt.Errorf("cannot get skill %q: %w", name, ErrNotFound)
	}
	return s.list[s.index[stored]], nil
}

// Iteration returns the current iteration (see WithIteration and WithRun).
func (l *Library) Iteration() (int, error) {
	s, err := l.load()
	if err != nil {
		return 0, err
	}
	return l.currentIteration(s)
}

func (l *Library) currentIteration(s *snapshot) (int, error) {
	if l.iteration > 0 {
		return l.iteration, nil
	}
	r, err := readRuns(l.runsPath)
	if err != nil {
		return 0, err
	}
	return max(r.Iteration, s.maxIt), nil
}

// Add stores s, replacing any skill of the same name (compared in Unicode
// normalisation form C; the name is stored in that form).
func (l *Library) Add(s Skill) error {
	s.Name = NormalName(s.Name)
	if err := s.Validate(); err != nil {
		return fmt.Errorf("cannot add skill: %w", err)
	}
	err := l.mutateExtra(func(m map[string]Skill, extra map[string]string) error {
		stored, ok, err := storedName(s.Name, slices.Collect(maps.Keys(m)))
		if err != nil {
			return err
		}
		if ok && stored != s.Name {
			// The same name in another normalisation: the skill it names
			// is replaced and stored under the NFC name.
			delete(m, stored)
			if e, ok := extra[stored]; ok {
				extra[s.Name] = e
				delete(extra, stored)
			}
		}
		m[s.Name] = s
		return nil
	})
	if err != nil {
		return fmt.Errorf("cannot add skill %q: %w", s.Name, err)
	}
	return nil
}

// Update changes the named fields of the skill called name and returns the
// result. Names are compared in Unicode normalisation form C, and a new
// name is stored in it. An unknown skill is an error wrapping ErrNotFound;
// renaming onto another existing skill is an error wrapping ErrInvalid.
func (l *Library) Update(name string, u Update) (Skill, error) {
	if u.Name == nil && u.Principle == nil && u.WhenToApply == nil {
		return Skill{}, fmt.Errorf("cannot update skill %q: no field to change: %w", name, ErrInvalid)
	}
	if u.Name != nil {
		n := NormalName(*u.Name)
		u.Name = &n
	}
	var out Skill
	err := l.mutateExtra(func(m map[string]Skill, extra map[string]string) error {
		names := slices.Collect(maps.Keys(m))
		stored, ok, err := storedName(name, names)
		if err != nil {
			return err
		}
		if !ok {
			return ErrNotFound
		}
		name = stored
		s := m[name]
		applyUpdate(&s, u)
		if err := s.Validate(); err != nil {
			return err
		}
		if s.Name != name {
			if err := takenBy(s.Name, names, name); err != nil {
				return err
			}
			delete(m, name)
			if e, ok := extra[name]; ok {
				extra[s.Name] = e
				delete(extra, name)
			}
		}
		m[s.Name] = s
		out = s
		return nil
	})
	if err != nil {
		return Skill{}, fmt.Errorf("cannot update skill %q: %w", name, err)
	}
	return out, nil
}

func applyUpdate(s *Skill, u Update) {
	if u.Name != nil {
		s.Name = *u.Name
	}
	if u.Principle != nil {
		s.Principle = *u.Principle
	}
	if u.WhenToApply != nil {
		s.WhenToApply = *u.WhenToApply
	}
}

// Remove deletes the named skill (compared in Unicode normalisation form
// C); an unknown skill is an error wrapping ErrNotFound.
func (l *Library) Remove(name string) error {
	err := l.mutate(func(m map[string]Skill) error {
		stored, ok, err := storedName(name, slices.Collect(maps.Keys(m)))
		if err != nil {
			return err
		}
		if !ok {
			return ErrNotFound
		}
		delete(m, stored)
		return nil
	})
	if err != nil {
		return fmt.Errorf("cannot remove skill %q: %w", name, err)
	}
	return nil
}

// snapshot is one version of the library file with the usage log merged,
// and the search indexes built from it on demand.
type snapshot struct {
	info  os.FileInfo    // the file's; nil when it does not exist
	base  string         // id of the file's content: usage log lines name it
	token string         // the save token this version was verified under (see savetoken.go); "" for none
	main  []Skill        // as in the file, sorted by name
	index map[string]int // name → position in main and list
	list  []Skill        // main with the usage log merged (may share main's array)
	maxIt int            // highest iteration in list

	logInfo  os.FileInfo // the usage log merged into list; nil for none
	logID    string      // its header's id (see logHeader); "" for none: then it is merged from 0 each time
	logOff   int64       // bytes of it merged (whole lines)
	logLines int         // lines in those bytes

	ix *textIndexes // shared by the snapshots that hold the same texts

	extra map[string]string // name → its unknown fields, rendered (see decodeSkill)
}

// textIndexes are the search indexes of one list of skill texts.
type textIndexes struct {
	mu  sync.Mutex
	lex *bm25Index
	emb *embIndex
}

func newSnapshot(info os.FileInfo, base string, m map[string]Skill, extra map[string]string) *snapshot {
	s := &snapshot{info: info, base: base, main: make([]Skill, 0, len(m)), index: make(map[string]int, len(m)), ix: &textIndexes{}, extra: extra}
	for i, name := range slices.Sorted(maps.Keys(m)) {
		sk := m[name]
		s.main = append(s.main, sk)
		s.index[name] = i
		s.maxIt = max(s.maxIt, sk.CreatedIteration, sk.LastUsedIteration)
	}
	s.list = s.main
	return s
}

// withoutLog returns s without any usage log merged.
func (s *snapshot) withoutLog() *snapshot {
	if s.logInfo == nil {
		return s
	}
	n := *s
	n.list, n.logInfo, n.logID, n.logOff, n.logLines = s.main, nil, "", 0, 0
	n.maxIt = 0
	for _, sk := range s.main {
		n.maxIt = max(n.maxIt, sk.CreatedIteration, sk.LastUsedIteration)
	}
	return &n
}

// contentID identifies a version of the library file by its content.
func contentID(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:8])
}

// sameText reports whether two snapshots hold the same skills with the same
// texts (counters may differ), so that search indexes carry over.
func sameText(a, b *snapshot) bool {
	if len(a.main) != len(b.main) {
		return false
	}
	for i := range a.main {
		x, y := a.main[i], b.main[i]
		if x.Name != y.Name || x.Principle != y.Principle || x.WhenToApply != y.WhenToApply {
			return false
		}
	}
	return true
}

// sameVersion reports whether two stats probably describe the same version
// of a file. Saves replace the file by rename, so a new version is a new
// inode, but the file system may give a later version the inode of an
// earlier one back, with the same size and, within a clock tick, the same
// mtime: good enough for readers, never for a writer (see loadFile). A
// variable for tests.
var sameVersion = func(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// load returns the current version of the library, reusing the cached one
// when neither the file nor the usage log changed. It takes no lock.
func (l *Library) load() (*snapshot, error) { return l.loadHeld(nil) }

// loadHeld is load for a caller holding the library lock, whose lock file
// is lk (nil: no lock held). The cached version is trusted only when no
// save happened since it was read (see savetoken.go).
func (l *Library) loadHeld(lk *os.File) (*snapshot, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var tok saveToken
	if lk == nil {
		tok = readSaveTokenAt(l.lockPath)
	} else if tok = readSaveToken(lk); !tok.committed {
		// No token (a new lock file, or only older lppctl versions
		// saved), or a save was killed before it committed: start a new
		// one. Holding the lock, what is read next is the version it
		// names until the next save changes it.
		tok = saveToken{id: randomID(), committed: true}
		if err := writeSaveToken(lk, tok.id, true); err != nil {
			return nil, fmt.Errorf("cannot load skill library: %w", err)
		}
	}
	// The log is looked at before the file: a reader racing a compaction
	// then sees the old log with the new file (whose content id the old
	// lines do not name, so they are ignored), never the reverse.
	logInfo, err := os.Stat(l.logPath)
	if errors.Is(err, fs.ErrNotExist) {
		logInfo = nil
	} else if err != nil {
		return nil, fmt.Errorf("cannot load skill library: %w", err)
	}
	s, err := l.loadFile(tok)
	if err != nil {
		return nil, err
	}
	s, err = l.mergeLog(s, logInfo)
	if err != nil {
		return nil, fmt.Errorf("cannot load skill library: %w", err)
	}
	l.snap = s
	return s, nil
}

// loadFile returns the current version of the library file (l.mu held),
// with the usage log merged as far as the cached version had it. tok is the
// lock file's save token read just before. The cached version is reused
// when the file's inode, size and mtime are the same and tok proves it
// current (or, for a lock file without any token, on the stat alone, as
// older versions did); else the file is read again and its content id
// compared, decoding it only when it differs. The version returned carries
// tok's id when tok is committed: the save that wrote it had replaced the
// file, so the version read is that one, or a later one whose save has
// already changed the token for good.
func (l *Library) loadFile(tok saveToken) (*snapshot, error) {
	f, err := os.Open(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		if l.snap == nil || l.snap.info != nil {
			return newSnapshot(nil, "", map[string]Skill{}, nil), nil
		}
		return l.snap, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot load skill library: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot load skill library: %w", err)
	}
	if l.snap != nil && l.snap.info != nil && sameVersion(l.snap.info, fi) && (tok.proves(l.snap.token) || tok.id == "" && l.snap.token == "") {
		return l.snap, nil
	}
	verified := ""
	if tok.committed {
		verified = tok.id
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("cannot load skill library: %w", err)
	}
	id := contentID(data)
	if l.snap != nil && l.snap.info != nil && l.snap.base == id {
		n := *l.snap // the same content: keep it and the log merged into it
		n.info, n.token = fi, verified
		return &n, nil
	}
	m, extra, err := decodeLibrary(data)
	if err != nil {
		return nil, fmt.Errorf("cannot load skill library %s: %w", l.path, err)
	}
	s := newSnapshot(fi, id, m, extra)
	s.token = verified
	if l.snap != nil && sameText(l.snap, s) {
		s.ix = l.snap.ix
	}
	return s, nil
}

func (s *snapshot) indexes() (*bm25Index, *embIndex) {
	s.ix.mu.Lock()
	defer s.ix.mu.Unlock()
	return s.ix.lex, s.ix.emb
}

// withLock runs fn while holding the library's cross-process lock; fn gets
// the open lock file (for loadHeld and the save token).
func (l *Library) withLock(fn func(lk *os.File) error) error {
	if err := os.MkdirAll(filepath.Dir(l.path), 0o755); err != nil {
		return err
	}
	lk, unlock, err := lockFileHeld(l.lockPath)
	if err != nil {
		return err
	}
	defer unlock()
	removeStaleTemps(l.path) // a writer killed before its rename left one
	removeStaleTemps(l.runsPath)
	return fn(lk)
}

// mutate applies fn to a fresh copy of the library under the lock and saves
// the result atomically; when fn fails (or returns errNoChange) nothing is
// written.
func (l *Library) mutate(fn func(m map[string]Skill) error) error {
	return l.withLock(func(lk *os.File) error {
		return l.mutateExtraLocked(lk, func(m map[string]Skill, _ map[string]string) error { return fn(m) })
	})
}

// mutateExtra is mutate for changes that rename skills: fn also gets the
// skills' unknown fields (name → rendered fields), to move them along.
func (l *Library) mutateExtra(fn func(m map[string]Skill, extra map[string]string) error) error {
	return l.withLock(func(lk *os.File) error { return l.mutateExtraLocked(lk, fn) })
}

// mutateLocked is mutate for a caller holding the lock (lk its lock file).
// The copy fn gets has the usage log merged, so the save also compacts the
// log, which is then removed. A crash between the two leaves a log whose
// lines name the previous content id: they are ignored, not counted twice.
func (l *Library) mutateLocked(lk *os.File, fn func(m map[string]Skill) error) error {
	return l.mutateExtraLocked(lk, func(m map[string]Skill, _ map[string]string) error { return fn(m) })
}

func (l *Library) mutateExtraLocked(lk *os.File, fn func(m map[string]Skill, extra map[string]string) error) error {
	old, err := l.loadHeld(lk)
	if err != nil {
		return err
	}
	m := make(map[string]Skill, len(old.list))
	for _, s := range old.list {
		m[s.Name] = s
	}
	extra := maps.Clone(old.extra)
	if extra == nil {
		extra = map[string]string{}
	}
	if err := fn(m, extra); errors.Is(err, errNoChange) {
		return nil
	} else if err != nil {
		return err
	}
	for name := range extra {
		if _, ok := m[name]; !ok {
			delete(extra, name) // removed
		}
	}
	data, err := encodeLibrary(m, extra)
	if err != nil {
		return err
	}
	tok := randomID()
	if err := writeSaveToken(lk, tok, false); err != nil { // before the file changes
		return err
	}
	if err := writeFileAtomic(l.path, data, 0o644); err != nil {
		return err
	}
	// Committed once the new file is in place. If this fails the token
	// stays pending and readers read the file each time: slower, not wrong.
	_ = writeSaveToken(lk, tok, true)
	os.Remove(l.logPath) // merged; if this fails, its lines name the old content and are ignored
	fi, err := os.Stat(l.path)
	if err != nil {
		return err
	}
	s := newSnapshot(fi, contentID(data), m, extra)
	s.token = tok
	if sameText(old, s) {
		s.ix = old.ix
	}
	l.mu.Lock()
	l.snap = s
	l.mu.Unlock()
	return nil
}
