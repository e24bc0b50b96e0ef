// Package runstore keeps durable runs on disk: one directory per run with its
// metadata (run.json), a copy of the spec, the append-only journal of steps
// (journal.jsonl) and the logs the actions write (audit.jsonl, llm.jsonl).
//
// The journal is the truth: a run is rebuilt from it (machine.Machine.Resume)
// after a crash, a Ctrl-C or a pause for a person. run.json is a cache for
// listing, rewritten atomically when the run's status changes.
//
// It imports machine and nothing of the actions, the gateway or skills.
package runstore

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lppctl/lppctl/internal/fsx"
	"github.com/lppctl/lppctl/machine"
)

// DefaultDir is where runs live unless configured (relative to the working directory).
const DefaultDir = ".lppctl/runs"

// EnvDir names the environment variable that overrides DefaultDir.
const EnvDir = "LPPCTL_RUN_DIR"

// Files of a run directory.
const (
	MetaFile    = "run.json"      // metadata and status (a cache of the journal)
	SpecFile    = "spec.yaml"     // the spec's content when the run started
	JournalFile = "journal.jsonl" // one JSON line per step, plus markers (see CommitFile)
	AuditFile   = "audit.jsonl"   // the gateway's audit log
	LLMFile     = "llm.jsonl"     // the LLM calls with token usage
	PromptsFile = "prompts.jsonl" // the messages of the LLM calls, each stored once (internal/promptlog)
)

// ErrNotFound is wrapped by the error Open returns for an unknown run.
var ErrNotFound = errors.New("no such run")

// ErrAmbiguous is wrapped by the error Open returns for a prefix of several
// runs' IDs.
var ErrAmbiguous = errors.New("the prefix matches several runs")

// Meta is a run's metadata, stored in run.json.
type Meta struct {
	ID             string              `json:"id"`
	Spec           string              `json:"spec"`     // the spec path as given to lppctl run
	SpecAbs        string              `json:"spec_abs"` // the same, absolute
	SpecName       string              `json:"spec_name,omitempty"`
	SpecSHA256     string              `json:"spec_sha256"`
	Start          time.Time           `json:"start"`
	Updated        time.Time           `json:"updated"`
	End            *time.Time          `json:"end,omitempty"`
	Status         machine.Status      `json:"status"`
	State          string              `json:"state"`
	Steps          int                 `json:"steps"`
	Tokens         int                 `json:"tokens,omitempty"`
	Error          string              `json:"error,omitempty"`
	Pause          *machine.PauseError `json:"pause,omitempty"`
	Vars           map[string]any      `json:"vars,omitempty"`  // the --var overrides the run started with
	Agent          json.RawMessage     `json:"agent,omitempty"` // the agent configuration (cmd/lppctl's agentConfig)
	MaxTransitions int                 `json:"max_transitions,omitempty"`
	Fsync          Fsync               `json:"fsync"`
	PID            int                 `json:"pid,omitempty"` // of the process running it (status running)
	Resumes        int                 `json:"resumes,omitempty"`
	// Files holds the hex SHA-256 of every file the spec's file parameters
	// (prompt templates) name, by absolute path, as they were when the run
	// began (FileHashes); resume refuses when one changed.
	Files map[string]string `json:"files,omitempty"`
	// Events are the events queued when the run started (`lppctl run
	// --event`), in order. A step that took one records its rank, 1-based
	// (machine.Record.Queued): those no step took are queued again when the
	// run goes on after a crash. Written with the rest of run.json before the
	// first step, and copied into the journal's start marker.
	Events []QueuedEvent `json:"events,omitempty"`
}

// QueuedEvent is an event queued when the run started, with its payload.
type QueuedEvent struct {
	Name    string         `json:"name"`
	Payload map[string]any `json:"payload,omitempty"`
}

// normalize turns the json.Numbers of values read back into the types a
// fresh run has (normalizeMap).
func (m *Meta) normalize() {
	m.Vars = normalizeMap(m.Vars)
	for i := range m.Events {
		m.Events[i].Payload = normalizeMap(m.Events[i].Payload)
	}
}

// Store is a directory of runs.
type Store struct {
	Dir string
}

// New returns the store in dir; "" means $LPPCTL_RUN_DIR, else DefaultDir
// (a blank one, spaces only, counts as unset: not a folder named " ").
func New(dir string) *Store {
	if strings.TrimSpace(dir) == "" {
		dir = os.Getenv(EnvDir)
	}
	if strings.TrimSpace(dir) == "" {
		dir = DefaultDir
	}
	return &Store{Dir: dir}
}

// NewID returns a sortable, unique-enough run ID: the UTC time and 6 random
// hex digits, e.g. 20261122-153012-ab12cd.
func NewID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// SpecHash returns the hex SHA-256 of a spec's content.
func SpecHash(src []byte) string {
	sum := sha256.Sum256(src)
	return hex.EncodeToString(sum[:])
}

