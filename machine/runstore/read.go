package runstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"os"

	"github.com/lppctl/lppctl/machine"
)

// Log is a journal as read back.
type Log struct {
	// Entries holds the journal's lines in order: every line when read with
	// ReadJournal; with ScanJournal, the markers, the steps that took a
	// person's answer and the last step (what resume decides on).
	Entries []*Entry
	// Records holds every step, in order (ReadJournal only). A step that
	// changed keys of a map holds only the keys it set in that map
	// (Record.MapKeys names them and the ones it removed): a Walker gives
	// the steps with their maps whole, as Fold does.
	Records []*machine.Record
	// Torn is the byte length of an incomplete or unreadable last line that
	// was ignored (a crash in the middle of a write); 0 when none.
	Torn     int
	TornLine int // its line number
	steps    int
	last     *machine.Record
	good     int64
	name     string // the journal's path, for messages
}

// TornNote describes the ignored torn line, or returns "".
func (l *Log) TornNote() string {
	if l.Torn == 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d: ignored a torn last line (%d bytes) left by an interrupted write", l.name, l.TornLine, l.Torn)
}

// Steps returns the number of committed steps.
func (l *Log) Steps() int { return l.steps }

// LastStep returns the last committed step, or nil.
func (l *Log) LastStep() *machine.Record { return l.last }

// Last returns the last marker or step entry, or nil.
func (l *Log) Last() *Entry {
	if len(l.Entries) == 0 {
		return nil
	}
	return l.Entries[len(l.Entries)-1]
}

// ReadJournal reads the run's journal, every line of it. A torn last line
// (no trailing newline, or not valid JSON) is ignored and reported in
// Log.Torn; a bad line anywhere else is an error naming the line, and so is
// a journal that holds less than its CommitFile says was committed.
func (r *Run) ReadJournal() (*Log, error) { return r.scan(true, nil) }

// ScanJournal reads the run's journal as ReadJournal does, but streams it:
// each step goes to each (when not nil) as it is read, and the Log keeps
// only what resume decides on (see Log.Entries), so that reading a long run
// holds one step at a time.
func (r *Run) ScanJournal(each func(*machine.Record) error) (*Log, error) {
	return r.scan(false, each)
}

func (r *Run) scan(keep bool, each func(*machine.Record) error) (*Log, error) {
	dec := newDecoder()
	dec.partial = keep
	return r.scanWith(dec, keep, each)
}

func (r *Run) scanWith(dec *decoder, keep bool, each func(*machine.Record) error) (*Log, error) {
	path := r.Path(JournalFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read journal: %w", err)
	}
	defer f.Close()
	c, hasCommit, err := r.readCommit()
	if err != nil {
		return nil, fmt.Errorf("cannot read journal: %w", err)
	}
	s := &scanner{log: &Log{name: path}, dec: dec, keep: keep, each: each, at: -1, routing: dec.heads && !keep && each == nil}
	if hasCommit {
		s.at = c.Size
	}
	if err := s.read(f); err != nil {
		return nil, err
	}
	if err := s.checkOwner(r.Meta.ID); err != nil {
		return nil, fmt.Errorf("cannot read journal: %w", err)
	}
	if hasCommit {
		if err := s.check(c); err != nil {
			return nil, fmt.Errorf("cannot read journal: %w", err)
		}
	}
	return s.log, nil
}

// ParseJournal reads journal lines from b (see ReadJournal; there is no
// commit record to compare with).
func ParseJournal(b []byte) (*Log, error) {
	dec := newDecoder()
	dec.partial = true
	s := &scanner{log: &Log{name: JournalFile}, dec: dec, keep: true, at: -1}
	if err := s.read(bytes.NewReader(b)); err != nil {
		return nil, err
	}
	return s.log, nil
}

