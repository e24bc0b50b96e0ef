package ui

import (
	"errors"
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
// run's journal or run.json changes (all runs, or ?run=ID's only), or a
// RunSource's run moves (all of them, or ?temporal=ID's only), so that the
// page fetches itself again. A comment every 15 s keeps proxies from
// closing the stream.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id, remote := q.Get("run"), q.Get("temporal")
	local := remote == "" // a source's run's page watches that run only
	if id != "" {
		run, err := openRun(s.store, id)
		if errors.Is(err, runstore.ErrNotFound) {
			// A stream that says so: the page shows the run as gone (an
			// error status would only make the browser retry in silence).
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Cache-Control", "no-store")
			// The ID is the URL's: a line break in it would end the data
			// line and add fields or events of the caller's choosing.
			fmt.Fprintf(w, "retry: 10000\nevent: gone\ndata: %s\n\n", oneLine.Replace(id))
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		id = filepath.Base(run.Dir)
	}
	watchSource := s.opts.Source != nil && (remote != "" || id == "")
	if remote != "" && s.opts.Source == nil {
		http.Error(w, "lppctl ui was started without --temporal", http.StatusNotFound)
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream, not a response
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	var last, lastRemote string
	if local {
		last = s.fingerprint(id)
	}
	if watchSource {
		lastRemote = s.remoteFingerprint(r.Context(), remote)
	}
	fmt.Fprintf(w, "retry: 2000\nevent: hello\ndata: %s%s\n\n", last, lastRemote)
	if rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(s.opts.Poll)
	defer tick.Stop()
	quiet, asked := time.Now(), time.Now()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.end:
			return
		case <-tick.C:
		}
		changed := false
		if local {
			if fp := s.fingerprint(id); fp != last {
				last, changed = fp, true
			}
		}
		if watchSource && time.Since(asked) >= s.opts.SourcePoll {
			asked = time.Now()
			if fp := s.remoteFingerprint(r.Context(), remote); fp != lastRemote {
				lastRemote, changed = fp, true
			}
		}
		switch {
		case changed:
			quiet = time.Now()
			fmt.Fprintf(w, "event: change\ndata: %s%s\n\n", last, lastRemote)
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

// oneLine writes a text on one line of an event stream: CR and LF, which
// end a line there, as \r and \n.
var oneLine = strings.NewReplacer("\r", `\r`, "\n", `\n`)