// Run is one run directory.
type Run struct {
	Dir  string
	Meta Meta
	// Rebuilt is set when run.json could not be read and Meta was rebuilt
	// from the journal's markers (RebuildMeta): why it could not be read.
	Rebuilt error
	lock    *os.File // the run's lock, while this process holds it
}

// Path returns the path of one of the run's files.
func (r *Run) Path(name string) string { return filepath.Join(r.Dir, name) }

// Create makes a new run directory for meta (its ID is chosen when empty),
// holding run.json, spec.yaml (specSrc) and a journal whose first line is the
// start marker (in meta.State, with a copy of meta). The run is locked for
// the calling process (Lock) before it becomes visible.
func (s *Store) Create(meta Meta, specSrc []byte) (*Run, error) {
	return s.CreateFilled(meta, specSrc, nil)
}

// CreateFilled is Create with fill called on the run while its directory
// is still hidden, after the start marker is written and before run.json
// is: what fill writes (a fork's copied steps) is there whole when the run
// appears, or the run does not appear at all. fill may be called again,
// on a new start marker, when the run's ID had to change.
func (s *Store) CreateFilled(meta Meta, specSrc []byte, fill func(*Run) error) (*Run, error) {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create run directory: %w", s.notDir(err))
	}
	if meta.Start.IsZero() {
		meta.Start = time.Now()
	}
	if meta.Fsync == "" {
		meta.Fsync = FsyncAlways
	}
	if meta.Status == "" {
		meta.Status = machine.StatusRunning
	}
	if meta.SpecSHA256 == "" {
		meta.SpecSHA256 = SpecHash(specSrc)
	}
	s.removeStale()
	// The directory is filled under a hidden name and renamed into place, so
	// a crash while creating it leaves no half-made run behind.
	tmp, err := os.MkdirTemp(s.Dir, fmt.Sprintf(".new-%d-", os.Getpid())) // the pid: see removeStale
	if err != nil {
		return nil, fmt.Errorf("cannot create run directory: %w", err)
	}
	defer os.RemoveAll(tmp) // after the rename, nothing is left there
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create run directory: %w", err)
	}
	r := &Run{Dir: tmp, Meta: meta}
	if err := r.Lock("run"); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			r.Unlock()
		}
	}()
	if err := writeFileSync(r.Path(SpecFile), specSrc); err != nil {
		return nil, fmt.Errorf("cannot save spec copy: %w", err)
	}
	for _, name := range []string{AuditFile, LLMFile} {
		if err := os.WriteFile(r.Path(name), nil, 0o644); err != nil {
			return nil, fmt.Errorf("cannot create %s: %w", name, err)
		}
	}
	for attempt := 0; ; attempt++ {
		if r.Meta.ID == "" || attempt > 0 {
			r.Meta.ID = NewID(r.Meta.Start)
		}
		r.Dir = tmp
		if err := r.writeStart(); err != nil {
			return nil, err
		}
		if fill != nil {
			if err := fill(r); err != nil {
				return nil, err
			}
		}
		if err := r.SaveMeta(); err != nil {
			return nil, err
		}
		r.Dir = filepath.Join(s.Dir, r.Meta.ID)
		err := os.Rename(tmp, r.Dir)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) && !errors.Is(err, syscall.ENOTEMPTY) || attempt >= 10 {
			return nil, fmt.Errorf("cannot create run directory: %w", err)
		}
	}
	if err := fsx.SyncDir(s.Dir); err != nil {
		return nil, fmt.Errorf("cannot create run directory: %w", err)
	}
	ok = true
	return r, nil
}

// staleAge is how old a hidden directory of a run being created must be
// before Create removes it as left by a killed process.
const staleAge = time.Minute

// removeStale removes the hidden directories that runs killed while being
// created left behind: not locked by a process, and either made by a process
// that is gone (.new-PID-*) or older than staleAge (a name without a pid, or
// a pid since reused).
func (s *Store) removeStale() {
	ents, err := os.ReadDir(s.Dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), ".new-") {
			continue
		}
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < staleAge && !makerGone(e.Name()) {
			continue
		}
		r := &Run{Dir: filepath.Join(s.Dir, e.Name())}
		if _, _, held, _ := r.Holder(); held {
			continue
		}
		_ = os.RemoveAll(r.Dir)
	}
}

