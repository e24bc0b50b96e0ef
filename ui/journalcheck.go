package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/lppctl/lppctl/machine/runstore"
)

// journalChecks keeps the outcome of Run.CheckJournal for the Runs and
// Specs pages, by run folder, with what it read: the journal, its commit
// file and its children's, each by size, modification and change time and
// inode. A list of thousands of runs then reads only the journals that
// changed since the list before, not every line of every run at each
// refresh. A journal edited in place changes its change time (which touch
// cannot set), so it is read again.
type journalChecks struct {
	mu sync.Mutex
	m  map[string]checkedJournal
}

type checkedJournal struct {
	print string // fingerprint of the files CheckJournal read
	err   error
}

// check is r.CheckJournal(), or its outcome for the same files.
func (c *journalChecks) check(r *runstore.Run) error {
	var b strings.Builder
	fingerprint(&b, r.Dir, 0)
	print := b.String()
	c.mu.Lock()
	got, ok := c.m[r.Dir]
	c.mu.Unlock()
	if ok && got.print == print {
		return got.err
	}
	err := r.CheckJournal()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) > journalChecksKept {
		c.m = map[string]checkedJournal{} // runs deleted since: start again rather than grow
	}
	c.m[r.Dir] = checkedJournal{print: print, err: err}
	return err
}

// journalChecksKept bounds the runs whose check is kept.
const journalChecksKept = 100_000

// fingerprint writes what identifies the files CheckJournal reads in a
// run's folder: its journal and commit file, and its children's
// (Run.CheckChildren: the runs one folder down in each subfolder).
func fingerprint(b *strings.Builder, dir string, depth int) {
	for _, name := range []string{runstore.JournalFile, runstore.CommitFile} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			fmt.Fprintf(b, "%s:-;", name)
			continue
		}
		fmt.Fprintf(b, "%s:%d:%d:%s;", name, fi.Size(), fi.ModTime().UnixNano(), fileIdentity(fi))
	}
	if depth > 8 { // CheckJournal recurses as deep; a deeper tree is checked anew each time
		fmt.Fprintf(b, "deep;")
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		kids, err := os.ReadDir(sub)
		if err != nil {
			continue
		}
		for _, k := range kids {
			if k.IsDir() && !strings.HasPrefix(k.Name(), ".") {
				fmt.Fprintf(b, "[%s/%s:", e.Name(), k.Name())
				fingerprint(b, filepath.Join(sub, k.Name()), depth+1)
				b.WriteString("]")
			}
		}
	}
}
