package runstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/lppctl/lppctl/machine"
)

// Fsync is the journal's durability policy.
type Fsync string

// Fsync policies.
const (
	// FsyncAlways syncs the journal after every line: a committed step
	// survives a crash of the machine, not only of the process. The default.
	FsyncAlways Fsync = "always"
	// FsyncNever leaves flushing to the operating system: every line is still
	// written (one write call) before the next action starts, so a killed
	// process loses nothing, but a power loss may lose the last steps.
	FsyncNever Fsync = "never"
)

// ParseFsync reads an fsync policy name.
func ParseFsync(s string) (Fsync, error) {
	switch Fsync(s) {
	case FsyncAlways, "":
		return FsyncAlways, nil
	case FsyncNever:
		return FsyncNever, nil
	}
	return "", fmt.Errorf("cannot use fsync policy %q: want always or never", s)
}

// Entry types of the journal.
const (
	EntryStep      = "step"      // a committed step: the embedded Record
	EntryStart     = "start"     // the run started
	EntryResume    = "resume"    // the run was resumed (with the person's answer, if any)
	EntryPause     = "pause"     // the run paused for a person
	EntryInterrupt = "interrupt" // the run was stopped by Ctrl-C at a clean point
	EntryFail      = "fail"      // the run failed
)

// Entry is one journal line: a step (the machine.Record's fields inline) or a marker.
type Entry struct {
	Type string    `json:"type"`
	At   time.Time `json:"at,omitzero"` // markers: when
	*machine.Record
	Pause   *machine.PauseError `json:"pause,omitempty"`  // pause: what the person is asked
	Answer  *machine.Input      `json:"answer,omitempty"` // resume: the person's answer
	State   string              `json:"state,omitempty"`  // markers: the state the run stands in
	Message string              `json:"message,omitempty"`
	// Meta is a copy of run.json as it was when the run started or was
	// resumed (start and resume markers), from which a lost or corrupt
	// run.json is rebuilt.
	Meta *Meta `json:"meta,omitempty"`
}

// encodeEntry renders e as one journal line (with its newline).
func encodeEntry(e *Entry) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return nil, fmt.Errorf("cannot write journal: %w", err)
	}
	return buf.Bytes(), nil
}

// Journal appends entries to a run's journal.jsonl. It is a machine.Observer:
// each step is written (and synced under FsyncAlways) before OnStep returns,
// so before the next action starts.
//
// A write or sync that fails cuts the file back to where the line began (a
// half-written line must not stay in the middle of the journal) and leaves
// the journal unusable: every later Append fails, so that nothing runs
// unjournaled.
type Journal struct {
	f      *os.File
	policy Fsync
	buf    bytes.Buffer
	enc    *json.Encoder
	now    func() time.Time
	size   int64 // the file's length: where the next line starts
	err    error // the write error that made the journal unusable
	steps  int   // the last step committed (its seq)
	state  string
}

