package actions

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// childrenDir is the folder of a run's directory that holds the runs of its
// spec.run children, one directory each, named STATE-SEQ after the state and
// the step that ran them.
const childrenDir = "children"

// childRun is a child machine's run, with its journal when it is durable.
type childRun struct {
	run     *machine.Run
	dir     *runstore.Run     // nil: not journaled
	journal *runstore.Journal // nil: not journaled
}

// startChild starts the child machine m, or resumes it from its journal in
// runDir when a run of the same step began there before (this run crashed or
// paused while the child ran). runDir "" runs it unjournaled. input is the
// person's answer, given to a child that waits for one.
func startChild(m *machine.Machine, spec *mspec.Spec, src []byte, specAbs, runDir, runID string, vars map[string]any, input *machine.Input) (*childRun, error) {
	if runDir == "" {
		r, err := m.NewRun(vars, machine.WithRunID(runID))
		if err != nil {
			return nil, err
		}
		return &childRun{run: r}, nil
	}
	store := runstore.New(filepath.Dir(runDir))
	id := filepath.Base(runDir)
	if _, err := os.Stat(filepath.Join(runDir, runstore.JournalFile)); err == nil {
		return resumeChild(m, store, id, runID, input)
	}
	if started, err := childStarted(runDir); err != nil {
		return nil, err
	} else if started {
		return nil, errChildGone(runDir)
	}
	dir, err := store.Create(runstore.Meta{
		ID: id, Spec: specAbs, SpecAbs: specAbs, SpecName: spec.Name, State: spec.Initial,
		Vars: vars, PID: os.Getpid(),
	}, src)
	if err != nil {
		return nil, err
	}
	if dir.Dir != runDir {
		dir.Unlock()
		return nil, fmt.Errorf("cannot create the child's run directory %s: a directory without a journal is in the way", runDir)
	}
	// Before the child's first step: a process killed before this has
	// committed none of them, and a resume starts the child afresh.
	if err := recordChildStart(runDir); err != nil {
		dir.Unlock()
		return nil, err
	}
	j, err := dir.OpenJournal(dir.Meta.Fsync)
	if err != nil {
		dir.Unlock()
		return nil, err
	}
	r, err := m.NewRun(vars, machine.WithRunID(runID), machine.WithObserver(j))
	if err != nil {
		j.Close()
		dir.Unlock()
		return nil, err
	}
	j.SetCommitted(0, r.State())
	return &childRun{run: r, dir: dir, journal: j}, nil
}

// resumeChild rebuilds a child's run from its journal, as lppctl resume does.
func resumeChild(m *machine.Machine, store *runstore.Store, id, runID string, input *machine.Input) (*childRun, error) {
	dir, err := store.Open(id)
	if err != nil {
		return nil, err
	}
	if err := dir.Lock("resume"); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			dir.Unlock()
		}
	}()
	if err := checkChildCommit(dir); err != nil {
		return nil, err
	}
	l, err := dir.ReadJournal()
	if err != nil {
		return nil, err
	}
	if err := dir.Repair(l); err != nil {
		return nil, err
	}
	j, err := dir.OpenJournal(dir.Meta.Fsync)
	if err != nil {
		return nil, err
	}
	opts := []machine.RunOption{machine.WithRunID(runID), machine.WithObserver(j)}
	if input != nil && waitsForAnswer(l) {
		opts = append(opts, machine.WithInput(input))
	} else {
		input = nil
	}
	r, err := m.NewRun(dir.Meta.Vars, opts...)
	var walk runstore.Walker // the records' maps whole (Log.Records holds the keys a step changed)
	for _, rec := range l.Records {
		if err != nil {
			break
		}
		err = r.Replay(walk.Next(rec))
	}
	if err != nil {
		j.Close()
		return nil, fmt.Errorf("cannot resume the child's run %s: %w", dir.Dir, err)
	}
	j.SetCommitted(r.Seq(), r.State())
	if r.Status() != machine.StatusCompleted {
		dir.Meta.Status, dir.Meta.PID, dir.Meta.End = machine.StatusRunning, os.Getpid(), nil
		dir.Meta.Resumes++
		if err := dir.SaveMeta(); err != nil {
			j.Close()
			return nil, err
		}
		if err := j.Mark(&runstore.Entry{Type: runstore.EntryResume, State: r.State(), Answer: input}); err != nil {
			j.Close()
			return nil, err
		}
	}
	ok = true
	return &childRun{run: r, dir: dir, journal: j}, nil
}

// waitsForAnswer reports whether the journal's last pause has no step after it.
func waitsForAnswer(l *runstore.Log) bool {
	for i := len(l.Entries) - 1; i >= 0; i-- {
		switch l.Entries[i].Type {
		case runstore.EntryStep:
			return false
		case runstore.EntryPause:
			return true
		}
	}
	return false
}

// finish records how the child's run stopped (runErr, nil when it completed)
// in its journal and run.json, and releases it.
func (ch *childRun) finish(runErr error) error {
	if ch.dir == nil {
		return nil
	}
	defer ch.dir.Unlock()
	defer ch.journal.Close()
	r, meta := ch.run, &ch.dir.Meta
	meta.Status, meta.State, meta.Steps, meta.PID = r.Status(), r.State(), r.Seq(), 0
	meta.Pause, meta.Error = nil, ""
	marker := &runstore.Entry{State: r.State()}
	pause, paused := machine.AsPause(runErr)
	switch {
	case runErr == nil:
		now := time.Now()
		meta.Status, meta.End, marker = machine.StatusCompleted, &now, nil
	case paused:
		meta.Status, meta.Pause = machine.StatusPaused, pause
		marker.Type, marker.Pause = runstore.EntryPause, pause
	case errors.Is(runErr, machine.ErrInterrupted):
		meta.Status = machine.StatusInterrupted
		marker.Type, marker.Message = runstore.EntryInterrupt, runErr.Error()
	default:
		meta.Status, meta.Error = machine.StatusFailed, runErr.Error()
		marker.Type, marker.Message = runstore.EntryFail, runErr.Error()
	}
	if marker != nil && ch.journal.Err() == nil {
		if err := ch.journal.Mark(marker); err != nil {
			return err
		}
	}
	if err := ch.journal.Sync(); err != nil {
		return err
	}
	return ch.dir.SaveMeta()
}