// scanner reads a journal line by line.
type scanner struct {
	log   *Log
	dec   *decoder
	keep  bool
	each  func(*machine.Record) error
	lines int    // complete lines read
	chain uint32 // CRC-32C of the complete lines read
	at    int64  // where the commit record says the committed lines end (-1: none)
	atCRC uint32 // the chain there
	atOK  bool   // a line ended there
	// routing reads only what Recover decides on: a plain step line (see
	// passOver) followed by another is checked but not decoded.
	routing     bool
	pending     []byte // the last plain step line passed over, not yet decoded
	pendingLine int
	tail        *Entry // the scanner's own entry that holds the last plain step kept (add)
	first       string // the type of the first entry
	owner       string // the run ID its start marker names
}

func (s *scanner) read(rd io.Reader) error {
	l := s.log
	br := bufio.NewReaderSize(rd, 64<<10)
	off := l.good // 0, or where a Tail read to last
	for {
		raw, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull { // a long line: ReadSlice's buffer is reused by the next read
			head := append([]byte(nil), raw...)
			rest, rerr := br.ReadBytes('\n')
			raw, err = append(head, rest...), rerr
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("cannot read journal: %w", err)
		}
		if len(raw) == 0 {
			return s.flush()
		}
		line := s.lines + 1
		if err == io.EOF { // no newline: a write that did not finish
			l.Torn, l.TornLine = len(raw), line
			return s.flush()
		}
		text := raw[:len(raw)-1]
		if s.routing && s.passOver(text, line, br) {
			// checked, and its routing set aside (s.pending)
		} else if len(bytes.TrimSpace(text)) > 0 {
			if err := s.flush(); err != nil {
				return err
			}
			e, derr := s.dec.decode(text)
			if derr == nil {
				derr = s.add(e)
			}
			if derr != nil {
				if errors.Is(derr, errBadJSON) && s.atEnd(br) { // the last line: torn
					l.Torn, l.TornLine = len(raw), line
					return nil
				}
				return fmt.Errorf("cannot read journal: %s:%d: %w", l.name, line, derr)
			}
		}
		s.lines++
		s.chain = crc32.Update(s.chain, crcTable, raw)
		off += int64(len(raw))
		l.good = off
		if off == s.at {
			s.atCRC, s.atOK = s.chain, true
		}
	}
}

// passOver checks a line that Recover's reading need not decode: a step
// line as the journal writes it, with its checksum (the line is as it was
// written), the next step's number, no answer and no event, that is not the
// last line. Such a step is kept only as the routing of the last of a run
// of plain steps (scanner.add): the line is set aside (s.pending) and
// decoded only if no plain step follows it. Its variables are not read, so
// a line whose checksum holds but whose JSON does not (it was forged) is an
// error when Replay reads it, with the same message. It reports false, having
// done nothing, for any other line.
func (s *scanner) passOver(text []byte, line int, br *bufio.Reader) bool {
	const head = `{"type":"step","seq":`
	if s.first == "" || !bytes.HasPrefix(text, []byte(head)) {
		return false
	}
	seq, i := 0, len(head)
	for ; i < len(text) && i < len(head)+18 && text[i] >= '0' && text[i] <= '9'; i++ {
		seq = seq*10 + int(text[i]-'0')
	}
	if i == len(head) || text[len(head)] == '0' || seq != s.log.steps+1 {
		return false
	}
	// ,"from":"F","to":"T","via":"V": a via that takes no event.
	rest := text[i:]
	for _, member := range []string{`,"from":"`, `","to":"`, `","via":"`} {
		if !bytes.HasPrefix(rest, []byte(member)) {
			return false
		}
		rest = rest[len(member):]
		if member != `","via":"` {
			end := bytes.IndexByte(rest, '"')
			if end < 0 {
				return false
			}
			rest = rest[end:]
		}
	}
	if tookEvent(string(rest[:min(len(rest), 6)])) || bytes.Contains(rest, []byte(`"input":`)) {
		return false
	}
	// Not the last line: bytes follow it in br's buffer (br.Peek would
	// refill the buffer, which holds text).
	if has, err := checkLineCRC(text); !has || err != nil || br.Buffered() == 0 {
		return false
	}
	s.dec.sawCRC = true
	s.pending, s.pendingLine = append(s.pending[:0], text...), line
	s.log.steps = seq
	return true
}

