package ui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lppctl/lppctl/machine/runstore"
)

// errNothingRan is a run's folder that holds neither run.json nor a
// journal: lppctl stopped as it made it (kill -9), or someone made it by
// hand. Nothing ran in it, so it is no run (runstore.ErrNotFound: its page
// is a 404, its stream says it is gone), and the Runs page does not list
// it.
type errNothingRan struct{ id, dir string }

func (e *errNothingRan) Error() string {
	return fmt.Sprintf("cannot open run %q: nothing ran in it: its folder %s holds neither %s nor a journal (lppctl stopped as it made it, or the folder was made by hand); remove it with rm -r %s", e.id, e.dir, runstore.MetaFile, shellQuote(e.dir))
}

func (e *errNothingRan) Unwrap() error { return runstore.ErrNotFound }

// openRun opens run id of store as store.Open does; a folder of that name
// in which nothing ran (store.Open: not found, as no prefix names it) is an
// *errNothingRan.
func openRun(store *runstore.Store, id string) (*runstore.Run, error) {
	run, err := store.Open(id)
	if err == nil || errors.Is(err, runstore.ErrAmbiguous) || !filepath.IsLocal(id) || filepath.Base(id) != id {
		return run, err
	}
	dir := filepath.Join(store.Dir, id)
	if info, serr := os.Stat(dir); serr != nil || !info.IsDir() {
		return run, err
	}
	for _, name := range []string{runstore.MetaFile, runstore.JournalFile} {
		if _, serr := os.Lstat(filepath.Join(dir, name)); !errors.Is(serr, os.ErrNotExist) {
			return run, err
		}
	}
	return nil, &errNothingRan{id: id, dir: dir}
}
