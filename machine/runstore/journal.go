package runstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strings"
	"time"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
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

// Journal appends entries to a run's journal.jsonl. It is a machine.Observer:
// each step is written (and synced under FsyncAlways) before OnStep returns,
// so before the next action starts, and CommitFile then records it.
//
// Under FsyncAlways a routing-only step (routingOnly: a state without an
// action or with noop, no memory change, no answer, no event) is written but not synced
// on its own: the next synced line covers it, and a crash before that loses
// only a step that resume recomputes from the lines before it.
//
// A write or sync that fails cuts the file back to where the line began (a
// half-written line must not stay in the middle of the journal) and leaves
// the journal unusable: every later Append fails, so that nothing runs
// unjournaled. So does an entry that cannot be encoded (ErrUnencodable),
// though nothing of it was written.
type Journal struct {
	f      *os.File
	policy Fsync
	codec  *encoder
	commit *committer
	now    func() time.Time
	cur    commit // what the file holds (Size: where the next line starts)
	dirty  bool   // lines written since the last sync
	err    error  // the error that made the journal unusable
	steps  int    // the last step committed (its seq)
	state  string
}

// OpenJournal opens the run's journal for appending with the given policy.
// Call it after ReadJournal, which cuts a torn last line off.
func (r *Run) OpenJournal(policy Fsync) (*Journal, error) {
	f, err := os.OpenFile(r.Path(JournalFile), os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot open journal: %w", err)
	}
	cur, err := r.journalEnd(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot open journal: %w", err)
	}
	k, err := r.openCommitter(cur)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Journal{f: f, policy: policy, codec: newEncoder(), commit: k, now: time.Now, cur: cur}, nil
}

// journalEnd measures the journal's complete lines: from the commit record
// on when the file holds all it records (only what was written after it is
// read), else from the start.
func (r *Run) journalEnd(f *os.File) (commit, error) {
	from, _, err := r.readCommit()
	if err != nil {
		from = commit{}
	}
	fi, err := f.Stat()
	if err != nil {
		return commit{}, err
	}
	if from.Size > fi.Size() {
		from = commit{}
	}
	rd := bufio.NewReaderSize(io.NewSectionReader(f, from.Size, fi.Size()-from.Size), 64<<10)
	cur := from
	for {
		line, err := rd.ReadSlice('\n')
		if err == bufio.ErrBufferFull { // a long line: ReadSlice's buffer is reused by the next read
			head := append([]byte(nil), line...)
			rest, rerr := rd.ReadBytes('\n')
			line, err = append(head, rest...), rerr
		}
		if err == io.EOF {
			return cur, nil // a torn tail (none after Repair) is not counted
		}
		if err != nil {
			return commit{}, err
		}
		cur.Lines++
		if isStepLine(line) {
			cur.Steps++
		}
		cur.Size += int64(len(line))
		cur.Chain = crc32.Update(cur.Chain, crcTable, line)
	}
}

// isStepLine tells a step's line from a marker's without decoding it: an
// Entry's first member is its type.
func isStepLine(line []byte) bool { return bytes.HasPrefix(line, []byte(`{"type":"step"`)) }

// SetCommitted tells the journal the last step already in it (a resumed
// run's), for Committed.
func (j *Journal) SetCommitted(seq int, state string) { j.steps, j.state = seq, state }

// Committed returns the seq of the last step the journal holds and the state
// the run stands in after it, as far as this process knows (SetCommitted and
// the steps written since).
func (j *Journal) Committed() (int, string) { return j.steps, j.state }

// Err returns the error that made the journal unusable, or nil.
func (j *Journal) Err() error { return j.err }

// BorrowsValues says that the journal keeps none of a record's values past
// OnStep (machine.ValueBorrower): its encoder keeps their JSON, or copies.
func (*Journal) BorrowsValues() {}

// OnStep appends the step's record.
func (j *Journal) OnStep(_ context.Context, rec *machine.Record) error {
	if err := j.append(&Entry{Type: EntryStep, Record: rec}, routingOnly(rec)); err != nil {
		return err
	}
	j.steps, j.state = rec.Seq, rec.To
	if rec.End {
		j.state = rec.From
	}
	return nil
}

// routingOnly reports whether a step only routed: no action ran, or only
// noop (so nothing outside the run changed), no memory changed, no answer or
// event came from outside, and the run did not end. Replaying the lines
// before it computes it again, so it need not be synced on its own.
func routingOnly(rec *machine.Record) bool {
	return (rec.Action == "" || rec.Action == machine.ActionNoop) && len(rec.Memory) == 0 && rec.Input == nil && !rec.End && !strings.HasPrefix(rec.Via, "event ")
}

// Mark appends a marker entry (its At is set when zero).
func (j *Journal) Mark(e *Entry) error {
	if e.At.IsZero() {
		e.At = j.now()
	}
	return j.Append(e)
}

// Append writes one entry as one line, in one write call, and syncs it under FsyncAlways.
func (j *Journal) Append(e *Entry) error { return j.append(e, false) }

func (j *Journal) append(e *Entry, lazy bool) error {
	if j.err != nil {
		return fmt.Errorf("cannot write journal: it is unusable after an earlier error: %w", j.err)
	}
	line, done, err := j.codec.encode(e)
	if err != nil {
		j.err = err // nothing was written; the run must not go on unjournaled
		return err
	}
	CrashPoint("journal-before-write")
	if crashArmed("journal-mid-write") {
		_, _ = j.f.Write(line[:len(line)/2])
		_ = j.f.Sync()
		killSelf()
	}
	if _, err := j.f.Write(line); err != nil {
		return j.fail(fmt.Errorf("cannot write journal: %w", err))
	}
	sync := j.policy != FsyncNever && !lazy
	if sync {
		if err := j.f.Sync(); err != nil {
			return j.fail(fmt.Errorf("cannot sync journal: %w", err))
		}
	}
	done()
	j.cur.Lines++
	if e.Type == EntryStep {
		j.cur.Steps++
	}
	j.cur.Size += int64(len(line))
	j.cur.Chain = crc32.Update(j.cur.Chain, crcTable, line)
	j.dirty = !sync
	CrashPoint("journal-before-commit")
	if sync {
		if err := j.commit.write(j.cur, true); err != nil {
			j.err = err // the line is whole and synced: it stays
			return err
		}
	}
	CrashPoint("journal-after-write")
	return nil
}

// fail records a write error: the line, or what was written of it, is cut
// off and the journal refuses further lines.
func (j *Journal) fail(err error) error {
	j.err = err
	_ = j.f.Truncate(j.cur.Size)
	_ = j.f.Sync()
	return err
}

// Sync flushes the lines not yet synced (all of them under FsyncNever, the
// routing-only steps since the last synced line under FsyncAlways) and
// records them in CommitFile: call it before run.json says how many steps
// the journal holds.
func (j *Journal) Sync() error {
	if j.err != nil || !j.dirty {
		return nil
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("cannot sync journal: %w", err)
	}
	j.dirty = false
	return j.commit.write(j.cur, true)
}

// Close syncs what is not synced yet (Sync) and closes the journal.
func (j *Journal) Close() error {
	err := j.Sync()
	return errors.Join(err, j.f.Close(), j.commit.close())
}

// normalizeMap turns json.Numbers into int when integral, else float64,
// so that replayed values have the types a fresh run would have.
func normalizeMap(m map[string]any) map[string]any {
	for k, v := range m {
		m[k] = mspec.NormalizeJSON(v)
	}
	return m
}

var _ machine.Observer = (*Journal)(nil)
var _ io.Closer = (*Journal)(nil)