// flush decodes the plain step line passOver set aside last, if any.
func (s *scanner) flush() error {
	if s.pendingLine == 0 {
		return nil
	}
	line := s.pendingLine
	s.pendingLine = 0
	s.log.steps--
	e, err := s.dec.decode(s.pending)
	if err == nil {
		err = s.add(e)
	}
	if err != nil {
		return fmt.Errorf("cannot read journal: %s:%d: %w", s.log.name, line, err)
	}
	return nil
}

// atEnd reports whether nothing follows in br.
func (s *scanner) atEnd(br *bufio.Reader) bool {
	_, err := br.Peek(1)
	return err == io.EOF
}

var errBadJSON = errors.New("invalid JSON")

func (s *scanner) add(e *Entry) error {
	l := s.log
	if s.first == "" {
		s.first = e.Type
		if e.Type == EntryStart && e.Meta != nil {
			s.owner = e.Meta.ID
		}
	}
	if e.Type != EntryStep {
		e.Record = nil // markers carry no step
		l.Entries = append(l.Entries, e)
		return nil
	}
	if e.Record == nil {
		return errors.New("a step without a record")
	}
	if want := l.steps + 1; e.Seq != want {
		return fmt.Errorf("step %d where step %d was expected (a step committed twice or lost)", e.Seq, want)
	}
	if s.each != nil {
		if err := s.each(e.Record); err != nil {
			return &replayError{err}
		}
	}
	l.steps, l.last = e.Seq, e.Record
	if s.keep {
		l.Records = append(l.Records, e.Record)
		l.Entries = append(l.Entries, e)
		return nil
	}
	// Only the last of a run of plain steps is kept: what matters to resume
	// is whether a step follows a marker, and which steps took an answer or
	// an event. A step without an answer is kept as its routing, in an
	// entry of the scanner's own (e may be the decoder's, reused for the
	// next line), the same one while plain steps follow each other.
	if e.Input != nil {
		if s.dec.reuse && e.Record == &s.dec.one.rec { // not so far: fastStep reads no answers
			e = cloneStep(e)
		}
		l.Entries = append(l.Entries, e)
		l.last, s.tail = e.Record, nil
		return nil
	}
	n := len(l.Entries)
	kept := s.tail
	if kept == nil || n == 0 || l.Entries[n-1] != kept || tookEvent(kept.Via) {
		kept = &Entry{Record: &machine.Record{}}
		l.Entries = append(l.Entries, kept)
	}
	rec := kept.Record
	*kept = *e
	kept.Record = rec
	*rec = machine.Record{Seq: e.Seq, From: e.From, To: e.To, Via: e.Via, Action: e.Action, Start: e.Start, Duration: e.Duration, End: e.End}
	l.last, s.tail = rec, kept
	return nil
}

// cloneStep copies a step entry and its record (their maps too).
func cloneStep(e *Entry) *Entry {
	c, rec := *e, *e.Record
	rec.Vars, rec.Appended = maps.Clone(rec.Vars), maps.Clone(rec.Appended)
	c.Record = &rec
	return &c
}

// checkOwner refuses the journal of another run than id (copied over).
func (s *scanner) checkOwner(id string) error {
	if s.owner != "" && id != "" && s.owner != id {
		return fmt.Errorf("%s:1: the journal is run %s's, not this run's (copied over?)", s.log.name, s.owner)
	}
	return nil
}

