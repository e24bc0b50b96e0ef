package ui

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// MaxFormBytes is the most the UI reads of one posted form (Go's own
// default for a form, said here so its refusal can say it).
const MaxFormBytes = 10 << 20

// readForm parses a posted form of at most MaxFormBytes. A larger one is
// refused with 413 and a message that says the limit and how to give so
// long a value instead (a file, on the command line); false: the answer is
// written.
func (s *Server) readForm(w http.ResponseWriter, r *http.Request) bool {
	if r.PostForm != nil { // already read (once, then its handler)
		return true
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxFormBytes)
	err := r.ParseForm()
	if err == nil {
		return true
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		s.failf(w, http.StatusRequestEntityTooLarge, "cannot read the form: it is larger than %d MiB, the most the UI reads of one form; %s", MaxFormBytes>>20, s.largeValueHint(r))
		return false
	}
	s.failf(w, http.StatusBadRequest, "cannot read the form: %v", err)
	return false
}

// largeValueHint says how to give a value too long for a form: from a
// file, with the command the form would have run.
func (s *Server) largeValueHint(r *http.Request) string {
	switch {
	case r.URL.Path == "/start":
		return "write the long value to a file and start the run on the command line: lppctl run --spec PATH --var-file NAME=FILE" + s.storeFlag()
	case strings.HasSuffix(r.URL.Path, "/decide"):
		where := s.storeFlag()
		if strings.HasPrefix(r.URL.Path, "/temporal/") && s.opts.Source != nil {
			where = " " + s.opts.Source.ResumeFlags()
		}
		return fmt.Sprintf("write the answer or the payload to a file and give it on the command line: lppctl resume %s%s --answer-file FILE, or --event NAME --payload-file FILE", shellQuote(r.PathValue("id")), where)
	}
	return "a form of this page is far smaller: post it from the page"
}
