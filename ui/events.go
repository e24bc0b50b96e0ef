package ui

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lppctl/lppctl/machine/runstore"
)

// events streams server-sent events to a live page: "change" whenever a
// run's journal or run.json changes (all runs, or ?run=ID's only), so that
// the page fetches itself again. A comment every 15 s keeps proxies from
// closing the stream.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("run")
	if id != "" {
		run, err := s.store.Open(id)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		id = filepath.Base(run.Dir)
	}
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream, not a response
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	last := s.fingerprint(id)
	fmt.Fprintf(w, "retry: 2000\nevent: hello\ndata: %s\n\n", last)
	if rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(s.opts.Poll)
	defer tick.Stop()
	quiet := time.Now()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.end:
			return
		case <-tick.C:
		}
		fp := s.fingerprint(id)
		switch {
		case fp != last:
			last, quiet = fp, time.Now()
			fmt.Fprintf(w, "event: change\ndata: %s\n\n", fp)
		case time.Since(quiet) > 15*time.Second:
			quiet = time.Now()
			fmt.Fprint(w, ": still here\n\n")
		default:
			continue
		}
		if rc.Flush() != nil {
			return
		}
	}
}

// fingerprint sums up the runs' files as stat sees them (no reading): the
// size of each journal and the time of each run.json; for one run, or all.
func (s *Server) fingerprint(id string) string {
	var dirs []string
	if id != "" {
		dirs = []string{filepath.Join(s.store.Dir, id)}
	} else {
		ents, _ := os.ReadDir(s.store.Dir)
		for _, e := range ents {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				dirs = append(dirs, filepath.Join(s.store.Dir, e.Name()))
			}
		}
	}
	var b strings.Builder
	for _, d := range dirs {
		fmt.Fprintf(&b, "%s", filepath.Base(d))
		for _, f := range []string{runstore.JournalFile, runstore.MetaFile, runstore.LockFile} {
			if fi, err := os.Stat(filepath.Join(d, f)); err == nil {
				fmt.Fprintf(&b, ":%d.%d", fi.Size(), fi.ModTime().UnixNano())
			}
		}
		b.WriteByte(';')
	}
	h := fnv.New64a()
	h.Write([]byte(b.String()))
	return fmt.Sprintf("%x", h.Sum64())
}
