package ui

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"sync"
	"time"
)

// The forms that start something (Start a run, Fork from step N) carry a
// key of their own, made when the page is rendered (formKey). A second post
// of the same form — a double click, a browser that sends it again — opens
// what the first post started instead of starting another run: it waits
// for the first post and is sent where it was sent. A first post that
// started nothing (a value refused) lets the next one try.

// formKeyField is the hidden field that holds a form's key.
const formKeyField = "form_key"

// formsKept is how long a form's key is remembered.
const formsKept = 10 * time.Minute

// formKey makes a new form key (the templates' formKey).
func formKey() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// posts remembers the forms posted lately, by key.
type posts struct {
	mu sync.Mutex
	m  map[string]*post
}

// post is one form's first post: done once it was answered, with where it
// sent the browser ("" when it started nothing).
type post struct {
	at       time.Time
	done     chan struct{}
	location string
}

// once runs handle for the first post of a form (by its form_key field; a
// form without one is always handled), and answers a second post of it
// with the first one's redirect.
func (s *Server) once(w http.ResponseWriter, r *http.Request, handle func(http.ResponseWriter, *http.Request)) {
	if !s.readForm(w, r) {
		return
	}
	p := &s.posts
	key := r.PostForm.Get(formKeyField)
	if key == "" {
		handle(w, r)
		return
	}
	p.mu.Lock()
	if p.m == nil {
		p.m = map[string]*post{}
	}
	for k, old := range p.m {
		if time.Since(old.at) > formsKept {
			delete(p.m, k)
		}
	}
	first, seen := p.m[key]
	if !seen {
		first = &post{at: time.Now(), done: make(chan struct{})}
		p.m[key] = first
	}
	p.mu.Unlock()
	if seen {
		select {
		case <-first.done:
		case <-r.Context().Done():
			return
		}
		if first.location != "" {
			http.Redirect(w, r, first.location, http.StatusSeeOther)
			return
		}
		handle(w, r) // the first post started nothing: this one tries
		return
	}
	rec := &redirectRecorder{ResponseWriter: w}
	defer func() {
		first.location = rec.location
		if rec.location == "" { // nothing started: the form may be posted again
			p.mu.Lock()
			delete(p.m, key)
			p.mu.Unlock()
		}
		close(first.done)
	}()
	handle(rec, r)
}

// redirectRecorder notes where a handler redirected the browser after
// starting something (303 See Other).
type redirectRecorder struct {
	http.ResponseWriter
	location string
}

func (r *redirectRecorder) WriteHeader(code int) {
	if code == http.StatusSeeOther {
		r.location = r.Header().Get("Location")
	}
	r.ResponseWriter.WriteHeader(code)
}
