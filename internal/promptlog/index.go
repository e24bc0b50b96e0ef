package promptlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// Index finds values of a prompts file by ID without reading the whole file
// at each lookup: it reads the file once, keeping where each value's line
// is, then only the lines appended since (a file cut, replaced or rewritten
// is read again). A reader that looks values up again and again while the
// file grows (the UI's run page, at each refresh) reads what it shows, not
// the file (a 20 MB file: 118 ms a page read whole).
type Index struct {
	mu   sync.Mutex
	path string
	file os.FileInfo     // the file indexed (os.SameFile tells a replaced one)
	size int64           // bytes indexed: up to the end of the last whole line
	at   map[string]span // ID → its line
}

// span is a line's place in the file.
type span struct {
	off int64
	n   int
}

// NewIndex returns the index of the file path; it reads nothing yet.
func NewIndex(path string) *Index { return &Index{path: path} }

// Read returns the values of ids the file holds, by ID, as Read does: a
// missing file holds nothing; an unreadable line holds nothing.
func (x *Index) Read(ids []string) (map[string]json.RawMessage, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := map[string]json.RawMessage{}
	f, err := os.Open(x.path)
	if os.IsNotExist(err) {
		x.reset(nil)
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the model calls' messages: %w", err)
	}
	defer f.Close()
	for attempt := 0; ; attempt++ {
		if err := x.update(f); err != nil {
			return nil, fmt.Errorf("cannot read the model calls' messages: %w", err)
		}
		stale := false
		for _, id := range ids {
			sp, ok := x.at[id]
			if !ok {
				continue
			}
			if v, ok := readLine(f, sp, id); ok {
				out[id] = v
			} else {
				stale = true // the file was rewritten in place
			}
		}
		if !stale || attempt == 1 {
			break
		}
		x.reset(nil) // read it again, once
		clear(out)
	}
	return out, nil
}

// reset forgets what was indexed (fi: the file to index from its start).
func (x *Index) reset(fi os.FileInfo) {
	x.file, x.size, x.at = fi, 0, map[string]span{}
}

// update indexes the lines of f appended since it last read it (all of
// them when f is another file, or shorter than what was read).
func (x *Index) update(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if x.file == nil || !os.SameFile(x.file, fi) || fi.Size() < x.size {
		x.reset(fi)
	}
	if fi.Size() == x.size {
		return nil
	}
	if _, err := f.Seek(x.size, io.SeekStart); err != nil {
		return err
	}
	start, base := int64(0), x.size
	err = scan(f, func(id string, _ json.RawMessage, end int64) {
		if id != "" {
			x.at[id] = span{off: base + start, n: int(end - start)}
		}
		start = end
		x.size = base + end
	})
	return err
}

// readLine reads the line at sp and returns its value when it is id's.
func readLine(f *os.File, sp span, id string) (json.RawMessage, bool) {
	b := make([]byte, sp.n)
	if _, err := f.ReadAt(b, sp.off); err != nil {
		return nil, false
	}
	// As Put writes it: {"id":"ID","v":VALUE} (the value is checked where it
	// is decoded); any other shape is decoded.
	head := `{"id":"` + id + `","v":`
	if b = bytes.TrimRight(b, "\r\n"); bytes.HasPrefix(b, []byte(head)) && len(b) > len(head)+1 && b[len(b)-1] == '}' {
		if v := b[len(head) : len(b)-1]; len(bytes.TrimSpace(v)) == len(v) && json.Valid(v) { // not `1,"x":2`, nor `{} `
			return v, true
		}
	}
	var ln line
	if json.Unmarshal(b, &ln) != nil || ln.ID != id || len(ln.V) == 0 {
		return nil, false
	}
	return ln.V, true
}
