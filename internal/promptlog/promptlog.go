// Package promptlog stores the messages of a run's model calls compactly: a
// JSON value (a message, the tools offered, a reply) is written once, as one
// line {"id": ID, "v": VALUE} of the run's prompts.jsonl, and the call's line
// in llm.jsonl names it by ID, the start of its SHA-256. Consecutive calls
// repeat the same system prompt and history, so the file grows with the
// distinct text, not with the calls.
//
// The lines of a call are written (in one write) before the call's line in
// llm.jsonl, so whatever that line names is there. A process killed in the
// middle of a write leaves a torn last line: readers skip it, and the next
// writer cuts it off before it appends (and writes that value again).
package promptlog

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// line is one line of the file.
type line struct {
	ID string          `json:"id"`
	V  json.RawMessage `json:"v"`
}

// ID is the name of a value: the first 128 bits of the SHA-256 of its JSON, in hex.
func ID(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:16])
}

// Log appends values to a file, each once. It is safe for concurrent use.
type Log struct {
	path  string    // the file, opened for each Put ("" with w)
	w     io.Writer // or a writer (tests)
	mu    sync.Mutex
	known map[string]bool // the values in the file
	ready bool            // known read from the file, its torn line cut
}

// Open returns the log of the file path, created at the first Put. It reads
// nothing yet.
func Open(path string) *Log { return &Log{path: path, known: map[string]bool{}} }

// New returns a log writing to w, which holds nothing yet.
func New(w io.Writer) *Log { return &Log{w: w, known: map[string]bool{}, ready: true} }

// Put stores each value not stored yet and returns their IDs. Values are
// stored as their JSON (json.Marshal).
func (l *Log) Put(vals ...any) ([]string, error) {
	ids := make([]string, len(vals))
	var buf bytes.Buffer
	fresh := map[string]bool{}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.prime(); err != nil {
		return nil, err
	}
	for i, v := range vals {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("cannot store a model call's message: %w", err)
		}
		ids[i] = ID(raw)
		if l.known[ids[i]] || fresh[ids[i]] {
			continue
		}
		fresh[ids[i]] = true
		b, _ := json.Marshal(line{ID: ids[i], V: raw})
		buf.Write(append(b, '\n'))
	}
	if buf.Len() == 0 {
		return ids, nil
	}
	if err := l.write(buf.Bytes()); err != nil {
		return nil, err
	}
	for id := range fresh {
		l.known[id] = true
	}
	return ids, nil
}

func (l *Log) write(b []byte) error {
	if l.w != nil {
		_, err := l.w.Write(b)
		return err
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("cannot store the model call's messages: %w", err)
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cannot store the model call's messages: %w", err)
	}
	return nil
}

// prime reads the IDs already in the file and cuts a torn last line off.
func (l *Log) prime() error {
	if l.ready {
		return nil
	}
	f, err := os.OpenFile(l.path, os.O_RDWR, 0)
	if os.IsNotExist(err) {
		l.ready = true
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", l.path, err)
	}
	defer f.Close()
	whole := int64(0) // bytes up to the end of the last whole line
	err = scan(f, func(id string, _ json.RawMessage, end int64) {
		if id != "" {
			l.known[id] = true
		}
		whole = end
	})
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", l.path, err)
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > whole {
		if err := f.Truncate(whole); err != nil {
			return fmt.Errorf("cannot cut the torn last line of %s: %w", l.path, err)
		}
	}
	l.ready = true
	return nil
}

// scan calls fn for each whole line of r with its ID and value ("" and nil
// for a line that is not one of ours) and the offset just past the line.
func scan(r io.Reader, fn func(id string, v json.RawMessage, end int64)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	off := int64(0)
	for {
		b, err := br.ReadBytes('\n')
		if err == io.EOF {
			return nil // a torn last line (no newline) is not a line
		}
		if err != nil {
			return err
		}
		off += int64(len(b))
		var ln line
		if json.Unmarshal(b, &ln) != nil || ln.ID == "" || len(ln.V) == 0 {
			fn("", nil, off)
			continue
		}
		fn(ln.ID, ln.V, off)
	}
}

// Read returns the values of the file path that want accepts (all when
// want is nil), by ID. A missing file holds nothing; unreadable lines are
// skipped.
func Read(path string, want func(id string) bool) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the model calls' messages: %w", err)
	}
	defer f.Close()
	err = scan(f, func(id string, v json.RawMessage, _ int64) {
		if id != "" && (want == nil || want(id)) {
			out[id] = v
		}
	})
	if err != nil {
		return nil, fmt.Errorf("cannot read the model calls' messages: %w", err)
	}
	return out, nil
}
