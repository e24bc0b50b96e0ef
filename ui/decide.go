package ui

import (
	"fmt"

	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	mspec "github.com/lppctl/lppctl/machine/spec"
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
//
// A run the store does not have is 404 (a prefix of several runs 400), as
// its page is, and no decision is tried.
func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	if _, err := openRun(s.store, r.PathValue("id")); err != nil {
		s.fail(w, openStatus(err), err)
		return
	}
	s.decideWith(w, r, s.opts.Decide, "/runs/"+url.PathEscape(r.PathValue("id")), s.storeRun)
}

// decideWith reads a decision's form and carries it out with decide; the
// page at back shows its outcome.
//
// A decision refused (a bad form, or resume's refusal) shows the run's page
// again with why, and with what was typed kept in its fields; load reads
// the run for that page.
func (s *Server) decideWith(w http.ResponseWriter, r *http.Request, decide func(context.Context, Decision) (string, error), back string, load func(string) (*runView, int, error)) {
	id := r.PathValue("id")
	if !s.readForm(w, r) {
		return
	}
	refuse := func(status int, msg string, fieldErrs map[string]string) {
		s.refused(w, r, status, msg, fieldErrs, back, load)
	}
	step, err := strconv.Atoi(r.PostForm.Get("pause_step"))
	if err != nil || step < 0 {
		refuse(http.StatusBadRequest, fmt.Sprintf("cannot decide for run %s: the form names no pause (pause_step %q); reload the run's page", id, r.PostForm.Get("pause_step")), nil)
		return
	}
	d := Decision{Run: id, PauseStep: step, Kind: r.PostForm.Get("kind")}
	switch d.Kind {
	case "approve", "reject":
	case "answer":
		d.Text = r.PostForm.Get("text")
		if strings.TrimSpace(d.Text) == "" {
			refuse(http.StatusBadRequest, fmt.Sprintf("cannot answer run %s with nothing: type the answer first", id), nil)
			return
		}
	case "event":
		d.Event, d.Payload = strings.TrimSpace(r.PostForm.Get("event")), strings.TrimSpace(r.PostForm.Get("payload"))
		if d.Event == "" {
			refuse(http.StatusBadRequest, fmt.Sprintf("cannot fire an event at run %s: choose which", id), nil)
			return
		}
		if d.Payload == "" {
			// Each typed field is checked against the event's declaration
			// in the run's spec, as resume checks --payload.
			var fields []*mspec.PayloadField
			if v, _, err := load(id); err == nil && v.pause != nil {
				var spec *mspec.Spec
				if v.specSrc != nil {
					spec = runSpec(v.specPath, v.specSrc, v.specAbs)
				}
				fields = payloadFields(spec, v.pause, d.Event)
			}
			payload, msg, errs := formPayload(d.Event, fields, r.PostForm)
			if len(errs) > 0 || msg != "" {
				refuse(http.StatusBadRequest, msg, errs)
				return
			}
			d.Payload = payload
		}
	default:
		refuse(http.StatusBadRequest, fmt.Sprintf("cannot decide for run %s: unknown decision %q (want approve, reject, answer or event)", id, d.Kind), nil)
		return
	}

	// The run goes on after this request is answered: its context is not
	// the request's. The page waits a little for the outcome.
	//
	// A decision refused because the spec changed since the run began is
	// taken with --force only when the form confirms that very refusal
	// (seen): the same decision is tried first without it.
	force, seen := r.PostForm.Get("force") == "1", r.PostForm.Get("seen")
	done := make(chan notice, 1)
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		take := func(d Decision) notice {
			out, err := decide(s.life, d)
			var ref *Refusal
			switch {
			case errors.As(err, &ref):
				return notice{Text: ref.Msg, Refused: true}
			case err != nil:
				return notice{Text: err.Error()}
			}
			return notice{Text: strings.TrimSpace(out)}
		}
		n := take(d)
		if n.Refused && force && specChanged(n.Text) && seen == refusalKey(n.Text) {
			d.Force = true
			n = take(d)
		}
		done <- n
	}()
	var n notice
	select {
	case n = <-done:
	case <-time.After(s.opts.DecideWait):
		n = notice{Text: "decision taken; the run goes on (this page follows it)"}
	}
	if n.Refused && specChanged(n.Text) {
		s.refusedForce(w, r, n.Text, force, back, load)
		return
	}
	if n.Refused {
		refuse(http.StatusConflict, n.Text, nil)
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

// refused shows the run's page again after a refused decision: why, and
// the form with what was typed (and each field's error).
func (s *Server) refused(w http.ResponseWriter, r *http.Request, status int, msg string, fieldErrs map[string]string, back string, load func(string) (*runView, int, error)) {
	s.refusedWith(w, r, status, msg, fieldErrs, "", back, load)
}

// refusedWith is refused, with the key of a refusal that --force would
// overcome ("" for none).
func (s *Server) refusedWith(w http.ResponseWriter, r *http.Request, status int, msg string, fieldErrs map[string]string, forceKey, back string, load func(string) (*runView, int, error)) {
	v, code, err := load(r.PathValue("id"))
	if err != nil {
		s.render(w, status, "error.html", errorData{page: page{Title: "Decision refused", Nav: "runs"}, Status: status, Message: msg, Back: back})
		_ = code
		return
	}
	d, err := s.buildRun(r, v, 0)
	if err != nil {
		s.render(w, status, "error.html", errorData{page: page{Title: "Decision refused", Nav: "runs"}, Status: status, Message: msg, Back: back})
		return
	}
	d.Refusal, d.Typed, d.FieldErrors, d.Self = msg, r.PostForm, fieldErrs, back
	d.setTyped()
	if forceKey != "" {
		d.ForceKey = forceKey
	}
	s.render(w, status, "run.html", d)
}

// refusedForce shows the run's page again after a decision refused because
// the spec changed since the run began: resume's message (what differs),
// and each form with a box that takes the decision with the spec as it is
// now. again: a confirmation was posted for other differences.
func (s *Server) refusedForce(w http.ResponseWriter, r *http.Request, msg string, again bool, back string, load func(string) (*runView, int, error)) {
	key := refusalKey(msg)
	if again {
		msg = "what differs changed again since you confirmed it: nothing was done; look at it again. " + msg
	}
	s.refusedWith(w, r, http.StatusConflict, msg, nil, key, back, load)
}
