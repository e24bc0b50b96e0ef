package runstore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// CheckJournal checks the run's journal for listings, without decoding it:
// an error wrapping ErrLost when the file is shorter than the lines that
// were committed; an error naming the line when a line's own checksum does
// not match its content (a flipped byte, an edit), or a line has none after
// lines that have one; and an error when the committed bytes are not the
// ones CommitFile records (lines swapped, replaced or duplicated in place).
// It reads the file once and computes CRC-32C over it; ReadJournal, which
// resume uses, checks all of this and decodes every line.
func (r *Run) CheckJournal() error {
	c, hasCommit, err := r.readCommit()
	if err != nil {
		return err
	}
	path := r.Path(JournalFile)
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("cannot read journal: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("cannot read journal: %w", err)
	}
	if hasCommit && fi.Size() < c.Size {
		return fmt.Errorf("%w: %s is %d bytes long, but %s (%s, %d bytes) were committed (%s)", ErrLost, path, fi.Size(), count(c.Lines, "line"), count(c.Steps, "step"), c.Size, CommitFile)
	}
	v := lineVerifier{path: path, at: -1}
	if hasCommit {
		v.at = c.Size
	}
	if err := v.read(f); err != nil {
		return err
	}
	if hasCommit && (!v.atOK || v.atCRC != c.Chain) {
		return fmt.Errorf("cannot read journal: %s: its first %d bytes are not the %d lines that were committed (%s): lines were changed, replaced or reordered, and the run cannot be rebuilt from them", path, c.Size, c.Lines, CommitFile)
	}
	return r.CheckChildren()
}

// CheckChildren checks (CheckJournal) the journals of the runs kept in the
// run's directory (child runs, in children/), which its resume resumes: a
// damaged one makes the run damaged too.
func (r *Run) CheckChildren() error {
	ents, err := os.ReadDir(r.Dir)
	if err != nil {
		return nil // CheckJournal read the journal: the directory is there
	}
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		sub := filepath.Join(r.Dir, e.Name())
		kids, err := os.ReadDir(sub)
		if err != nil {
			continue
		}
		for _, k := range kids {
			child := &Run{Dir: filepath.Join(sub, k.Name())}
			if !k.IsDir() || strings.HasPrefix(k.Name(), ".") || !isRunDir(child.Dir) {
				continue
			}
			if err := child.CheckJournal(); err != nil {
				return fmt.Errorf("its child run %s/%s: %w", e.Name(), k.Name(), err)
			}
		}
	}
	return nil
}

// lineVerifier checks each complete line's checksum and computes the
// CRC-32C of the lines up to at (the committed size; -1: none).
type lineVerifier struct {
	path   string
	at     int64
	atCRC  uint32 // the chain where a line ended at at
	atOK   bool
	sawCRC bool // a line before had a checksum
}

func (v *lineVerifier) read(rd io.Reader) error {
	br := bufio.NewReaderSize(rd, 64<<10)
	var off int64
	var chain uint32
	for n := 1; ; n++ {
		raw, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull { // a long line: ReadSlice's buffer is reused by the next read
			head := append([]byte(nil), raw...)
			rest, rerr := br.ReadBytes('\n')
			raw, err = append(head, rest...), rerr
		}
		if err == io.EOF {
			return nil // a torn last line (or none) is not a committed one
		}
		if err != nil {
			return fmt.Errorf("cannot read journal: %w", err)
		}
		if err := v.line(raw[:len(raw)-1]); err != nil {
			if _, perr := br.Peek(1); perr == io.EOF && !json.Valid(raw[:len(raw)-1]) {
				// The last line, and not JSON: torn, as the journal's
				// reader takes it (scanner.read; its place against the
				// commit record is checked below).
				return nil
			}
			return fmt.Errorf("cannot read journal: %s:%d: %w", v.path, n, err)
		}
		chain = crc32.Update(chain, crcTable, raw)
		off += int64(len(raw))
		if off == v.at {
			v.atCRC, v.atOK = chain, true
		}
	}
}

// line checks one line's own checksum (as the decoder does).
func (v *lineVerifier) line(text []byte) error {
	if len(bytes.TrimSpace(text)) == 0 {
		return nil
	}
	has, err := checkLineCRC(text)
	if err != nil {
		return err
	}
	if !has && v.sawCRC {
		return fmt.Errorf("%w: the line has no checksum but the lines before it have one: it was changed or inserted after it was written, and the run cannot be rebuilt from it", errDamaged)
	}
	v.sawCRC = v.sawCRC || has
	return nil
}
