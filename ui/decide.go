package ui

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// decide carries out the decision a run page's form posts: exactly what
// lppctl resume RUN_ID --approve|--reject|--answer TEXT|--event NAME
// [--payload JSON] does, through Options.Decide (the resume command itself,
// under the run's lock). The form names the pause it answers (pause_step):
// a decision for a pause the run no longer stands in is refused, so a
// second decision for the same pause never answers the next one.
func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	s.decideWith(w, r, s.opts.Decide, "/runs/"+url.PathEscape(r.PathValue("id")))
}

// decideWith reads a decision's form and carries it out with decide; the
// page at back shows its outcome.
func (s *Server) decideWith(w http.ResponseWriter, r *http.Request, decide func(context.Context, Decision) (string, error), back string) {
	id := r.PathValue("id")
	if err := r.ParseForm(); err != nil {
		s.failf(w, http.StatusBadRequest, "cannot read the decision: %v", err)
		return
	}
	step, err := strconv.Atoi(r.PostForm.Get("pause_step"))
	if err != nil || step < 0 {
		s.failf(w, http.StatusBadRequest, "cannot decide for run %s: the form names no pause (pause_step %q); reload the run's page", id, r.PostForm.Get("pause_step"))
		return
	}
	d := Decision{Run: id, PauseStep: step, Kind: r.PostForm.Get("kind")}
	switch d.Kind {
	case "approve", "reject":
	case "answer":
		d.Text = r.PostForm.Get("text")
		if strings.TrimSpace(d.Text) == "" {
			s.failf(w, http.StatusBadRequest, "cannot answer run %s with nothing: type the answer first", id)
			return
		}
	case "event":
		d.Event, d.Payload = strings.TrimSpace(r.PostForm.Get("event")), strings.TrimSpace(r.PostForm.Get("payload"))
		if d.Event == "" {
			s.failf(w, http.StatusBadRequest, "cannot fire an event at run %s: choose which", id)
			return
		}
	default:
		s.failf(w, http.StatusBadRequest, "cannot decide for run %s: unknown decision %q (want approve, reject, answer or event)", id, d.Kind)
		return
	}

	// The run goes on after this request is answered: its context is not
	// the request's. The page waits a little for the outcome.
	done := make(chan notice, 1)
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		out, err := decide(s.life, d)
		var ref *Refusal
		switch {
		case errors.As(err, &ref):
			done <- notice{Text: ref.Msg, Refused: true}
		case err != nil:
			done <- notice{Text: err.Error()}
		default:
			done <- notice{Text: strings.TrimSpace(out)}
		}
	}()
	var n notice
	select {
	case n = <-done:
	case <-time.After(s.opts.DecideWait):
		n = notice{Text: "decision taken; the run goes on (this page follows it)"}
	}
	if n.Refused {
		s.render(w, http.StatusConflict, "error.html", errorData{
			page:   page{Title: "Decision refused", Nav: "runs"},
			Status: http.StatusConflict, Message: n.Text, Back: back,
		})
		return
	}
	key := s.keepNotice(n)
	http.Redirect(w, r, back+"?n="+key, http.StatusSeeOther)
}

// keepNotice stores a decision's outcome for the run page to show once.
func (s *Server) keepNotice(n notice) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	key := hex.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.notices) > 1000 { // never read back: drop them all rather than grow
		clear(s.notices)
	}
	s.notices[key] = n
	return key
}