// writeStart (re)writes the journal of a run being created: its start marker,
// holding a copy of the metadata (so that a lost run.json can be rebuilt).
func (r *Run) writeStart() error {
	meta := r.Meta
	b, done, err := newEncoder().encode(&Entry{Type: EntryStart, At: meta.Start, State: meta.State, Meta: &meta})
	if err != nil {
		return err
	}
	done()
	os.Remove(r.Path(JournalFile))
	os.Remove(r.Path(CommitFile))
	if err := writeFileSync(r.Path(JournalFile), b); err != nil {
		return fmt.Errorf("cannot create %s: %w", JournalFile, err)
	}
	c := commit{Lines: 1, Size: int64(len(b)), Chain: crc32.Checksum(b, crcTable)}
	if err := writeCommit(r.Path(CommitFile), c); err != nil {
		return fmt.Errorf("cannot create %s: %w", CommitFile, err)
	}
	return nil
}

// Open returns the run with the given ID (a unique prefix of it is enough).
// A run that a run started (a child run, kept in a folder of its run
// directory) is addressed by its path from the top run: ID/children/NAME
// (OpenNested).
func (s *Store) Open(id string) (*Run, error) {
	if strings.Contains(id, "/") {
		return s.OpenNested(id)
	}
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return nil, fmt.Errorf("cannot open run %q: %w", id, ErrNotFound)
	}
	dir := filepath.Join(s.Dir, id)
	if !isRunDir(dir) {
		ids, lerr := s.ids()
		if lerr != nil && !errors.Is(lerr, fs.ErrNotExist) {
			return nil, fmt.Errorf("cannot open run %q: %w", id, lerr)
		}
		var match []string
		for _, cand := range ids {
			// A folder in which nothing ran (kill -9 as lppctl made it) is
			// no run: List leaves it out, and so does a prefix.
			if strings.HasPrefix(cand, id) && isRunDir(filepath.Join(s.Dir, cand)) {
				match = append(match, cand)
			}
		}
		switch len(match) {
		case 0:
			if info, err := os.Stat(dir); err == nil && info.IsDir() {
				return nil, fmt.Errorf("cannot open run %q: nothing ran in it: its folder %s holds neither %s nor a journal (lppctl stopped as it made it, or the folder was made by hand); remove it%w", id, dir, MetaFile, quiet{ErrNotFound})
			}
			return nil, fmt.Errorf("cannot open run %q: %w in %s (lppctl runs lists them)", id, ErrNotFound, s.Dir)
		case 1:
			dir = filepath.Join(s.Dir, match[0])
		default:
			return nil, fmt.Errorf("cannot open run %q: the prefix matches %d runs: %s%w", id, len(match), strings.Join(match, ", "), quiet{ErrAmbiguous})
		}
	}
	r := &Run{Dir: dir}
	if err := r.loadMeta(); err != nil {
		return nil, err
	}
	return r, nil
}

// loadMeta reads run.json, or rebuilds it from the journal when it cannot
// be read. A run's directory is named after its ID, so a run.json naming
// another run was copied over from that run's directory: it is rebuilt from
// the journal too, and a journal of another run is refused (resuming it
// would continue the other run under this one's name, and list it under an
// ID no command finds).
func (r *Run) loadMeta() error {
	id := filepath.Base(r.Dir)
	err := r.LoadMeta()
	if err == nil && r.Meta.ID != "" && r.Meta.ID != id {
		err = fmt.Errorf("%s is run %s's, not this run's (copied over?)", r.Path(MetaFile), r.Meta.ID)
	}
	if err == nil {
		return nil
	}
	r.Meta = Meta{ID: id} // the journal must be this run's
	if rerr := r.RebuildMeta(err); rerr != nil {
		return rerr
	}
	return nil
}