// check compares what was read with the commit record.
func (s *scanner) check(c commit) error {
	l := s.log
	if l.good < c.Size && s.lines < c.Lines {
		if s.first != "" && s.first != EntryStart {
			return fmt.Errorf("%s:1: %w: the journal does not begin with the run's start marker: its beginning is lost (truncated or replaced), and the run cannot be rebuilt without it", l.name, ErrLost)
		}
		return &LostError{Path: l.name, Lines: s.lines, Steps: l.steps, Cut: l.Torn > 0, Committed: c}
	}
	if !s.atOK || s.atCRC != c.Chain {
		return fmt.Errorf("%s: its first %d bytes are not the %d lines that were committed (%s): lines were changed, replaced or reordered, and the run cannot be rebuilt from them", l.name, c.Size, c.Lines, CommitFile)
	}
	return nil
}

// CopyJournal writes to w the lines of the run's journal that l holds, as
// they are in the file: the journal's own encoding, in which a step's list
// is the items it appended (vars_append) and its map the keys it changed
// (vars_patch), each line with its checksum. So the copy is as long as the
// journal, where entries with every step's values whole grow with the
// square of a run whose list or map grows at each step. A torn last line
// that l ignored is left out, and so is whatever was written after l was
// read (a run still going on).
func (r *Run) CopyJournal(w io.Writer, l *Log) error {
	f, err := os.Open(r.Path(JournalFile))
	if err != nil {
		return fmt.Errorf("cannot copy journal: %w", err)
	}
	defer f.Close()
	if _, err := io.CopyN(w, f, l.good); err != nil {
		if err == io.EOF {
			err = fmt.Errorf("%s is shorter than when it was read (%d bytes)", r.Path(JournalFile), l.good)
		}
		return fmt.Errorf("cannot copy journal: %w", err)
	}
	return nil
}

// Repair cuts a torn last line off the run's journal so that new lines start
// on a line of their own. It does nothing when the log has no torn line.
func (r *Run) Repair(l *Log) error {
	if l.Torn == 0 {
		return nil
	}
	f, err := os.OpenFile(r.Path(JournalFile), os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("cannot repair journal: %w", err)
	}
	defer f.Close()
	if err := f.Truncate(l.good); err != nil {
		return fmt.Errorf("cannot repair journal: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("cannot repair journal: %w", err)
	}
	return nil
}

// LostError says that the journal holds fewer lines than its CommitFile
// records as committed: lines were lost from its end.
type LostError struct {
	Path         string // the journal
	Lines, Steps int    // the complete lines and steps it holds
	Cut          bool   // it ends with a line cut short
	Committed    commit
}

func (e *LostError) Error() string {
	c := e.Committed
	what := fmt.Sprintf("%s (%s)", count(e.Lines, "complete line"), count(e.Steps, "step"))
	if e.Cut {
		what += " and a line cut short"
	}
	lost := fmt.Sprintf("lines %d–%d", e.Lines+1, c.Lines)
	if e.Lines+1 == c.Lines {
		lost = fmt.Sprintf("line %d", c.Lines)
	}
	switch {
	case c.Steps == e.Steps+1:
		lost += fmt.Sprintf(" (step %d)", c.Steps)
	case c.Steps > e.Steps:
		lost += fmt.Sprintf(" (steps %d–%d)", e.Steps+1, c.Steps)
	}
	verb := "are"
	if e.Lines+1 == c.Lines {
		verb = "is"
	}
	return fmt.Sprintf("%s holds %s, but %s (%s) were committed (%s): %s %s lost (the file was cut short or lines were deleted), and the run cannot be rebuilt without them", e.Path, what, count(c.Lines, "line"), count(c.Steps, "step"), CommitFile, lost, verb)
}

// count renders "1 step", "2 steps".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Is makes errors.Is(err, ErrLost) hold.
func (e *LostError) Is(target error) bool { return target == ErrLost }

// replayError is an error of ScanJournal's callback, returned as it is by
// Recovery.Replay.
type replayError struct{ err error }

func (e *replayError) Error() string { return e.err.Error() }
func (e *replayError) Unwrap() error { return e.err }
