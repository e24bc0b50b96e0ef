package runstore

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lppctl/lppctl/internal/fsx"
)

// CommitFile records, outside the journal, how much of the journal is
// committed: after each line is written and synced, its number of lines and
// steps, its length and the CRC-32C of its content up to there. Reading the
// journal compares it with that record, so lines lost from the end (a file
// cut short, lines deleted) are told apart from the torn last line a crash in
// the middle of a write leaves, which alone may be dropped.
//
// The file holds two 64-byte slots, written in turn in place (the record of
// line n in slot n%2) and synced; each slot carries its own checksum, so a
// write torn by a power loss spoils one slot and the other still holds the
// record before it.
const CommitFile = "journal.commit"

// commitSlot is the size of one record.
const commitSlot = 64

// commit is how much of the journal is committed.
type commit struct {
	Lines int    // complete lines
	Steps int    // step lines among them
	Size  int64  // bytes, up to and including the last line's newline
	Chain uint32 // CRC-32C of those bytes
}

func (c commit) encode() []byte {
	head := fmt.Sprintf("%d %d %d %08x", c.Lines, c.Steps, c.Size, c.Chain)
	head += strings.Repeat(" ", commitSlot-10-len(head))
	return fmt.Appendf(nil, "%s %08x\n", head, crc32.Checksum([]byte(head), crcTable))
}

func decodeCommit(b []byte) (commit, bool) {
	if len(b) != commitSlot || b[commitSlot-1] != '\n' {
		return commit{}, false
	}
	head := b[:commitSlot-10]
	sum, err := strconv.ParseUint(string(b[commitSlot-9:commitSlot-1]), 16, 32)
	if err != nil || crc32.Checksum(head, crcTable) != uint32(sum) {
		return commit{}, false
	}
	f := strings.Fields(string(head))
	if len(f) != 4 {
		return commit{}, false
	}
	var c commit
	var err1, err2, err3, err4 error
	c.Lines, err1 = strconv.Atoi(f[0])
	c.Steps, err2 = strconv.Atoi(f[1])
	c.Size, err3 = strconv.ParseInt(f[2], 10, 64)
	chain, err4 := strconv.ParseUint(f[3], 16, 32)
	c.Chain = uint32(chain)
	if errors.Join(err1, err2, err3, err4) != nil || c.Lines < 0 || c.Steps < 0 || c.Size < 0 {
		return commit{}, false
	}
	return c, true
}

// readCommit returns the run's commit record; ok is false for a run that has
// none: made by an older version, its file deleted, or empty (a process that
// died between creating the file and writing its first record, or an older
// version's resume that failed before it wrote one). Such a journal is read
// as before commit records existed.
func (r *Run) readCommit() (c commit, ok bool, err error) {
	b, err := os.ReadFile(r.Path(CommitFile))
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(b) == 0 {
		return commit{}, false, nil
	}
	if err != nil {
		return commit{}, false, fmt.Errorf("cannot read %s: %w", CommitFile, err)
	}
	found := false
	for off := 0; off+commitSlot <= len(b); off += commitSlot {
		if s, valid := decodeCommit(b[off : off+commitSlot]); valid && (!found || s.Lines > c.Lines) {
			c, found = s, true
		}
	}
	if !found {
		return commit{}, false, fmt.Errorf("%s: neither of its records is readable (damaged): how much of the journal was committed is unknown", r.Path(CommitFile))
	}
	return c, true, nil
}

// committer keeps the commit record of a journal being written.
type committer struct {
	f    *os.File
	last commit
}

// openCommitter opens the run's commit record for writing, the journal
// being at cur (what the file holds now, from its end). A run that has no
// record yet (see readCommit) gets one for cur at once, so that the file is
// never left empty and a reader of the journal before its next line compares
// it with what it holds (ensureCommit).
func (r *Run) openCommitter(cur commit) (*committer, error) {
	f, err := os.OpenFile(r.Path(CommitFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot open %s: %w", CommitFile, err)
	}
	k := &committer{f: f, last: cur}
	if err := k.ensure(cur); err != nil {
		f.Close()
		return nil, err
	}
	return k, nil
}

// ensure writes cur into both slots of an empty commit file (new, or left
// empty), and syncs it with its directory. A damaged one is left as it is:
// reading the journal refuses it.
func (k *committer) ensure(cur commit) error {
	fi, err := k.f.Stat()
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", CommitFile, err)
	}
	if fi.Size() > 0 {
		return nil
	}
	rec := cur.encode()
	if _, err := k.f.WriteAt(append(rec, rec...), 0); err != nil {
		return fmt.Errorf("cannot write %s: %w", CommitFile, err)
	}
	if err := k.f.Sync(); err != nil {
		return fmt.Errorf("cannot sync %s: %w", CommitFile, err)
	}
	if err := fsx.SyncDir(filepath.Dir(k.f.Name())); err != nil {
		return fmt.Errorf("cannot sync %s: %w", CommitFile, err)
	}
	return nil
}

// write records c in its slot; sync syncs the file.
func (k *committer) write(c commit, sync bool) error {
	if _, err := k.f.WriteAt(c.encode(), int64(c.Lines%2)*commitSlot); err != nil {
		return fmt.Errorf("cannot write %s: %w", CommitFile, err)
	}
	if sync {
		if err := k.f.Sync(); err != nil {
			return fmt.Errorf("cannot sync %s: %w", CommitFile, err)
		}
	}
	k.last = c
	return nil
}

func (k *committer) close() error { return k.f.Close() }

// writeCommit creates the commit record of a new journal (Create).
func writeCommit(path string, c commit) error {
	var b bytes.Buffer
	b.Write(c.encode())
	b.Write(c.encode()) // both slots: the file is never half made
	return writeFileSync(path, b.Bytes())
}

// ErrLost is matched (errors.Is) by the errors that say committed journal
// lines are lost.
var ErrLost = errors.New("journal lines are lost")

// HasCommit reports whether the run's journal has a commit record (a
// readable one, or a damaged one that reading refuses); false for a run made
// before commit records, or whose record was deleted or left empty.
func (r *Run) HasCommit() (bool, error) {
	fi, err := os.Stat(r.Path(CommitFile))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("cannot read %s: %w", CommitFile, err)
	}
	return fi.Size() > 0, nil
}