// isRunDir reports whether dir holds a run: its run.json or its journal.
func isRunDir(dir string) bool {
	for _, name := range []string{MetaFile, JournalFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// ids returns the names of the store's run directories, sorted.
func (s *Store) ids() ([]string, error) {
	ents, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, s.notDir(err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// List returns every run of the store, oldest first. A run whose run.json
// cannot be read has its metadata rebuilt from the journal (Run.Rebuilt says
// why); when that fails too, or run.json or the journal names another run
// (copied over), it is listed with status "unreadable" and the
// error. A run that run.json calls running, that no process works on and
// whose journal records how it ended is listed so (Settle).
func (s *Store) List() ([]*Run, error) {
	ids, err := s.ids()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot list runs: %w", err)
	}
	s.removeStale()
	out := make([]*Run, 0, len(ids))
	for _, id := range ids {
		r := &Run{Dir: filepath.Join(s.Dir, id)}
		if !isRunDir(r.Dir) {
			continue // not a run directory
		}
		r.sweep()
		if err := r.loadMeta(); err != nil {
			r.Meta = Meta{ID: id, Status: "unreadable", Error: err.Error()}
		}
		r.settleIdle()
		out = append(out, r)
	}
	return out, nil
}

// LoadMeta reads run.json.
func (r *Run) LoadMeta() error {
	b, err := os.ReadFile(r.Path(MetaFile))
	if err != nil {
		return fmt.Errorf("cannot read run metadata: %w", err)
	}
	var m Meta
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("cannot read run metadata: %s: %w", r.Path(MetaFile), err)
	}
	m.normalize()
	r.Meta = m
	return nil
}

// SaveMeta rewrites run.json atomically (temporary file, fsync, rename).
func (r *Run) SaveMeta() error {
	r.Meta.Updated = time.Now()
	b, err := json.MarshalIndent(r.Meta, "", "  ")
	if err != nil {
		return fmt.Errorf("cannot save run metadata: %w", err)
	}
	b = append(b, '\n')
	CrashPoint("runjson-write")
	if err := writeFileAtomic(r.Path(MetaFile), b, 0o644, "runjson-rename"); err != nil {
		return fmt.Errorf("cannot save run metadata: %w", err)
	}
	return nil
}

// SpecCopy returns the spec's content as it was when the run started.
func (r *Run) SpecCopy() ([]byte, error) {
	b, err := os.ReadFile(r.Path(SpecFile))
	if err != nil {
		return nil, fmt.Errorf("cannot read the run's spec copy: %w", err)
	}
	return b, nil
}

// OpenLog opens one of the run's logs (AuditFile, LLMFile) for appending. A
// torn last line that a killed process left (no newline) is cut off first,
// so that the new lines do not continue it.
func (r *Run) OpenLog(name string) (*os.File, error) {
	f, err := os.OpenFile(r.Path(name), os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot open %s: %w", name, err)
	}
	if err := cutTornLine(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot open %s: %w", name, err)
	}
	return f, nil
}

// cutTornLine truncates f after its last newline when it does not end with one.
func cutTornLine(f *os.File) error {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	const chunk = 4096
	end := fi.Size()
	buf := make([]byte, chunk)
	for pos := end; pos > 0; {
		n := int64(chunk)
		if pos < n {
			n = pos
		}
		pos -= n
		if _, err := f.ReadAt(buf[:n], pos); err != nil {
			return err
		}
		if pos+n == end && buf[n-1] == '\n' {
			return nil // whole
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return f.Truncate(pos + int64(i) + 1)
		}
	}
	return f.Truncate(0)
}

// writeFileAtomic replaces path with data (fsx.WriteFileAtomic); point,
// when not "", is the crash point armed just before the rename.
func writeFileAtomic(path string, data []byte, perm fs.FileMode, point string) error {
	if point == "" {
		return fsx.WriteFileAtomic(path, data, perm)
	}
	return fsx.WriteFileAtomic(path, data, perm, fsx.BeforeRename(func(string) error {
		CrashPoint(point)
		return nil
	}))
}

// UpdateSpec records that the run continues with a changed spec (resume
// --force): the copy and the hash become src's.
func (r *Run) UpdateSpec(src []byte) error {
	if err := writeFileAtomic(r.Path(SpecFile), src, 0o644, ""); err != nil {
		return fmt.Errorf("cannot save spec copy: %w", err)
	}
	r.Meta.SpecSHA256 = SpecHash(src)
	return nil
}

// writeFileSync creates path with data and syncs it.
func writeFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Writable checks that new files can be made in the run's directory (run.json
// is rewritten through a temporary file), so that resume refuses a read-only
// run before it changes anything.
func (r *Run) Writable() error {
	f, err := os.CreateTemp(r.Dir, ".probe-*")
	if err != nil {
		return fmt.Errorf("its directory %s is not writable: %w", r.Dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// quiet wraps an error without adding to the message: a sentinel that
// errors.Is finds in a message that says more.
type quiet struct{ err error }

func (q quiet) Error() string { return "" }
func (q quiet) Unwrap() error { return q.err }

// makerGone reports whether the hidden directory name (.new-PID-*) was made
// by a process that is no longer alive; false when the name holds no pid.
func makerGone(name string) bool {
	if !fsx.HaveLocks { // where processes cannot be told apart (ProcessAlive is false), wait for staleAge
		return false
	}
	rest, _ := strings.CutPrefix(name, ".new-")
	p, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(p)
	return ok && err == nil && pid > 0 && pid != os.Getpid() && !ProcessAlive(pid)
}

// notDir says what to do when the store's path is a file (or goes through
// one): LPPCTL_RUN_DIR or --run-dir naming a file, which read as "open
// FILE: not a directory" and named neither.
func (s *Store) notDir(err error) error {
	if !errors.Is(err, syscall.ENOTDIR) {
		return err
	}
	return fmt.Errorf("%w: the run store %s is a file, or lies under one, not a folder; keep the runs in a folder with --run-dir DIR or LPPCTL_RUN_DIR=DIR", err, s.Dir)
}
