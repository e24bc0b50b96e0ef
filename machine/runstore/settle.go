package runstore

import (
	"github.com/lppctl/lppctl/machine"
)

// Settle brings r.Meta to what the journal l (as ScanJournal reads it) says
// of how the run ended, when run.json says it is running: a process that
// recorded the run's end in its journal (its last step, or a pause, fail or
// interrupt marker after it) and stopped before run.json said so, e.g. on a
// full disk. Listings call it for a run no process works on, so that such a
// run is not called crashed. It changes r.Meta, not run.json (resume saves
// it), and reports whether it did.
func (r *Run) Settle(l *Log) bool {
	m := &r.Meta
	if m.Status != machine.StatusRunning || l == nil {
		return false
	}
	e := l.Last()
	if e == nil {
		return false
	}
	switch e.Type {
	case EntryStep:
		if e.Record == nil || !e.End {
			return false
		}
		m.Status, m.State = machine.StatusCompleted, e.From
	case EntryPause:
		m.Status, m.Pause = machine.StatusPaused, e.Pause
	case EntryFail:
		m.Status, m.Error = machine.StatusFailed, e.Message
	case EntryInterrupt:
		m.Status = machine.StatusInterrupted
	default:
		return false
	}
	if e.Type != EntryStep && e.State != "" {
		m.State = e.State
	}
	m.Steps, m.PID = l.Steps(), 0
	if last := l.LastStep(); last != nil {
		end := last.Start.Add(last.Duration)
		if e.Type != EntryStep && e.At.After(end) {
			end = e.At
		}
		m.End = &end
	}
	return true
}

// settleIdle settles (Settle) a run that run.json calls running and no
// process works on, from its journal; a journal that cannot be read changes
// nothing (the listing's own check reports it).
func (r *Run) settleIdle() {
	if r.Meta.Status != machine.StatusRunning || r.Working() {
		return
	}
	if l, err := r.ScanJournal(nil); err == nil {
		r.Settle(l)
	}
}
