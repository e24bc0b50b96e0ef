package runstore

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/lppctl/lppctl/machine"
)

// Recovery is a run made ready to continue (Store.Recover): locked by this
// process, its metadata current, its journal read and checked, a torn last
// line cut off.
type Recovery struct {
	Run *Run
	// Log is the journal as ScanJournal reads it: the markers, the steps
	// that took an answer and the last step, without their context
	// variables (Replay reads them: the journal is decoded once).
	Log *Log
	// Notes are what the person should be told before the run goes on
	// (metadata rebuilt from the journal, a torn line ignored), without the
	// "note: " that the caller prints before each.
	Notes []string
	// Done says that the journal's last step completed the run, so nothing
	// is left to run: DoneBefore when run.json said so already, DoneNow when
	// the run stopped before saying so and Recover has now recorded it.
	Done Done
}

// Done is how a recovered run had completed.
type Done int

// How a recovered run had completed.
const (
	NotDone    Done = iota
	DoneBefore      // run.json said so
	DoneNow         // the process stopped before run.json said so; now it does
)

// Recover opens the run id for resuming: it takes the run's lock (a
// *LockedError when another process holds it), checks that the run's
// directory is writable, reloads run.json (or rebuilds it from the journal),
// reads the journal and refuses one that lost lines, cuts a torn last line
// off and, when the journal says the run completed, records that. The
// caller releases the lock with Release (deferred), whatever happens next.
func (s *Store) Recover(id string) (*Recovery, error) {
	run, err := s.Open(id)
	if err != nil {
		return nil, err
	}
	// One process at a time: the lock is held by the process that runs or
	// resumes the run, and the kernel drops it when that process dies.
	if err := run.Lock("resume"); err != nil {
		if _, ok := errors.AsType[*LockedError](err); ok {
			return nil, err
		}
		return nil, fmt.Errorf("cannot resume run %s: %w", run.Meta.ID, err)
	}
	run.sweep()
	rc := &Recovery{Run: run}
	if err := rc.prepare(); err != nil {
		run.Unlock()
		return nil, err
	}
	return rc, nil
}

// Release releases the run's lock (also when a session took it over and
// released it already).
func (rc *Recovery) Release() { rc.Run.Unlock() }

func (rc *Recovery) prepare() error {
	run := rc.Run
	if err := run.Writable(); err != nil {
		return fmt.Errorf("cannot resume run %s: %w", run.Meta.ID, err)
	}
	if err := run.loadMeta(); err != nil { // it may have changed before we got the lock
		return fmt.Errorf("cannot resume run %s: %w", filepath.Base(run.Dir), err)
	}
	meta := &run.Meta
	id := meta.ID
	if run.Rebuilt != nil {
		rc.Notes = append(rc.Notes, fmt.Sprintf("%v; rebuilt it from the journal (%s, %d steps)", run.Rebuilt, meta.Status, meta.Steps))
	}
	heads := newDecoder()
	heads.heads, heads.reuse = true, true
	l, err := run.scanWith(heads, false, nil)
	if err != nil {
		return fmt.Errorf("cannot resume run %s: %w", id, err)
	}
	rc.Log = l
	if note := l.TornNote(); note != "" {
		rc.Notes = append(rc.Notes, note)
		if err := run.Repair(l); err != nil {
			return err
		}
	}
	if err := rc.checkJournal(); err != nil {
		return fmt.Errorf("cannot resume run %s: %w", id, err)
	}
	if last := l.LastStep(); last != nil && last.End {
		rc.Done = DoneBefore
		if meta.Status == machine.StatusCompleted {
			// Nothing to do, and nothing wrong: a resume killed after it
			// finished the run is repeated in kill/resume loops.
			if run.Rebuilt != nil {
				return run.SaveMeta()
			}
			return nil
		}
		// It stopped after committing its last step, before saying so in run.json.
		rc.Done = DoneNow
		now := time.Now()
		meta.Status, meta.State, meta.Steps, meta.PID, meta.Pause, meta.End = machine.StatusCompleted, last.From, l.Steps(), 0, nil, &now
		meta.Tokens = run.Tokens()
		return run.SaveMeta()
	}
	return nil
}

// checkJournal refuses a journal that lost lines: one that does not begin
// with the run's start marker (an empty one included), or that holds fewer
// steps than run.json says were committed (a run without a commit record).
func (rc *Recovery) checkJournal() error {
	run, l := rc.Run, rc.Log
	path := run.Path(JournalFile)
	meta := &run.Meta
	switch {
	case len(l.Entries) == 0:
		return fmt.Errorf("its journal %s is empty (run.json records %d steps): it was truncated or replaced, and the run cannot be rebuilt without it", path, meta.Steps)
	case l.Entries[0].Type != EntryStart:
		return fmt.Errorf("%s:1: the journal does not begin with the run's start marker: its beginning is lost (truncated or replaced), and the run cannot be rebuilt without it", path)
	case l.Entries[0].Meta != nil && l.Entries[0].Meta.ID != "" && l.Entries[0].Meta.ID != meta.ID:
		return fmt.Errorf("%s:1: the journal is run %s's, not this run's (copied over?)", path, l.Entries[0].Meta.ID)
	case meta.Steps > l.Steps():
		return fmt.Errorf("run.json records %d committed steps, but its journal %s holds %d: lines are lost (truncated or replaced), and the run cannot be rebuilt without them", meta.Steps, path, l.Steps())
	}
	return nil
}

