package ui

import (
	"bytes"
	"maps"
	"reflect"
	"sync"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// runFold is a run page's fold of the run's journal, kept between pages
// (Server.folds, for the runs shown last) so that a page of a live run,
// refreshed at each step it makes, folds only the steps made since the
// page before, not the whole journal again: the context and memory now,
// and the walk (each step's maps whole, the string variables as the step
// before left them) up to the first step of the timeline's page.
//
// A fold is of one journal as one Tail reads it: a journal read again from
// its start (replaced, cut), another copy of the spec or other start
// values make a new fold.
type runFold struct {
	mu sync.Mutex

	// What it folds: the run's spec copy and start values, and the records
	// it folded, known by their first and last (a Tail hands out the same
	// records until it reads the journal again from its start).
	specPath, specAbs string
	specSrc           []byte
	start             map[string]any
	first, last       *machine.Record

	folder *runstore.Folder // the records folded: the context and memory now
	spec   *mspec.Spec

	// The walk up to record walked (the first of the timeline's last page).
	walk   runstore.Walker
	texts  map[string]string
	walked int
}

// foldsKept is how many runs' folds the server keeps (as their journals).
const foldsKept = journalsKept

// foldOf returns the fold of v's journal, locked (the caller unlocks it
// once its page is made): the one kept for v's run when it folds the same
// journal, spec and start values, else a new one.
func (s *Server) foldOf(v *runView, spec *mspec.Spec) *runFold {
	fresh := func() *runFold {
		return &runFold{specPath: v.specPath, specAbs: v.specAbs, specSrc: v.specSrc, start: v.start, spec: spec}
	}
	if v.dir == "" { // a run of another source: nothing to keep it by
		f := fresh()
		f.mu.Lock()
		return f
	}
	f := s.folds.get(v.dir, fresh)
	f.mu.Lock()
	if !f.same(v) {
		f.mu.Unlock()
		f = fresh()
		f.mu.Lock()
		s.folds.put(v.dir, f)
	}
	f.spec = spec
	return f
}

// same reports whether f folds v's journal, spec and start values.
func (f *runFold) same(v *runView) bool {
	if f.specPath != v.specPath || f.specAbs != v.specAbs || !bytes.Equal(f.specSrc, v.specSrc) || !reflect.DeepEqual(f.start, v.start) {
		return false
	}
	if f.folder == nil || f.folder.Added() == 0 {
		return true
	}
	n := f.folder.Added()
	return len(v.records) >= n && v.records[0] == f.first && v.records[n-1] == f.last
}

// snapshot folds the records f has not folded yet and returns the
// context and memory after the last (f's own: valid while f is locked).
func (f *runFold) snapshot(recs []*machine.Record) (*runstore.Snapshot, error) {
	if f.folder == nil {
		f.folder = runstore.NewFolder(f.spec, f.start)
	}
	for _, rec := range recs[f.folder.Added():] {
		if err := f.folder.Add(rec); err != nil {
			f.folder = nil // fold again from the start next time
			return nil, err
		}
		f.last = rec
	}
	if len(recs) > 0 {
		f.first = recs[0]
	}
	return f.folder.Snapshot(), nil
}

// walkTo returns the walk up to record upTo (exclusive) and the string
// variables as they stood then, both the caller's: from where f's walk
// stands when upTo is at or after it (the last page of a growing run),
// else from the first record (an older page, which f's walk stays ahead
// of).
func (f *runFold) walkTo(recs []*machine.Record, upTo int) (*runstore.Walker, map[string]string) {
	if upTo < f.walked {
		var walk runstore.Walker
		texts := map[string]string{}
		for _, rec := range recs[:upTo] {
			walk.Next(rec)
			keepTexts(texts, rec)
		}
		return &walk, texts
	}
	if f.texts == nil {
		f.texts = map[string]string{}
	}
	for _, rec := range recs[f.walked:upTo] {
		f.walk.Next(rec)
		keepTexts(f.texts, rec)
	}
	f.walked = upTo
	return f.walk.Clone(), maps.Clone(f.texts)
}
