package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/lppctl/lppctl/internal/fsx"
)

// The usage log "<library>.usage.jsonl" records what searches used, so that
// a search appends one short line instead of rewriting the whole library
// file. Each line is one search:
//
//	{"base":"3f1c0a9be2d47c55","iteration":3,"used":["verify_output_paths"]}
//
// base is the content id of the library file the line applies to (see
// contentID). Loading merges the lines whose base is the current file's:
// usage_count+1 and last_used_iteration = max(itself, iteration) for each
// used skill that exists. Lines naming another base are ignored: they were
// already merged by a save that crashed before removing the log, or an
// older lppctl rewrote the file without knowing the log. A last line
// without its newline (a writer killed mid-append) is ignored, and the next
// writer cuts it off. Every full save (add, update, remove, apply, a search
// on a library file of at most directBytes, or a search once the log holds
// compactLines lines or compactBytes bytes) writes the merged counters into
// the file and removes the log.
//
// The first line of a log is its header, {"log":"<16 hex digits>"}, a
// random id written with the first search's line (see logHeader). Appends
// happen under the library lock and are fsynced before it is released; a
// log only grows while it exists, so readers merge it incrementally, but
// only within the log of the id they merged (see mergeLog).

// Compaction thresholds of the usage log (variables for tests). A library
// file of at most directBytes is rewritten on every search instead (a few
// hundred microseconds), so that the counters in the file itself stay exact
// for other programs reading it; only larger libraries use the log.
var (
	compactLines       = 1000
	compactBytes int64 = 1 << 20
	directBytes  int64 = 256 << 10
)

// usageLine is one line of the usage log.
type usageLine struct {
	Base      string   `json:"base"`
	Iteration int      `json:"iteration"`
	Used      []string `json:"used"`
}

// logHeader returns the first line of a new usage log: a random id that no
// other log has, so that a reader can tell this log from an earlier one
// that was removed and whose inode the file system gave to this one. Older
// lppctl versions ignore the line (it names no base).
func logHeader() []byte { return []byte(`{"log":"` + randomID() + `"}` + "\n") }

// readLogID returns the id in the header of the open log f, "" when it has
// none (written by an older lppctl, or its first line is not complete yet).
func readLogID(f *os.File) string {
	const pre, post = `{"log":"`, `"}` + "\n"
	var buf [len(pre) + saveTokenLen + len(post)]byte
	if n, _ := f.ReadAt(buf[:], 0); n != len(buf) {
		return ""
	}
	id := buf[len(pre) : len(pre)+saveTokenLen]
	if string(buf[:len(pre)]) != pre || string(buf[len(pre)+saveTokenLen:]) != post || bytes.ContainsAny(id, `"\`) {
		return ""
	}
	return string(id)
}

// mergeLog returns s with the usage log merged (l.mu held). logInfo is the
// log's stat taken before the file was loaded, nil when it did not exist.
// The log only grows while it exists, so s's merge is resumed from where it
// stopped, but only when the log is provably the one s merged: the same
// header id (an inode alone is not proof: a removed log's inode is reused
// by the next one, which may be as long or longer). Else it is merged from
// the start.
func (l *Library) mergeLog(s *snapshot, logInfo os.FileInfo) (*snapshot, error) {
	if logInfo == nil {
		return s.withoutLog(), nil
	}
	f, err := os.Open(l.logPath)
	if errors.Is(err, fs.ErrNotExist) {
		return s.withoutLog(), nil // compacted meanwhile
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	id := readLogID(f)
	from := int64(0)
	if s.logInfo != nil && s.logID != "" && s.logID == id && os.SameFile(s.logInfo, fi) && fi.Size() >= s.logOff {
		if fi.Size() == s.logOff {
			return s, nil // unchanged
		}
		from = s.logOff
	} else {
		s = s.withoutLog()
	}
	data, err := io.ReadAll(io.NewSectionReader(f, from, fi.Size()-from))
	if err != nil {
		return nil, err
	}
	data = data[:bytes.LastIndexByte(data, '\n')+1] // whole lines only
	n := *s
	n.logInfo, n.logID, n.logOff = fi, id, from+int64(len(data))
	cloned := false
	if from == 0 && id != "" { // the header is no search
		data = data[bytes.IndexByte(data, '\n')+1:]
	}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		line := data[:i]
		data = data[i+1:]
		n.logLines++
		var u usageLine
		if json.Unmarshal(line, &u) != nil || u.Base != s.base {
			continue
		}
		for _, name := range u.Used {
			i, ok := n.index[name]
			if !ok {
				continue // removed since
			}
			if !cloned {
				n.list, cloned = slices.Clone(n.list), true
			}
			sk := &n.list[i]
			sk.UsageCount++
			sk.LastUsedIteration = max(sk.LastUsedIteration, u.Iteration)
			n.maxIt = max(n.maxIt, sk.LastUsedIteration)
		}
	}
	return &n, nil
}

// recordUse records that a search used hits, under the lock, and refreshes
// their counters. Names removed meanwhile by another writer are skipped.
func (l *Library) recordUse(hits []Hit) error {
	return l.withLock(func(lk *os.File) error {
		s, err := l.loadHeld(lk)
		if err != nil {
			return err
		}
		it, err := l.currentIteration(s)
		if err != nil {
			return err
		}
		var used []string
		for _, h := range hits {
			if _, ok := s.index[h.Name]; ok {
				used = append(used, h.Name)
			}
		}
		if len(used) == 0 {
			return nil
		}
		if s.logLines+1 >= compactLines || s.logOff >= compactBytes || s.info == nil || s.info.Size() <= directBytes {
			err = l.mutateLocked(lk, func(m map[string]Skill) error {
				for _, name := range used {
					sk := m[name]
					sk.UsageCount++
					sk.LastUsedIteration = max(sk.LastUsedIteration, it)
					m[name] = sk
				}
				return nil
			})
		} else {
			line, _ := json.Marshal(usageLine{Base: s.base, Iteration: it, Used: used})
			err = appendLine(l.logPath, append(line, '\n'), logHeader())
		}
		if err != nil {
			return err
		}
		if s, err = l.loadHeld(lk); err != nil {
			return err
		}
		for i, h := range hits {
			if j, ok := s.index[h.Name]; ok {
				hits[i].Skill = s.list[j]
			}
		}
		return nil
	})
}

// appendLine appends line to the log at path and fsyncs it; call it under
// the lock. A torn last line (no newline: a writer was killed mid-append)
// is cut off first, so that it cannot swallow the new line. An empty log
// gets header (if any) first, in the same write.
func appendLine(path string, line, header []byte) (err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	if size > 0 {
		data := make([]byte, size)
		if _, err := f.ReadAt(data[size-1:], size-1); err != nil {
			return err
		}
		if data[size-1] != '\n' {
			if _, err := f.ReadAt(data, 0); err != nil && err != io.EOF {
				return err
			}
			size = int64(bytes.LastIndexByte(data, '\n') + 1)
			if err := f.Truncate(size); err != nil {
				return err
			}
		}
	}
	if size == 0 && header != nil {
		line = append(slices.Clip(header), line...)
	}
	if _, err := f.WriteAt(line, size); err != nil {
		return fmt.Errorf("cannot append to %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if size == 0 { // a new log: make its directory entry durable too
		return fsx.SyncDir(filepath.Dir(path))
	}
	return nil
}