// Pause returns the pause the run waits in: the journal's (Log.WaitingFor),
// else run.json's when it says the run is paused; nil when it does not wait.
func (rc *Recovery) Pause() *machine.PauseError {
	if p := rc.Log.WaitingFor(); p != nil {
		return p
	}
	if rc.Run.Meta.Status == machine.StatusPaused {
		return rc.Run.Meta.Pause
	}
	return nil
}

// Replay streams the journal's steps into r (a new run of the run's
// machine), one at a time, and checks that they are the steps Recover read.
func (rc *Recovery) Replay(r *machine.Run) error {
	dec := newDecoder()
	dec.reuse = true // r.Replay keeps no record, nor its vars map
	l, err := rc.Run.scanWith(dec, false, r.Replay)
	if err != nil {
		var re *replayError
		if errors.As(err, &re) {
			return re.err
		}
		return err
	}
	if l.Steps() != rc.Log.Steps() {
		return fmt.Errorf("cannot replay the journal: it holds %d steps now, %d when the run was recovered (changed while locked?)", l.Steps(), rc.Log.Steps())
	}
	return nil
}

// WaitingFor returns the pause the journal says the run waits in: the last
// pause marker, when no step was committed after it (even if a resume that
// was given an answer died before its step was committed); nil otherwise.
func (l *Log) WaitingFor() *machine.PauseError {
	for i := len(l.Entries) - 1; i >= 0; i-- {
		switch e := l.Entries[i]; e.Type {
		case EntryStep:
			return nil
		case EntryPause:
			return e.Pause
		}
	}
	return nil
}

// AnsweredWith returns the step that consumed answer in after the run's last
// pause, or 0 when none did.
func (l *Log) AnsweredWith(in *machine.Input) int {
	after := 0
	for i, e := range l.Entries {
		if e.Type == EntryPause {
			after = i
		}
	}
	for _, e := range l.Entries[after:] {
		if e.Type == EntryStep && e.Record.Input != nil && e.Record.Input.Kind == in.Kind && e.Record.Input.Text == in.Text {
			return e.Record.Seq
		}
	}
	return 0
}

// Stopped reports whether the run stopped at a clean point since it began
// (a pause, fail or interrupt marker): the events queued when it began
// (Meta.Events) that no step had taken were dropped then, with a note, and
// are not queued again.
func (l *Log) Stopped() bool { return l.StoppedBefore(-1) }

// StoppedBefore is Stopped before step n: only the markers before step
// n's line count (n < 0: all of them; n = 0: none, the run's start). The
// marker that ends a fork's copied steps (ForkMark) is no stop: a fork
// stands where its run stood right after step n, with the queued events
// no step had taken yet, even when the run stopped there.
func (l *Log) StoppedBefore(n int) bool {
	if n == 0 {
		return false
	}
	for _, e := range l.Entries {
		switch e.Type {
		case EntryStep:
			if n > 0 && e.Record != nil && e.Record.Seq >= n {
				return false
			}
		case EntryPause, EntryFail:
			return true
		case EntryInterrupt:
			if !e.IsForkMark() {
				return true
			}
		}
	}
	return false
}

// forkMarkPrefix begins the message of the interrupt marker that ends a
// fork's copied steps.
const forkMarkPrefix = "forked from run "

// ForkMark is the interrupt marker that ends the steps a fork copied from
// run from (lppctl runs fork): the fork stands in state after step n.
func ForkMark(from string, n int, state string) *Entry {
	return &Entry{Type: EntryInterrupt, State: state, Message: fmt.Sprintf("%s%s after step %d", forkMarkPrefix, from, n)}
}

// IsForkMark reports whether e is a ForkMark.
func (e *Entry) IsForkMark() bool {
	return e.Type == EntryInterrupt && strings.HasPrefix(e.Message, forkMarkPrefix)
}

// TookEvent returns the step that took event name since the run last
// stopped (its last pause, fail or interrupt marker), or 0 when none did: a
// resume that delivered it and was killed after its step was committed.
func (l *Log) TookEvent(name string) int {
	after := 0
	for i, e := range l.Entries {
		switch e.Type {
		case EntryPause, EntryFail, EntryInterrupt:
			after = i
		}
	}
	for _, e := range l.Entries[after:] {
		if e.Type == EntryStep && tookEvent(e.Record.Via) && eventOf(e.Record.Via) == name {
			return e.Record.Seq
		}
	}
	return 0
}

// tookEvent reports whether a step's Via says it took an event: "event
// NAME" (a spec's events:) or "on NAME[i]" (a waiting state's on:).
func tookEvent(via string) bool {
	return strings.HasPrefix(via, "event ") || strings.HasPrefix(via, "on ")
}

// eventOf returns the event's name in a Via that took one.
func eventOf(via string) string {
	_, name, _ := strings.Cut(via, " ")
	name, _, _ = strings.Cut(name, "[")
	return name
}