// OpenJournal opens the run's journal for appending with the given policy.
// Call it after ReadJournal, which cuts a torn last line off.
func (r *Run) OpenJournal(policy Fsync) (*Journal, error) {
	f, err := os.OpenFile(r.Path(JournalFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot open journal: %w", err)
	}
	j := newJournal(f, policy)
	if fi, err := f.Stat(); err == nil {
		j.size = fi.Size()
	}
	return j, nil
}

func newJournal(f *os.File, policy Fsync) *Journal {
	j := &Journal{f: f, policy: policy, now: time.Now}
	j.enc = json.NewEncoder(&j.buf)
	j.enc.SetEscapeHTML(false)
	return j
}

// SetCommitted tells the journal the last step already in it (a resumed
// run's), for Committed.
func (j *Journal) SetCommitted(seq int, state string) { j.steps, j.state = seq, state }

// Committed returns the seq of the last step the journal holds and the state
// the run stands in after it, as far as this process knows (SetCommitted and
// the steps written since).
func (j *Journal) Committed() (int, string) { return j.steps, j.state }

// Err returns the write error that made the journal unusable, or nil.
func (j *Journal) Err() error { return j.err }

// OnStep appends the step's record.
func (j *Journal) OnStep(_ context.Context, rec *machine.Record) error {
	if err := j.Append(&Entry{Type: EntryStep, Record: rec}); err != nil {
		return err
	}
	j.steps, j.state = rec.Seq, rec.To
	if rec.End {
		j.state = rec.From
	}
	return nil
}

// Mark appends a marker entry (its At is set when zero).
func (j *Journal) Mark(e *Entry) error {
	if e.At.IsZero() {
		e.At = j.now()
	}
	return j.Append(e)
}

// Append writes one entry as one line, in one write call, and syncs it under FsyncAlways.
func (j *Journal) Append(e *Entry) error {
	if j.err != nil {
		return fmt.Errorf("cannot write journal: it is unusable after an earlier error: %w", j.err)
	}
	j.buf.Reset()
	if err := j.enc.Encode(e); err != nil {
		return fmt.Errorf("cannot write journal: %w", err)
	}
	line := j.buf.Bytes()
	CrashPoint("journal-before-write")
	if crashArmed("journal-mid-write") {
		_, _ = j.f.Write(line[:len(line)/2])
		_ = j.f.Sync()
		killSelf()
	}
	if _, err := j.f.Write(line); err != nil {
		return j.fail(fmt.Errorf("cannot write journal: %w", err))
	}
	if j.policy != FsyncNever {
		if err := j.f.Sync(); err != nil {
			return j.fail(fmt.Errorf("cannot sync journal: %w", err))
		}
	}
	j.size += int64(len(line))
	CrashPoint("journal-after-write")
	return nil
}

// fail records a write error: the line, or what was written of it, is cut
// off and the journal refuses further lines.
func (j *Journal) fail(err error) error {
	j.err = err
	_ = j.f.Truncate(j.size)
	_ = j.f.Sync()
	return err
}

// Sync flushes the journal to disk (for FsyncNever, before run.json says
// how many steps it holds).
func (j *Journal) Sync() error {
	if j.err != nil || j.policy != FsyncNever {
		return nil
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("cannot sync journal: %w", err)
	}
	return nil
}

// Close closes the journal file.
func (j *Journal) Close() error { return j.f.Close() }

// Log is a journal as read back.
type Log struct {
	Entries []*Entry
	Records []*machine.Record // the steps, in order
	// Torn is the byte length of an incomplete or unreadable last line that
	// was ignored (a crash in the middle of a write); 0 when none.
	Torn     int
	TornLine int // its line number
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

// ReadJournal reads the run's journal. A torn last line (no trailing newline,
// or not valid JSON) is ignored and reported in Log.Torn; a bad line anywhere
// else is an error naming the line.
func (r *Run) ReadJournal() (*Log, error) {
	b, err := os.ReadFile(r.Path(JournalFile))
	if err != nil {
		return nil, fmt.Errorf("cannot read journal: %w", err)
	}
	return parseJournal(b, r.Path(JournalFile))
}

// ParseJournal reads journal lines from b (see ReadJournal).
func ParseJournal(b []byte) (*Log, error) { return parseJournal(b, JournalFile) }

func parseJournal(b []byte, name string) (*Log, error) {
	l := &Log{name: name}
	line := 0
	for off := 0; off < len(b); {
		line++
		end := bytes.IndexByte(b[off:], '\n')
		if end < 0 { // no newline: a write that did not finish
			l.Torn, l.TornLine = len(b)-off, line
			break
		}
		text := b[off : off+end]
		next := off + end + 1
		if len(bytes.TrimSpace(text)) == 0 {
			off = next
			l.good = int64(off)
			continue
		}
		e, err := decodeEntry(text)
		if err == nil {
			err = l.add(e)
		}
		if err != nil {
			if next == len(b) && errors.Is(err, errBadJSON) { // the last line: torn
				l.Torn, l.TornLine = len(b)-off, line
				break
			}
			return nil, fmt.Errorf("cannot read journal: %s:%d: %w", name, line, err)
		}
		off = next
		l.good = int64(off)
	}
	return l, nil
}

var errBadJSON = errors.New("invalid JSON")

func decodeEntry(text []byte) (*Entry, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	e := &Entry{}
	if err := dec.Decode(e); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadJSON, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: more than one value on the line", errBadJSON)
	}
	if e.Type == "" {
		return nil, fmt.Errorf("%w: no type", errBadJSON)
	}
	if e.Record != nil {
		e.Record.Vars = normalizeMap(e.Record.Vars)
	}
	return e, nil
}

func (l *Log) add(e *Entry) error {
	if e.Type == EntryStep {
		if e.Record == nil {
			return errors.New("a step without a record")
		}
		want := len(l.Records) + 1
		if e.Seq != want {
			return fmt.Errorf("step %d where step %d was expected (a step committed twice or lost)", e.Seq, want)
		}
		l.Records = append(l.Records, e.Record)
	} else {
		e.Record = nil // markers carry no step
	}
	l.Entries = append(l.Entries, e)
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

// Steps returns the number of committed steps.
func (l *Log) Steps() int { return len(l.Records) }

// Last returns the last marker or step entry, or nil.
func (l *Log) Last() *Entry {
	if len(l.Entries) == 0 {
		return nil
	}
	return l.Entries[len(l.Entries)-1]
}

// normalizeMap turns json.Numbers into int when integral, else float64,
// so that replayed values have the types a fresh run would have.
func normalizeMap(m map[string]any) map[string]any {
	for k, v := range m {
		m[k] = machine.NormalizeJSON(v)
	}
	return m
}

var _ machine.Observer = (*Journal)(nil)
var _ io.Closer = (*Journal)(nil)
